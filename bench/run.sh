#!/usr/bin/env bash
# `make bench`: PushBridge side by side with a direct call and with nginx proxy_pass, in one run,
# on 127.0.0.1 only. Installs wrk and nginx when missing, builds release, starts:
#   upstream  nginx answering 201 {"notification_id":"msg_x"} (the fast "OpenPush")
#   proxy     nginx proxy_pass to the upstream (keep-alive pool)
#   pushbridge config/bench.json pointed at the upstream, audit in a temp file (durable before ack)
# then measures latency (1 connection), throughput (16 and 64 connections, OneSignal start and
# Pushwoosh start bodies), PushBridge's peak RSS with 1,000 idle keep-alive connections held
# open during the load, the translation benchmark and the audit writer, prints one table and
# stops everything it started. Knobs: BENCH_SECONDS (per wrk run, default 5),
# BENCH_AUDIT_ROWS (default 20000), BENCH_SERVE_SECONDS (start only, for profiling),
# BENCH_PUSHBRIDGE (a pushbridge binary to measure instead of this tree's, e.g. a saved
# baseline; the translate and audit benchmarks still come from this tree), BENCH_PRUNE_ROWS
# (rows past the retention window for the retention rows, default 200000), BENCH_PRUNE_BASELINE
# (an older pushbridge binary measured beside this one in the retention rows).
# A third PushBridge serves HTTPS (a test CA made here with openssl) for the TLS latency row; at
# the end bench/prune.sh runs two more over an audit seeded with BENCH_PRUNE_ROWS old rows,
# without and with retention pruning them while wrk sends requests, and bench/instances.sh one
# instance on PostgreSQL against one on SQLite and two against one (with the 4-core model).
# alloc-count counts allocations per request, bench/report-rows.sh times report and readiness over
# BENCH_REPORT_ROWS rows (default 1,000,000) and bench/profile-rows.sh prints the profile split
# when perf can count. The last table lists every row of the Targets tables of issues 30 ("The
# audit as a log") and 31 ("A lean request path") with its value in this run and whether it is met.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-5}
audit_rows=${BENCH_AUDIT_ROWS:-20000}


need=""
command -v wrk >/dev/null || need="$need wrk"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need="$need nginx"
if [ -n "$need" ]; then
  echo "installing:$need"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
swift build -c release 2>&1 | grep -E "error|warning: unre|Compiling|Build complete" | tail -3
bin=.build/release

ulimit -n 8192 2>/dev/null || true
work=$(mktemp -d /tmp/pushbridge-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work" "$shm_dir"
}
trap cleanup EXIT INT TERM

# Each target row of issues 30 and 31, as "ISSUE.ROW|measure|value|target|met" (ROW: its place in
# the issue's Targets table), appended here by this script, bench/prune.sh, bench/instances.sh
# and bench/report-rows.sh and printed together at the end as one markdown table.
export BENCH_TARGETS=$work/targets
: >"$BENCH_TARGETS"
target() { printf '%s|%s|%s|%s|%s\n' "$@" >>"$BENCH_TARGETS"; }

# Ports: random, below the ephemeral range (32768+ here), where a wrk or idle connection's local
# port or one of the thousands of TIME-WAIT sockets a run leaves can make a listener's bind fail;
# run.sh takes 10000+, bench/prune.sh 20000+ and bench/instances.sh 26000+, so they never meet.
base=$((10000 + RANDOM % 9000))
up_port=$base; nginx_port=$((base + 1)); pb_port=$((base + 2)); shm_port=$((base + 3)); tls_port=$((base + 4))

# The diagnostic twin: same binary and config, audit on tmpfs where fsync costs nothing, so the
# table separates the durable audit's fsyncs from everything else. It is not a mode to deploy.
shm_dir=$(mktemp -d /dev/shm/pushbridge-bench.XXXXXX)

mkdir -p "$work/up" "$work/proxy"
. bench/nginx-conf.sh
upstream_conf "$work/up" "$up_port"
nginx_conf "$work/proxy" 2 "  upstream openpush { server 127.0.0.1:$up_port; keepalive 128; }
  server {
    listen 127.0.0.1:$nginx_port;
    location / { proxy_pass http://openpush; proxy_http_version 1.1; proxy_set_header Connection \"\"; }
  }"
"$NGINX" -p "$work/up" -c "$work/up/nginx.conf" 2>"$work/up/stderr" & pids+=($!)
"$NGINX" -p "$work/proxy" -c "$work/proxy/nginx.conf" 2>"$work/proxy/stderr" & pids+=($!)

write_config() { # OUT LISTEN_PORT AUDIT_PATH [EXTRA_JSON merged at the top level]
  python3 - "$1" "$2" "$up_port" "$3" "${4:-{\}}" <<'PY'
import json, sys
out, pb, up, audit, extra = sys.argv[1:]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{pb}"
c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = audit
c.update(json.loads(extra))
json.dump(c, open(out, "w"), indent=1)
PY
}
# The HTTPS twin: a CA and a certificate for 127.0.0.1 made here (wrk does not verify; curl does).
mkdir -p "$work/tls"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls/ca.key" -out "$work/tls/ca.pem" -days 1 -subj "/CN=bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$work/tls/key.pem" -out "$work/tls/req.csr" -subj "/CN=127.0.0.1" 2>/dev/null
echo "subjectAltName=IP:127.0.0.1" >"$work/tls/ext.cnf"
openssl x509 -req -in "$work/tls/req.csr" -CA "$work/tls/ca.pem" -CAkey "$work/tls/ca.key" -set_serial 1 -days 1 \
  -extfile "$work/tls/ext.cnf" -out "$work/tls/chain.pem" 2>/dev/null
write_config "$work/bench.json" "$pb_port" "$work/audit.sqlite"
write_config "$work/bench-shm.json" "$shm_port" "$shm_dir/audit.sqlite"
# Its audit is on tmpfs like the diagnostic twin's, so that the TLS row compares the two without
# the disk's fsyncs (which dominate a durable request's latency on a slow disk).
write_config "$work/bench-tls.json" "$tls_port" "$shm_dir/audit-tls.sqlite" \
  "{\"tls\": {\"certificate_chain\": \"$work/tls/chain.pem\", \"private_key\": \"$work/tls/key.pem\"}}"
pushbridge=${BENCH_PUSHBRIDGE:-$bin/pushbridge}
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/bench.json" 2>"$work/pushbridge.log" & pb_pid=$!; pids+=("$pb_pid")
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/bench-shm.json" 2>"$work/pushbridge-shm.log" & pids+=($!)
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/bench-tls.json" 2>"$work/pushbridge-tls.log" & pids+=($!)

wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open" >&2; exit 1; }
wait_port "$up_port"; wait_port "$nginx_port"; wait_port "$pb_port"; wait_port "$shm_port"; wait_port "$tls_port"

os_body=fixtures/onesignal-start-reference/body.json
pw_body=fixtures/pushwoosh-start-filter-reference/body.json
os_path=/apps/bench-app/activities/activity/DeliveryAttributes
pw_path=/json/1.3/startLiveActivity
os_auth="Key bench-onesignal-key"

# BENCH_SERVE_SECONDS=N: only start everything, print the ports, keep serving N seconds (profiling).
if [ -n "${BENCH_SERVE_SECONDS:-}" ]; then
  echo "upstream $up_port nginx $nginx_port pushbridge $pb_port (pid $pb_pid) audit $work/audit.sqlite"
  sleep "$BENCH_SERVE_SECONDS"; exit 0
fi

# Check the PushBridge path succeeds before timing it.
for check in "$os_path|$os_body|$os_auth" "$pw_path|$pw_body|"; do
  IFS='|' read -r path body auth <<<"$check"
  answer=$(curl -s -o "$work/check" -w '%{http_code}' -H "Content-Type: application/json" ${auth:+-H "Authorization: $auth"} \
    --data-binary @"$body" "http://127.0.0.1:$pb_port$path")
  if [ "${answer:0:1}" != 2 ]; then echo "PushBridge answered $answer for $path: $(cat "$work/check")" >&2; tail -5 "$work/pushbridge.log" >&2; exit 1; fi
done
answer=$(curl -s -o "$work/check" -w '%{http_code}' --cacert "$work/tls/ca.pem" -H "Content-Type: application/json" -H "Authorization: $os_auth" \
  --data-binary @"$os_body" "https://127.0.0.1:$tls_port$os_path")
if [ "${answer:0:1}" != 2 ]; then echo "PushBridge over HTTPS answered $answer: $(cat "$work/check")" >&2; tail -5 "$work/pushbridge-tls.log" >&2; exit 1; fi

# run_wrk NAME CONNECTIONS URL BODY AUTH → stores RESULT fields as NAME_p50 NAME_p99 NAME_rps
declare -A R
run_wrk() {
  local name=$1 conns=$2 url=$3 body=$4 auth=$5 threads=2 line
  [ "$conns" -eq 1 ] && threads=1
  line=$(BENCH_BODY=$body BENCH_AUTH=$auth wrk -t"$threads" -c"$conns" -d"${seconds}s" -s bench/http/post.lua "$url" | grep '^RESULT')
  for kv in ${line#RESULT }; do R[${name}_${kv%%=*}]=${kv#*=}; done
  if [ "${R[${name}_non2xx]}" != 0 ] || [ "${R[${name}_socket_errors]}" != 0 ]; then
    echo "warning: $name had ${R[${name}_non2xx]} non-2xx answers and ${R[${name}_socket_errors]} socket errors" >&2
  fi
}
# The durable PushBridge's CPU (utime+stime, clock ticks) and context switches (voluntary and
# involuntary, summed over /proc/PID/task/*/status, as bench/ab.sh counts them).
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$pb_pid/stat; }
ctxsw() { cat /proc/$pb_pid/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }
targets() { # kind body path auth → direct, pushbridge, nginx for one body; pb_TAG_cpu_us, pb_TAG_ctxsw
  local conns=$1 body=$2 path=$3 auth=$4 tag=$5 t0 c0
  run_wrk "direct_$tag" "$conns" "http://127.0.0.1:$up_port/notifications" "$body" ""
  t0=$(cpu_ticks) c0=$(ctxsw)
  run_wrk "pb_$tag" "$conns" "http://127.0.0.1:$pb_port$path" "$body" "$auth"
  R[pb_${tag}_cpu_us]=$(awk -v t=$(( $(cpu_ticks) - t0 )) -v hz="$(getconf CLK_TCK)" -v n="${R[pb_${tag}_requests]}" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
  R[pb_${tag}_ctxsw]=$(awk -v c=$(( $(ctxsw) - c0 )) -v n="${R[pb_${tag}_requests]}" 'BEGIN { printf "%.1f", c / n }')
  run_wrk "nginx_$tag" "$conns" "http://127.0.0.1:$nginx_port/notifications" "$body" ""
}

echo "warming up"; BENCH_BODY=$os_body BENCH_AUTH=$os_auth wrk -t1 -c4 -d1s -s bench/http/post.lua "http://127.0.0.1:$pb_port$os_path" >/dev/null
echo "latency: 1 connection, ${seconds}s each"
targets 1 "$os_body" "$os_path" "$os_auth" lat
run_wrk "shm_lat" 1 "http://127.0.0.1:$shm_port$os_path" "$os_body" "$os_auth"
run_wrk "tls_lat" 1 "https://127.0.0.1:$tls_port$os_path" "$os_body" "$os_auth"

echo "holding 1000 idle keep-alive connections to PushBridge"
# The RSS row's breakdown: before the idle connections, with them idle, and the peak under load.
rss_before_idle_kb=$(awk '/VmRSS/ {print $2}' /proc/$pb_pid/status)
python3 bench/http/hold_idle.py "$pb_port" 1000 600 >"$work/hold.out" & hold_pid=$!; pids+=("$hold_pid")
for _ in $(seq 100); do grep -q held "$work/hold.out" && break; sleep 0.1; done
rss_idle_kb=$(awk '/VmRSS/ {print $2}' /proc/$pb_pid/status)
echo "throughput: 16 and 64 connections, ${seconds}s each"
for c in 16 64; do
  targets "$c" "$os_body" "$os_path" "$os_auth" "os$c"
  targets "$c" "$pw_body" "$pw_path" "" "pw$c"
done
run_wrk "shm_os64" 64 "http://127.0.0.1:$shm_port$os_path" "$os_body" "$os_auth"
rss_peak_kb=$(awk '/VmHWM/ {print $2}' /proc/$pb_pid/status)
rss_now_kb=$(awk '/VmRSS/ {print $2}' /proc/$pb_pid/status)
kill -TERM "$hold_pid"; wait "$hold_pid" 2>/dev/null || true
held=$(awk '/held/ {print $2}' "$work/hold.out"); still=$(awk '/still open/ {print $3}' "$work/hold.out")

echo "translation and audit benchmarks"
translate_out=$("$bin/translate-bench" fixtures)
audit_out=$("$bin/audit-bench" "$audit_rows" 64)
# One caller: every transaction is alone, so this is the cost of one durable commit.
single_rate=$("$bin/audit-bench" 300 1 | awk '/^record:/ {for (i=1;i<=NF;i++) if ($i=="rows/s") print $(i-1)}')
audit_rows_rate=$(echo "$audit_out" | awk '/^begin\+finish:/ {for (i=1;i<=NF;i++) if ($i=="rows/s") print $(i-1)}')
audit_record_rate=$(echo "$audit_out" | awk '/^record:/ {for (i=1;i<=NF;i++) if ($i=="rows/s") print $(i-1)}')
# The same writes into PostgreSQL (a throwaway cluster, fsync and synchronous_commit on), and the
# latency one audit write adds at one caller on each engine, in this run.
field() { awk -v k="$1" '{for (i=1;i<=NF;i++) if ($i==k) print $(i+1)}'; }
sqlite_latency=$(AUDIT_LATENCY=${BENCH_AUDIT_LATENCY:-500} "$bin/audit-bench")
pg_rows_rate=""; pg_latency=""
if ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  pg_dir=$(mktemp -d /tmp/pushbridge-bench-pg.XXXXXX); pg_port=$((base + 8))
  if bench/pg-cluster.sh start "$pg_dir" "$pg_port"; then
    pg_uri="postgresql://postgres@127.0.0.1:$pg_port/postgres"
    pg_out=$(AUDIT_DB=$pg_uri "$bin/audit-bench" "${BENCH_PG_ROWS:-5000}" 64)
    pg_rows_rate=$(echo "$pg_out" | awk '/^begin\+finish:/ {for (i=1;i<=NF;i++) if ($i=="rows/s") print $(i-1)}')
    pg_latency=$(AUDIT_DB=$pg_uri AUDIT_LATENCY=${BENCH_AUDIT_LATENCY:-500} "$bin/audit-bench")
  fi
  bench/pg-cluster.sh stop "$pg_dir"
fi

# Allocations per request (issue 31, item 5): alloc-count, linked with the counting allocator
# (Sources/CAllocationCounter), runs pushbridge serve's runtime in its own process (HTTP on
# 127.0.0.1, durable SQLite audit, an OpenPush stand-in on loopback) and counts every
# allocation PushBridge's threads make per request, after a warm-up, the fewest of its rounds.
echo "allocations per request (alloc-count)"
alloc_out=$("$bin/alloc-count" 2>&1) || echo "alloc-count failed: $alloc_out" >&2
# result CASE KEY: field KEY of alloc-count's `RESULT case=CASE …` line
result() { echo "$alloc_out" | awk -v c="case=$1" -v k="$2=" '$1 == "RESULT" && $2 == c { for (i = 3; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }'; }
# The audit writer's cost per request, begin+finish at 64 callers (one row per request).
read -r audit_cpu_us audit_kib < <(echo "$audit_out" | awk '/^begin\+finish:/ { on = 1 }
  on && /process CPU:/ { for (i = 1; i <= NF; i++) { if ($i == "µs") c = $(i - 1); if ($i == "KiB") k = $(i - 1) } print c, k; exit }') || true
translate_os=$(echo "$translate_out" | awk '$1 == "onesignal" && $2 == "start" { print $3 }')

ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
delta() { awk -v u="$1" 'BEGIN { printf "%+.3f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "yes" : "NO") }'; }
# le VALUE LIMIT, ge VALUE LIMIT: yes when VALUE is at most (at least) LIMIT; NO when it is missing.
le() { awk -v v="${1:--}" -v l="$2" 'BEGIN { print ((v != "-" && v + 0 <= l + 0) ? "yes" : "NO") }'; }
ge() { awk -v v="${1:--}" -v l="$2" 'BEGIN { print ((v != "-" && v + 0 >= l + 0) ? "yes" : "NO") }'; }
# Issue 31's floor for the durable p50: its two durable commits (intent and completion), each as
# long as one commit alone in audit-bench (1 caller) in this run, plus 0.2 ms.
commit_ms=$(awk -v r="${single_rate:-0}" 'BEGIN { if (r > 0) printf "%.3f", 1000 / r; else print "-" }')
durable_limit_us=$(awk -v c="$commit_ms" 'BEGIN { if (c != "-") printf "%.0f", (2 * c + 0.2) * 1000; else print 0 }')

printf '\nPushBridge benchmark — %s, %s cores, wrk %ss per cell; ratios are the figures\n' "$(date -u +%FT%TZ)" "$(nproc)" "$seconds"
fmt='%-34s %12s %12s %12s %10s %10s  %-22s %s\n'
printf "$fmt" "measure" "direct" "PushBridge" "nginx" "PB/direct" "PB/nginx" "target" "met"
for p in p50 p99; do
  d=${R[direct_lat_${p}_us]}; b=${R[pb_lat_${p}_us]}; n=${R[nginx_lat_${p}_us]}
  limit=1000 label="PB-direct ≤ +1.000"  # p99: issue 23's
  [ $p = p50 ] && limit=$durable_limit_us label="≤ 2×commit+0.2 = +$(ms "$durable_limit_us")"  # p50: issue 31's
  printf "$fmt" "latency $p, 1 conn (ms)" "$(ms "$d")" "$(ms "$b")" "$(ms "$n")" "$(ratio "$b" "$d")" "$(ratio "$b" "$n")" \
    "$label" "$(verdict $(( b - d <= limit )))  ($(delta $(( b - d ))))"
done
sw=${R[pb_lat_ctxsw]}
printf "$fmt" "context switches/request, 1 conn" "" "$sw" "" "" "" "≤ 6" "$(le "$sw" 6)  (every thread of the proxy, over the latency run)"
cpu=${R[pb_os64_cpu_us]}
printf "$fmt" "CPU per request, 64 conns (µs)" "" "$cpu" "" "" "" "≤ 150" "$(le "$cpu" 150)  (utime+stime, durable SQLite audit, OneSignal start)"
for tag in os16 os64 pw16 pw64; do
  label="OneSignal start"; [ "${tag:0:2}" = pw ] && label="Pushwoosh start"
  d=${R[direct_${tag}_rps]}; b=${R[pb_${tag}_rps]}; n=${R[nginx_${tag}_rps]}
  printf "$fmt" "$label, ${tag:2} conns (req/s)" "$d" "$b" "$n" "$(ratio "$b" "$d")" "$(ratio "$b" "$n")" "PB/nginx ≥ 0.25" "$(ge "$(ratio "$b" "$n")" 0.25)"
done
rss_met=$(verdict $(( rss_peak_kb <= 48 * 1024 )))
printf "$fmt" "peak RSS, 1000 idle conns (MB)" "" "$(( rss_peak_kb / 1024 ))" "" "" "" "≤ 48 MB" \
  "$rss_met  (issue 23's; held $held, still open $still; $(( rss_before_idle_kb / 1024 )) MB before them, $(( rss_idle_kb / 1024 )) MB with them idle, $(( rss_now_kb / 1024 )) MB now)"
echo "$translate_out" | awk 'NR > 2 && NF >= 3 { name=$1" "$2; os = ($1=="onesignal" && $2=="start"); printf "%-34s %12s %12s %12s %10s %10s  %-22s %s\n", "translate "name" (/s)", "", $3, "", "", "", os ? "≥ 200000" : "", os ? (($3 >= 200000) ? "yes" : "NO") : "" }'
printf "$fmt" "allocations/request, OneSignal" "" "$(result onesignal-start allocations)" "" "" "" "≤ 80" "$(le "$(result onesignal-start allocations)" 80)  (alloc-count: every PushBridge thread, where below)"
printf "$fmt" "allocations/request, Pushwoosh ×3" "" "$(result pushwoosh-start-of-three allocations)" "" "" "" "" "a Pushwoosh start of three notifications"
# Every audit write is durable before its caller resumes: the pipelined syncer fdatasyncs the
# WAL after the commit (as durable as synchronous=FULL; AUDIT_PIPELINED=0 measures FULL itself).
printf "$fmt" "audit begin+finish, durable (req/s)" "" "$audit_rows_rate" "" "" "" "≥ 30000" "$(ge "$audit_rows_rate" 30000)  (64 callers; durable before ack: fdatasync of the WAL)"
printf "$fmt" "audit CPU per request (µs)" "" "$audit_cpu_us" "" "" "" "≤ 40" "$(le "$audit_cpu_us" 40)  (begin+finish; the process's user+system ÷ requests)"
printf "$fmt" "audit KiB written per request" "" "$audit_kib" "" "" "" "≤ 6" "$(le "$audit_kib" 6)  (WAL and checkpoints: the process's write(2) bytes ÷ requests)"
printf "$fmt" "audit record, durable (rows/s)" "" "$audit_record_rate" "" "" "" "" "durable before ack: fdatasync of the WAL"
printf "$fmt" "audit one commit alone (ms)" "" "$commit_ms" "" "" "" "" "2 per request, fdatasync each"
pg_value="-" pg_met="NO  (not measured: PostgreSQL is not installed, make deps-test)"
if [ -n "$pg_rows_rate" ]; then
  # PostgreSQL at 0.8× SQLite's begin+finish requests/s, both measured in this run.
  pg_value="$(ratio "$pg_rows_rate" "$audit_rows_rate")× ($pg_rows_rate / $audit_rows_rate)"
  pg_met="$(ge "$(ratio "$pg_rows_rate" "$audit_rows_rate")" 0.8)  (audit-bench, 64 callers, both durable)"
  printf "$fmt" "audit PostgreSQL begin+finish (req/s)" "" "$pg_rows_rate" "" "" "" "≥ 0.8× SQLite" "${pg_met%% *}  (PG/SQLite $(ratio "$pg_rows_rate" "$audit_rows_rate"); group commit, synchronous_commit on)"
  for p in p50 p99; do
    s=$(echo "$sqlite_latency" | field "$p"); g=$(echo "$pg_latency" | field "$p")
    printf "$fmt" "audit write latency $p, 1 caller (ms)" "" "$g" "" "" "" "" "PostgreSQL; SQLite $s, PG/SQLite $(ratio "$g" "$s")"
  done
else
  printf "$fmt" "audit PostgreSQL" "" "-" "" "" "" "" "skipped: PostgreSQL is not installed (make deps-test)"
fi
echo
echo "the same PushBridge with its audit on tmpfs (fsync free), and its CPU cost"
d=${R[direct_lat_p50_us]}; b=${R[shm_lat_p50_us]}
shm_met=$(verdict $(( b - d <= 300 )))
printf "$fmt" "latency p50, audit on tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "PB-direct ≤ +0.300" "$shm_met  ($(delta $(( b - d ))))"
d=${R[direct_lat_p99_us]}; b=${R[shm_lat_p99_us]}
printf "$fmt" "latency p99, audit on tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "PB-direct ≤ +1.000" "$(verdict $(( b - d <= 1000 )))  ($(delta $(( b - d ))))"
d=${R[direct_lat_p50_us]}; b=${R[tls_lat_p50_us]}; plain=${R[shm_lat_p50_us]}
printf "$fmt" "latency p50 over HTTPS, tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "HTTPS-plain, keep-alive" \
  "$(delta $(( b - plain )))  (plain on tmpfs $(ms "$plain"), HTTPS/plain $(ratio "$b" "$plain"))"
b=${R[shm_os64_rps]}; n=${R[nginx_os64_rps]}
printf "$fmt" "OneSignal 64 conns, tmpfs (req/s)" "${R[direct_os64_rps]}" "$b" "$n" "$(ratio "$b" "${R[direct_os64_rps]}")" "$(ratio "$b" "$n")" "PB/nginx ≥ 0.25" "$(ge "$(ratio "$b" "$n")" 0.25)"
printf "$fmt" "CPU per request, 1 conn (µs)" "" "${R[pb_lat_cpu_us]}" "" "" "" "" "durable audit; 16 conns ${R[pb_os16_cpu_us]} µs"
echo
echo "where a request's allocations are (alloc-count, release build)"
echo "$alloc_out" | grep -v '^RESULT' || true

# The rows of issues 30 and 31's Targets tables that this script measures (bench/prune.sh,
# bench/instances.sh and bench/report-rows.sh add theirs).
target 30.1 "audit, durable SQLite: CPU per request (µs)" "${audit_cpu_us:--}" "≤ 40" "$(le "$audit_cpu_us" 40)  (audit-bench $audit_rows 64, begin+finish: the process's user+system ÷ requests)"
target 30.2 "audit, durable SQLite: KiB written per request" "${audit_kib:--}" "≤ 6" "$(le "$audit_kib" 6)  (WAL and checkpoints: the process's write(2) bytes ÷ requests)"
target 30.3 "audit, durable SQLite: requests/s at 64 callers" "${audit_rows_rate:--}" "≥ 30,000" "$(ge "$audit_rows_rate" 30000)  (begin+finish, each durable before its caller resumes)"
target 30.4 "audit, PostgreSQL / SQLite (requests/s)" "$pg_value" "≥ 0.8×" "$pg_met"
target 31.1 "CPU per request, 64 conns, durable SQLite (µs)" "$cpu" "≤ 150" "$(le "$cpu" 150)  (utime+stime over the OneSignal 64-connection run)"
os_ratio=$(ratio "${R[pb_os64_rps]}" "${R[nginx_os64_rps]}")
target 31.2 "OneSignal start, 64 conns, PushBridge / nginx proxy_pass" "$os_ratio× (${R[pb_os64_rps]} / ${R[nginx_os64_rps]} req/s)" "≥ 0.25×" "$(ge "$os_ratio" 0.25)  (durable SQLite audit)"
d=${R[direct_lat_p50_us]} b=${R[shm_lat_p50_us]}
target 31.3 "latency p50 over direct, 1 conn, audit on tmpfs (ms)" "$(delta $(( b - d )))" "≤ +0.300" "$shm_met  (PushBridge $(ms "$b"), direct $(ms "$d"))"
b=${R[pb_lat_p50_us]}
target 31.4 "latency p50 over direct, 1 conn, durable (ms)" "$(delta $(( b - d )))" "≤ 2 × audit one commit alone + 0.2 = +$(ms "$durable_limit_us")" \
  "$(verdict $(( b - d <= durable_limit_us )))  (PushBridge $(ms "$b"), direct $(ms "$d"); one commit alone $commit_ms ms)"
target 31.5 "context switches per request, 1 conn" "$sw" "≤ 6" "$(le "$sw" 6)  (every thread of the proxy, voluntary + involuntary)"
alloc_os=$(result onesignal-start allocations)
target 31.6 "allocations per request, OneSignal start" "${alloc_os:--}" "≤ 80" "$(le "$alloc_os" 80)  (alloc-count: every PushBridge thread, warm, HTTP to the durable audit; Pushwoosh start of three $(result pushwoosh-start-of-three allocations))"
target 31.7 "translate onesignal start (/s)" "${translate_os:--}" "≥ 200,000" "$(ge "$translate_os" 200000)  (translate-bench, one core)"

# Retention under load (bench/prune.sh): request p50/p99 with and without retention pruning
# BENCH_PRUNE_ROWS old rows, with its target; BENCH_PRUNE_BASELINE=BINARY measures an older build
# beside this one in the same run.
echo
bench/prune.sh "$pushbridge" ${BENCH_PRUNE_BASELINE:-} || echo "bench/prune.sh failed; its target row is missing below" >&2

# One instance on PostgreSQL against one on SQLite, and two against one on PostgreSQL (its own
# throwaway cluster, fsync on), with the 4-core model of where the second instance's time goes.
echo
bench/instances.sh "$pushbridge" "$up_port" || echo "bench/instances.sh failed; its target rows are missing below" >&2

# report and readiness over BENCH_REPORT_ROWS (default 1,000,000) rows; BENCH_REPORT_BASELINE=BINARY
# (an older report-bench) times today's beside this one.
echo
bench/report-rows.sh "$bin/report-bench" ${BENCH_REPORT_BASELINE:-} || echo "bench/report-rows.sh failed; its target rows are missing below" >&2

# The profile split's parts per request (bench/profile.sh under perf, bench/profile-split.py),
# when perf can count here.
echo
bench/profile-rows.sh "$pushbridge" "$cpu" || echo "bench/profile-rows.sh failed; the profile split is missing" >&2

# Every row of issues 30 and 31's Targets tables in one place, as the rows above measured them.
expected="30.1 30.2 30.3 30.4 30.5 30.6 30.7 30.8 30.9 30.10 31.1 31.2 31.3 31.4 31.5 31.6 31.7"
echo
echo "issues 30 and 31's targets, this run ($(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| issue | measure | this run | target | met |"
echo "|---|---|---|---|---|"
sort -t'|' -k1,1V "$BENCH_TARGETS" | awk -F'|' -v expected="$expected" '{ split($1, k, "."); printf "| %s | %s | %s | %s | %s |\n", k[1], $2, $3, $4, $5; seen[$1] = 1 }
  END { n = split(expected, e, " "); for (i = 1; i <= n; i++) if (!(e[i] in seen)) { split(e[i], k, "."); printf "| %s | row %s of its Targets table | - | | NO  (not measured: its script failed, see above) |\n", k[1], k[2] } }'
