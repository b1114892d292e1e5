#!/usr/bin/env bash
# PostgreSQL's CPU per audited request for two audit-bench binaries, without the proxy, the
# pacer or wrk: one throwaway cluster (bench/pg-cluster.sh: fsync and synchronous_commit on), a
# fresh database per run, `audit-bench ROWS 64` (its record and begin+finish phases: 2 × ROWS
# requests), A and B alternately (B first in even rounds). The server's CPU is the postmaster's
# and its children's utime+stime (a backend that exited is counted in the postmaster's
# children's time).
# usage: bench/audit-pg-cpu.sh A_AUDIT_BENCH B_AUDIT_BENCH [ROUNDS] [ROWS] [PORT]
set -euo pipefail
a=$1 b=$2 rounds=${3:-3} rows=${4:-10000} port=${5:-55471}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/audit-pg-cpu.XXXXXX); chmod 755 "$dir"
"$here/pg-cluster.sh" start "$dir/pg" "$port"
trap '"$here/pg-cluster.sh" stop "$dir/pg"; rm -rf "$dir"' EXIT
pg() { runuser -u postgres -- psql -qAt -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "$1"; }
postmaster=$(head -1 "$dir/pg/data/postmaster.pid")
ticks() { local n=0 p s; for p in "$@"; do read -r -a s 2>/dev/null <"/proc/$p/stat" || continue; n=$((n + s[13] + s[14] + s[15] + s[16])); done; echo "$n"; }
pg_ticks() { mapfile -t pids <<<"$(echo "$postmaster"; pgrep -P "$postmaster" || true)"; ticks "${pids[@]}"; }
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order="a b"; else order="b a"; fi
  for which in $order; do
    bin=$a; [ "$which" = b ] && bin=$b
    db="r${round}_$which"
    pg "CREATE DATABASE $db"
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(pg_ticks)
    AUDIT_DB="postgresql://postgres@127.0.0.1:$port/$db" "$bin" "$rows" 64 > "$dir/out" 2>&1 || { grep -m3 -i error "$dir/out"; exit 1; }
    # The backends the store closed have exited once their time is in the postmaster's.
    for _ in $(seq 50); do [ -z "$(pgrep -P "$postmaster" -f "$db" || true)" ] && break; sleep 0.1; done
    t1=$(pg_ticks)
    rates=$(grep -E '^(record|begin\+finish)' "$dir/out" | sed -E 's/^([a-z+]+).* ([0-9]+) rows\/s.*/\1 \2 rows\/s/' | paste -sd, -)
    awk -v r="$round" -v w="$which" -v d="$((t1 - t0))" -v n="$((2 * rows))" -v hz="$hz" -v l="$load" -v rates="$rates" 'BEGIN {
      printf "round %d %s (load %s): PostgreSQL CPU %.1f µs per request; %s\n", r, w, l, d*1e6/hz/n, rates }'
    pg "DROP DATABASE $db"
  done
done
