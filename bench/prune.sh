#!/usr/bin/env bash
# Retention under load, called by bench/run.sh (and runnable alone):
#   bench/prune.sh PUSHBRIDGE_BINARY [BASELINE_BINARY]
# Seeds one audit with BENCH_PRUNE_ROWS (default 200,000) rows 40 days old (two findings each,
# ~1.5 KB), then for each binary starts a PushBridge over a fresh copy of it with
# audit_retention_days 0 (no pruning) and one with 30 (it starts pruning as it starts), and sends
# the same 16-connection OneSignal load (wrk, BENCH_SECONDS, default 5) to each in turn. With a
# baseline binary (an older build, e.g. from another worktree) both are measured in this one run,
# the baseline first. Prints request p50/p99 with and without pruning, the ratio, the target
# (p99 while pruning ≤ 1.2× p99 without, issue 30) and whether it is met, and how many rows went during the
# run. BENCH_PRUNE_KEEP=FILE keeps a copy of the seeded audit there. BENCH_TARGETS=FILE appends
# this build's p99 row as "30.8|measure|value|target|met" (issue 30's Targets table) for
# bench/run.sh's summary. Starts its own upstream nginx on 127.0.0.1; stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
pushbridge=$1 baseline=${2:-}
seconds=${BENCH_SECONDS:-5}
prune_rows=${BENCH_PRUNE_ROWS:-200000}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/pushbridge-prune.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${BENCH_PRUNE_KEEP:-}" ]; then cp "$work/seed.sqlite" "$BENCH_PRUNE_KEEP"; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

base=$((20000 + RANDOM % 5000))  # below the ephemeral ports (32768+); run.sh 10000+, instances.sh 26000+
up_port=$base seed_port=$((base + 1)) pb_port=$((base + 2))
mkdir -p "$work/up"
. bench/nginx-conf.sh
upstream_conf "$work/up" "$up_port"
"$NGINX" -p "$work/up" -c "$work/up/nginx.conf" 2>"$work/up/stderr" & pids+=($!)

write_config() { # OUT LISTEN_PORT AUDIT_PATH RETENTION_DAYS
  python3 - "$1" "$2" "$up_port" "$3" "$4" <<'PY'
import json, sys
out, pb, up, audit, days = sys.argv[1:]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{pb}"
c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = audit
c["audit_retention_days"] = int(days)
json.dump(c, open(out, "w"), indent=1)
PY
}
# wait_port PORT [LOG]: up to 60 s (a PushBridge over the 400 MB seeded audit opens slowly on a
# busy disk); with LOG, the PushBridge just started must stay alive, and on failure the log's
# last lines say why.
wait_port() {
  for _ in $(seq 600); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    [ -n "${2:-}" ] && ! kill -0 "$started_pid" 2>/dev/null && break
    sleep 0.1
  done
  echo "port $1 did not open" >&2; [ -n "${2:-}" ] && tail -5 "$2" >&2; exit 1
}
start_pb() { # BINARY CONFIG LOG → pid in started_pid
  PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$1" serve --config "$2" 2>"$3" & started_pid=$!; pids+=("$started_pid")
}
stop_pb() { kill -TERM "$1"; wait "$1" 2>/dev/null || true; }

# The seed: the schema from a PushBridge (this tree's), then the old rows.
write_config "$work/seed.json" "$seed_port" "$work/seed.sqlite" 0
start_pb "$pushbridge" "$work/seed.json" "$work/seed.log"; wait_port "$seed_port" "$work/seed.log"; stop_pb "$started_pid"
wait_port "$up_port"
old_ms=$(( $(date +%s) * 1000 - 40 * 86400000 ))
sqlite3 "$work/seed.sqlite" >/dev/null <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $prune_rows)
INSERT INTO requests (request_id, received_at, finished_at, path, dialect, route, source_app, target_app, event, key_fingerprint,
                      inbound_body, translated, finding_count, upstream_status, upstream_body, response_status, response_body, outcome)
SELECT printf('old%08d', i), $old_ms + i, $old_ms + i + 5, '/apps/bench-app/activities/activity/DeliveryAttributes', 'onesignal', 'start',
       'bench-onesignal', 'app_3f9c2b', 'start', 'sha256:0123456789ab', hex(randomblob(400)), hex(randomblob(300)), 2, 201,
       '{"id":"n1"}', 200, '{"id":"n1"}', 'forwarded' FROM n;
INSERT INTO findings (request_id, ordinal, dialect, route, source_app, received_at, field, kind, severity, message)
SELECT request_id, o.k, 'onesignal', 'start', 'bench-onesignal', received_at, 'field' || o.k, 'dropped', 'warning', 'dropped in the bench'
FROM requests, (SELECT 0 AS k UNION ALL SELECT 1) AS o;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL

os_body=fixtures/onesignal-start-reference/body.json
os_path=/apps/bench-app/activities/activity/DeliveryAttributes
os_auth="Key bench-onesignal-key"
declare -A R
run_wrk() { # NAME PORT → NAME_p50_us NAME_p99_us NAME_rps in R
  local line
  line=$(BENCH_BODY=$os_body BENCH_AUTH=$os_auth wrk -t2 -c16 -d"${seconds}s" -s bench/http/post.lua "http://127.0.0.1:$2$os_path" | grep '^RESULT')
  for kv in ${line#RESULT }; do R[${1}_${kv%%=*}]=${kv#*=}; done
  if [ "${R[${1}_non2xx]}" != 0 ] || [ "${R[${1}_socket_errors]}" != 0 ]; then
    echo "warning: $1 had ${R[${1}_non2xx]} non-2xx answers and ${R[${1}_socket_errors]} socket errors" >&2
  fi
}
measure() { # TAG BINARY RETENTION_DAYS → R[TAG_*], R[TAG_pruned]
  # The copy is synced first: otherwise its 400 MB are written back during the load, and every
  # fdatasync of the audit waits behind them.
  cp "$work/seed.sqlite" "$work/$1.sqlite"; sync "$work/$1.sqlite"
  write_config "$work/$1.json" "$pb_port" "$work/$1.sqlite" "$3"
  start_pb "$2" "$work/$1.json" "$work/$1.log"; wait_port "$pb_port" "$work/$1.log"
  run_wrk "$1" "$pb_port"
  R[${1}_pruned]=$(curl -s "http://127.0.0.1:$pb_port/metrics" | awk '/^pushbridge_audit_pruned_rows_total / {print $2}')
  stop_pb "$started_pid"
  rm -f "$work/$1.sqlite"*
}

echo "retention: $prune_rows rows past the window, 16 connections, ${seconds}s each; load $(cut -d' ' -f1-3 /proc/loadavg)"
builds=(new); [ -n "$baseline" ] && builds=(old new)
for b in "${builds[@]}"; do
  binary=$pushbridge; [ "$b" = old ] && binary=$baseline
  measure "${b}_off" "$binary" 0
  measure "${b}_on" "$binary" 30
done

ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
fmt='%-40s %12s %12s %8s  %-22s %s\n'
printf "$fmt" "measure" "no pruning" "pruning" "ratio" "target" "met"
for b in "${builds[@]}"; do
  label="this build"; [ "$b" = old ] && label="baseline"
  for p in p50 p99; do
    a=${R[${b}_off_${p}_us]}; c=${R[${b}_on_${p}_us]}
    target=""; met=""
    if [ $p = p99 ]; then
      target="pruning ≤ 1.2× without"
      met="$(awk -v a="$a" -v c="$c" 'BEGIN { print (c <= 1.2 * a ? "yes" : "NO") }')  (${R[${b}_on_pruned]:-0} of $prune_rows rows pruned during the run)"
    fi
    printf "$fmt" "request $p while pruning, 16 conns (ms)" "$(ms "$a")" "$(ms "$c")" "$(ratio "$c" "$a")" "$target" "$met${b:+ [$label]}"
  done
  printf "$fmt" "requests/s while pruning, 16 conns" "${R[${b}_off_rps]}" "${R[${b}_on_rps]}" "$(ratio "${R[${b}_on_rps]}" "${R[${b}_off_rps]}")" "" "[$label]"
done
# For bench/run.sh's summary of issues 30 and 31's targets: this build's p99 row.
if [ -n "${BENCH_TARGETS:-}" ]; then
  a=${R[new_off_p99_us]} c=${R[new_on_p99_us]}
  printf '30.8|%s|%s|%s|%s\n' "request p99 while pruning / without, 16 conns" "$(ratio "$c" "$a")× ($(ms "$c") / $(ms "$a") ms)" "≤ 1.2×" \
    "$(awk -v a="$a" -v c="$c" 'BEGIN { print (c <= 1.2 * a ? "yes" : "NO") }')  (${R[new_on_pruned]:-0} of $prune_rows rows pruned during the run)" >>"$BENCH_TARGETS"
fi
