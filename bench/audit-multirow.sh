#!/usr/bin/env bash
# PostgreSQL's audit begin+finish against SQLite's in one run: ROUNDS rounds, each SQLite
# (audit-bench 20000 64) and then four PostgreSQL writers (audit-bench 5000 64) in an order
# that alternates between rounds: one statement per row with the writer waiting for each
# COMMIT (before this branch), multi-row `unnest` and multi-row `VALUES` still waiting, and
# multi-row `unnest` with the COMMIT overlapped (this branch's default),
# each PostgreSQL run on a fresh database of one throwaway cluster (bench/pg-cluster.sh: fsync
# and synchronous_commit on). Prints each run's begin+finish rows/s and statements per
# transaction, then one table line per round with the PG/SQLite ratios.
# usage: bench/audit-multirow.sh AUDIT_BENCH_BINARY [ROUNDS] [PORT]
set -euo pipefail
bin=${1:?usage: bench/audit-multirow.sh AUDIT_BENCH_BINARY [ROUNDS] [PORT]}
rounds=${2:-3}
port=${3:-55439}
dir=$(mktemp -d /tmp/audit-multirow.XXXXXX); chmod 755 "$dir"
here=$(cd "$(dirname "$0")" && pwd)
"$here/pg-cluster.sh" start "$dir/pg" "$port"
trap '"$here/pg-cluster.sh" stop "$dir/pg"; rm -rf "$dir"' EXIT
pg() { runuser -u postgres -- psql -qAt -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "$1"; }
rate() { grep '^begin+finish' "$1" | sed -E 's/.* ([0-9]+) rows\/s.*/\1/'; }
echo "| round | SQLite | PG per row (before) | PG unnest | PG VALUES | PG unnest + overlapped commits (after) | after/before | before / SQLite | unnest / SQLite | VALUES / SQLite | after / SQLite |"
for round in $(seq 1 "$rounds"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  "$bin" 20000 64 > "$dir/sqlite.$round" 2>&1
  if [ $((round % 2)) -eq 1 ]; then order="0 unnest values overlap"; else order="overlap values unnest 0"; fi
  for form in $order; do
    db="r${round}_${form}"
    pg "CREATE DATABASE $db"
    overlap=0; multirow=$form
    if [ "$form" = overlap ]; then overlap=1; multirow=unnest; fi
    AUDIT_PG_OVERLAP=$overlap AUDIT_PG_MULTIROW=$multirow AUDIT_DB="postgresql://postgres@127.0.0.1:$port/$db" "$bin" 5000 64 > "$dir/pg.$round.$form" 2>&1
    pg "DROP DATABASE $db"
    grep -E '^(record|begin\+finish)|statements sent' "$dir/pg.$round.$form" | sed "s/^/  round $round $form: /" >&2
  done
  s=$(rate "$dir/sqlite.$round"); a=$(rate "$dir/pg.$round.0"); u=$(rate "$dir/pg.$round.unnest"); v=$(rate "$dir/pg.$round.values")
  o=$(rate "$dir/pg.$round.overlap")
  awk -v r="$round" -v l="$load" -v s="$s" -v a="$a" -v u="$u" -v v="$v" -v o="$o" 'BEGIN {
    printf "| %d (load %s) | %d | %d | %d | %d | %d | %.2f× | %.2f | %.2f | %.2f | %.2f |\n", r, l, s, a, u, v, o, o/a, a/s, u/s, v/s, o/s }'
done
