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
# The last table lists every target of issue 23 with its value in this run and whether it is met.
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

# Each target row of issue 23, as "ORDER|measure|value|target|met" (ORDER: its place in the
# issue's list), appended here by this script, bench/prune.sh and bench/instances.sh and printed
# together at the end as one markdown table.
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

ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
delta() { awk -v u="$1" 'BEGIN { printf "%+.3f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "yes" : "NO") }'; }

printf '\nPushBridge benchmark — %s, %s cores, wrk %ss per cell; ratios are the figures\n' "$(date -u +%FT%TZ)" "$(nproc)" "$seconds"
fmt='%-34s %12s %12s %12s %10s %10s  %-22s %s\n'
printf "$fmt" "measure" "direct" "PushBridge" "nginx" "PB/direct" "PB/nginx" "target" "met"
for p in p50 p99; do
  d=${R[direct_lat_${p}_us]}; b=${R[pb_lat_${p}_us]}; n=${R[nginx_lat_${p}_us]}
  limit=500; [ $p = p99 ] && limit=1000  # p50: issue 23's target
  printf "$fmt" "latency $p, 1 conn (ms)" "$(ms "$d")" "$(ms "$b")" "$(ms "$n")" "$(ratio "$b" "$d")" "$(ratio "$b" "$n")" \
    "PB-direct ≤ +$(ms $limit)" "$(verdict $(( b - d <= limit )))  ($(delta $(( b - d ))))"
  if [ $p = p50 ]; then
    target 6 "latency p50 over direct, 1 conn (ms)" "$(delta $(( b - d )))" "≤ +0.500" "$(verdict $(( b - d <= limit )))  (PushBridge $(ms "$b"), direct $(ms "$d"); durable SQLite audit)"
  fi
done
sw=${R[pb_lat_ctxsw]}
sw_met=$(verdict "$(awk -v s="$sw" 'BEGIN { print (s <= 4) }')")
printf "$fmt" "context switches/request, 1 conn" "" "$sw" "" "" "" "≤ 4" "$sw_met  (every thread of the proxy, over the latency run)"
target 5 "context switches per request, 1 conn" "$sw" "≤ 4" "$sw_met  (every thread of the proxy, voluntary + involuntary)"
cpu=${R[pb_os64_cpu_us]}
cpu_met=$(verdict $(( cpu <= 125 )))
printf "$fmt" "CPU per request, 64 conns (µs)" "" "$cpu" "" "" "" "≤ 125" "$cpu_met  (utime+stime, durable SQLite audit, OneSignal start)"
target 4 "CPU per request, 64 conns, durable SQLite (µs)" "$cpu" "≤ 125" "$cpu_met  (utime+stime over the OneSignal 64-connection run)"
for tag in os16 os64 pw16 pw64; do
  label="OneSignal start"; [ "${tag:0:2}" = pw ] && label="Pushwoosh start"
  d=${R[direct_${tag}_rps]}; b=${R[pb_${tag}_rps]}; n=${R[nginx_${tag}_rps]}
  printf "$fmt" "$label, ${tag:2} conns (req/s)" "$d" "$b" "$n" "$(ratio "$b" "$d")" "$(ratio "$b" "$n")" "PB/nginx ≥ 0.50" \
    "$(verdict "$(awk -v b="$b" -v n="$n" 'BEGIN { print (b >= 0.5 * n) }')")"
done
rss_met=$(verdict $(( rss_peak_kb <= 48 * 1024 )))
printf "$fmt" "peak RSS, 1000 idle conns (MB)" "" "$(( rss_peak_kb / 1024 ))" "" "" "" "≤ 48 MB" \
  "$rss_met  (held $held, still open $still; $(( rss_before_idle_kb / 1024 )) MB before them, $(( rss_idle_kb / 1024 )) MB with them idle, $(( rss_now_kb / 1024 )) MB now)"
target 8 "peak RSS, 1,000 idle connections (MB)" "$(( rss_peak_kb / 1024 ))" "≤ 48" "$rss_met  (VmHWM over every throughput run with them held; $held held, $still still open)"
echo "$translate_out" | awk 'NR > 2 && NF >= 3 { name=$1" "$2; printf "%-34s %12s %12s %12s %10s %10s  %-22s %s\n", "translate "name" (/s)", "", $3, "", "", "", ($1=="onesignal" && $2=="start") ? "≥ 50000" : "", ($1=="onesignal" && $2=="start") ? (($3 >= 50000) ? "yes" : "NO") : "" }'
# Every audit write is durable before its caller resumes: the pipelined syncer fdatasyncs the
# WAL after the commit (as durable as synchronous=FULL; AUDIT_PIPELINED=0 measures FULL itself).
printf "$fmt" "audit begin+finish, durable (rows/s)" "" "$audit_rows_rate" "" "" "" "≥ 50000" "$(verdict $(( ${audit_rows_rate:-0} >= 50000 )))  (durable before ack: fdatasync of the WAL)"
printf "$fmt" "audit record, durable (rows/s)" "" "$audit_record_rate" "" "" "" "" "durable before ack: fdatasync of the WAL"
printf "$fmt" "audit one commit alone (ms)" "" "$(awk -v r="$single_rate" 'BEGIN { printf "%.3f", 1000 / r }')" "" "" "" "" "2 per request, fdatasync each"
if [ -n "$pg_rows_rate" ]; then
  # Issue 23's target: PostgreSQL at 0.8× SQLite's begin+finish rows/s, both measured in this run.
  pg_met=$(awk -v a="$pg_rows_rate" -v b="${audit_rows_rate:-0}" 'BEGIN { print (b > 0 && a >= 0.8 * b) ? 1 : 0 }')
  printf "$fmt" "audit PostgreSQL begin+finish (rows/s)" "" "$pg_rows_rate" "" "" "" "≥ 0.8× SQLite" "$(verdict "$pg_met")  (PG/SQLite $(ratio "$pg_rows_rate" "$audit_rows_rate"); group commit, synchronous_commit on)"
  target 1 "audit begin+finish, PostgreSQL / SQLite (rows/s)" "$(ratio "$pg_rows_rate" "$audit_rows_rate")× ($pg_rows_rate / $audit_rows_rate)" "≥ 0.8×" "$(verdict "$pg_met")  (audit-bench, 64 callers, both durable)"
  for p in p50 p99; do
    s=$(echo "$sqlite_latency" | field "$p"); g=$(echo "$pg_latency" | field "$p")
    printf "$fmt" "audit write latency $p, 1 caller (ms)" "" "$g" "" "" "" "" "PostgreSQL; SQLite $s, PG/SQLite $(ratio "$g" "$s")"
  done
else
  printf "$fmt" "audit PostgreSQL" "" "-" "" "" "" "" "skipped: PostgreSQL is not installed (make deps-test)"
  target 1 "audit begin+finish, PostgreSQL / SQLite (rows/s)" "-" "≥ 0.8×" "NO  (not measured: PostgreSQL is not installed, make deps-test)"
fi
echo
echo "diagnostics (not targets): the same PushBridge with its audit on tmpfs (fsync free) and its CPU cost"
d=${R[direct_lat_p50_us]}; b=${R[shm_lat_p50_us]}
printf "$fmt" "latency p50, audit on tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "PB-direct ≤ +0.500" "$(verdict $(( b - d <= 500 )))  ($(delta $(( b - d ))))"
d=${R[direct_lat_p99_us]}; b=${R[shm_lat_p99_us]}
printf "$fmt" "latency p99, audit on tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "PB-direct ≤ +1.000" "$(verdict $(( b - d <= 1000 )))  ($(delta $(( b - d ))))"
d=${R[direct_lat_p50_us]}; b=${R[tls_lat_p50_us]}; plain=${R[shm_lat_p50_us]}
printf "$fmt" "latency p50 over HTTPS, tmpfs (ms)" "$(ms "$d")" "$(ms "$b")" "" "$(ratio "$b" "$d")" "" "HTTPS-plain, keep-alive" \
  "$(delta $(( b - plain )))  (plain on tmpfs $(ms "$plain"), HTTPS/plain $(ratio "$b" "$plain"))"
b=${R[shm_os64_rps]}; n=${R[nginx_os64_rps]}
printf "$fmt" "OneSignal 64 conns, tmpfs (req/s)" "${R[direct_os64_rps]}" "$b" "$n" "$(ratio "$b" "${R[direct_os64_rps]}")" "$(ratio "$b" "$n")" "PB/nginx ≥ 0.50" "$(verdict "$(awk -v b="$b" -v n="$n" 'BEGIN { print (b >= 0.5 * n) }')")"
printf "$fmt" "CPU per request, 1 conn (µs)" "" "${R[pb_lat_cpu_us]}" "" "" "" "" "durable audit; 16 conns ${R[pb_os16_cpu_us]} µs"

# Retention under load (bench/prune.sh): request p50/p99 with and without retention pruning
# BENCH_PRUNE_ROWS old rows, with its target; BENCH_PRUNE_BASELINE=BINARY measures an older build
# beside this one in the same run.
echo
bench/prune.sh "$pushbridge" ${BENCH_PRUNE_BASELINE:-} || echo "bench/prune.sh failed; its target row is missing below" >&2

# One instance on PostgreSQL against one on SQLite, and two against one on PostgreSQL (its own
# throwaway cluster, fsync on), with the 4-core model of where the second instance's time goes.
echo
bench/instances.sh "$pushbridge" "$up_port" || echo "bench/instances.sh failed; its target rows are missing below" >&2

# Every target of issue 23 in one place, as the rows above measured them.
echo
echo "issue 23's targets, this run ($(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| measure | this run | target | met |"
echo "|---|---|---|---|"
sort -t'|' -k1,1n "$BENCH_TARGETS" | awk -F'|' '{ printf "| %s | %s | %s | %s |\n", $2, $3, $4, $5; seen[$1] = 1 }
  END { for (i = 1; i <= 8; i++) if (!(i in seen)) printf "| target %d of issue 23 | - | | NO  (not measured: its script failed, see above) |\n", i }'
