#!/usr/bin/env bash
# What PostgreSQL is asked per proxied request: one instance with its audit (and shared pacer,
# instance registry) on a throwaway cluster with pg_stat_statements loaded, config/bench.json
# with the 10 ms delivery window of bench/instances.sh, OneSignal start bodies from wrk at 16
# connections for BENCH_SECONDS (default 5); then, per request: the cluster's CPU (µs),
# transactions (xact_commit), and each statement's calls, total execution time and plan time.
#   bench/pg-statements.sh PUSHBRIDGE_BINARY
# BENCH_WINDOW_MS sets the delivery window (default 10, as bench/instances.sh; bench/ab.sh runs
# config/bench.json's 1000). BENCH_WAITS, BENCH_PERF and BENCH_SETUP_SQL: below.
set -euo pipefail
cd "$(dirname "$0")/.."
pushbridge=$1 seconds=${BENCH_SECONDS:-5}
work=$(mktemp -d /tmp/pushbridge-bench-stmts.XXXXXX) pg_dir=$(mktemp -d /tmp/pushbridge-bench-pg.XXXXXX)
pids=()
# At exit: the processes started here (nginx, PushBridge), then the cluster and the files.
trap '[ ${#pids[@]} = 0 ] || { kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; }; bench/pg-cluster.sh stop "$pg_dir"; rm -rf "$work"' EXIT INT TERM
base=$((21000 + RANDOM % 4000))
pg_port=$base pb_port=$((base + 1)) up_port=$((base + 2))
wait_port() { for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open" >&2; exit 1; }
mkdir -p "$work/up"
. bench/nginx-conf.sh
upstream_conf "$work/up" "$up_port"
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/up" -c "$work/up/nginx.conf" 2>"$work/up/stderr" & pids+=($!)
wait_port "$up_port"
PG_MAX_CONNECTIONS=100 bench/pg-cluster.sh start "$pg_dir" "$pg_port"
sql() { runuser -u postgres -- psql -q -tA -h 127.0.0.1 -p "$pg_port" -c "$1" "${2:-bench}"; }
sql "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" postgres
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
runuser -u postgres -- "$bin/pg_ctl" -D "$pg_dir/data" -w -m fast restart -l "$pg_dir/server.log" >/dev/null
sql "ALTER SYSTEM SET pg_stat_statements.track_planning = on" postgres
sql "SELECT pg_reload_conf()" postgres >/dev/null
sql "CREATE DATABASE bench" postgres
sql "CREATE EXTENSION pg_stat_statements"
postmaster=$(head -1 "$pg_dir/data/postmaster.pid")
python3 - "$work/pb.json" "$pb_port" "$up_port" "postgresql://postgres@127.0.0.1:$pg_port/bench" "${BENCH_WINDOW_MS:-10}" <<'PY'
import json, sys
out, pb, up, audit = sys.argv[1:5]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{pb}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = audit; c["instance_name"] = "a"
c["delivery"].update({"window_ms": int(sys.argv[5]), "margin_ms": 0})
json.dump(c, open(out, "w"), indent=1)
PY
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/pb.json" 2>"$work/pb.log" & pids+=($!); pb_pid=$!
wait_port "$pb_port"
# BENCH_SETUP_SQL: statements run on the database once PushBridge has migrated it, before the
# warm-up (to try a table setting on a build that does not make it).
[ -z "${BENCH_SETUP_SQL:-}" ] || sql "$BENCH_SETUP_SQL" >/dev/null
body=fixtures/onesignal-start-reference/body.json path=/apps/bench-app/activities/activity/DeliveryAttributes auth="Key bench-onesignal-key"
BENCH_BODY=$body BENCH_AUTH=$auth wrk -t1 -c4 -d1s -s bench/http/post.lua "http://127.0.0.1:$pb_port$path" >/dev/null
ticks() { local n=0 p s; for p in "$@"; do read -r -a s 2>/dev/null <"/proc/$p/stat" || continue; n=$((n + s[13] + s[14] + s[15] + s[16])); done; echo "$n"; }
pg_ticks() { mapfile -t pg <<<"$(echo "$postmaster"; pgrep -P "$postmaster" || true)"; ticks "${pg[@]}"; }
sql "SELECT pg_stat_statements_reset(), pg_stat_reset(), pg_stat_reset_shared('wal')" >/dev/null
x0=$(sql "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'")
t0=$(pg_ticks) p0=$(ticks "$pb_pid")
declare -A before
for p in $(echo "$postmaster"; pgrep -P "$postmaster"); do before[$p]=$(ticks "$p"); done
# During the load, optionally: BENCH_WAITS=1 samples pg_stat_activity's wait events and the
# locks not granted every 50 ms (counts printed after the run); BENCH_PERF=FILE records the
# server's processes with call graphs (perf record -g) into FILE, for `perf report -i FILE`.
during=()
if [ -n "${BENCH_WAITS:-}" ]; then
  ( end=$(( $(date +%s) + seconds )); while [ "$(date +%s)" -lt "$end" ]; do
      sql "SELECT 'wait|' || left(regexp_replace(query, '\s+', ' ', 'g'), 50) || '|' || coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') || '|' || state FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = 'bench'
           UNION ALL SELECT 'lock|' || locktype || '|' || mode || '|' || coalesce(relation::regclass::text, '') FROM pg_locks WHERE NOT granted"
      sleep 0.05; done >"$work/waits" ) & during+=($!)
fi
if [ -n "${BENCH_PERF:-}" ]; then
  perf record -q -F 999 -g -o "$BENCH_PERF" -p "$( { echo "$postmaster"; pgrep -P "$postmaster"; } | paste -sd, -)" -- sleep "$seconds" >/dev/null 2>&1 & during+=($!)
fi
BENCH_BODY=$body BENCH_AUTH=$auth wrk -t1 -c16 -d"${seconds}s" -s bench/http/post.lua "http://127.0.0.1:$pb_port$path" | grep '^RESULT' >"$work/run"
t1=$(pg_ticks) p1=$(ticks "$pb_pid")
[ ${#during[@]} = 0 ] || wait "${during[@]}" 2>/dev/null || true
cat "$work/run"
if [ -n "${BENCH_WAITS:-}" ]; then
  echo "wait samples (50 ms apart): count, kind, what"
  sort "$work/waits" | uniq -c | sort -rn | head -25
fi
n=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' "$work/run")
# Each process's CPU per request, by what it is (a backend by the last statement it ran).
sql "SELECT pid, coalesce(nullif(backend_type, 'client backend'), '') || left(regexp_replace(query, '\s+', ' ', 'g'), 70) FROM pg_stat_activity" |
  while IFS='|' read -r p what; do echo "$p|$what"; done >"$work/activity"
echo "$postmaster|postmaster" >>"$work/activity"
for p in "${!before[@]}"; do
  what=$(grep "^$p|" "$work/activity" | cut -d'|' -f2-)
  awk -v d="$(( $(ticks "$p") - ${before[$p]} ))" -v n="$n" -v hz="$(getconf CLK_TCK)" -v w="${what:-(gone or other)}" 'BEGIN { if (d > 0) printf "%8.1f µs  %s\n", d*1e6/hz/n, w }'
done | sort -rn
kill "$pb_pid"; wait "$pb_pid" 2>/dev/null || true
sleep 1
x1=$(sql "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'")
hz=$(getconf CLK_TCK)
awk -v a="$t0" -v b="$t1" -v p0="$p0" -v p1="$p1" -v n="$n" -v hz="$hz" -v x="$((x1 - x0))" 'BEGIN {
  printf "requests %d; CPU per request: PostgreSQL %.0f µs, PushBridge %.0f µs; transactions per request %.3f\n", n, (b-a)*1e6/hz/n, (p1-p0)*1e6/hz/n, x/n }'
sql "SELECT 'WAL per request: ' || round(wal_bytes / $n) || ' bytes, ' || round(wal_records::numeric / $n, 1) || ' records, ' || round(wal_fpi::numeric / $n, 2) || ' full pages' FROM pg_stat_wal"
echo "per request: calls, exec µs, plan µs, rows; statement"
sql "SELECT to_char(calls::float8/$n, 'FM990.000') || '|' || to_char(total_exec_time*1000/$n, 'FM99990.0') || '|' || to_char(total_plan_time*1000/$n, 'FM99990.0') || '|' || to_char(rows::float8/$n, 'FM990.00') || '|' || left(regexp_replace(query, '\s+', ' ', 'g'), ${BENCH_SQL_WIDTH:-140})
     FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench') ORDER BY total_exec_time + total_plan_time DESC LIMIT ${BENCH_SQL_ROWS:-30}" | column -t -s'|'
echo "tables written during the run (per request: inserts, updates, of them HOT; size now, KiB; autovacuum runs)"
sql "SELECT relname || '|' || to_char(n_tup_ins::float8/$n, 'FM990.000') || '|' || to_char(n_tup_upd::float8/$n, 'FM990.000') || '|' || to_char(n_tup_hot_upd::float8/$n, 'FM990.000') || '|' || pg_total_relation_size(relid)/1024 || '|' || autovacuum_count
     FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY n_tup_ins + n_tup_upd DESC LIMIT 12" | column -t -s'|'
