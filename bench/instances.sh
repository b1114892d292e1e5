#!/usr/bin/env bash
# Called by bench/run.sh at its end (and runnable alone): the scale-out rows of issue 30 (first
# written for issue 23).
#   bench/instances.sh PUSHBRIDGE_BINARY [UPSTREAM_PORT]
# Without UPSTREAM_PORT it starts its own upstream nginx (the fast "OpenPush") on 127.0.0.1.
# Starts a throwaway PostgreSQL cluster (bench/pg-cluster.sh: fsync and synchronous_commit on,
# like the audit-bench cluster, so that both audits are durable: SQLite fdatasyncs its WAL before
# it acknowledges, PostgreSQL flushes its WAL at every commit), then, OneSignal start bodies, wrk
# with one thread, BENCH_SECONDS (default 5) each:
#   S   one instance with its audit in a SQLite file on disk, 16 connections;
#   1   one instance with its audit (and shared pacer, instance registry) on PostgreSQL, 16
#       connections: the same configuration as S but `audit_db`;
#   2   two instances on that database, 8 connections to each, at once.
# Every configuration is config/bench.json with a 10 ms delivery window (the shared pacer takes
# its row lock per send; a short window keeps the row short at these rates).
#
# CPU accounting, over each wrk run: utime+stime of each PushBridge instance, of PostgreSQL (the
# postmaster, every backend and background process alive at either end, plus the postmaster's
# cutime+cstime for backends that exited), of the upstream nginx (master and worker) and of wrk
# (the cutime+cstime of the shell that waited for it). c_X is X's CPU seconds per request.
# The model of issue 23's "two instances on one PostgreSQL ≥ 1.6× one on 4 or more cores":
# each instance, PostgreSQL and the load (wrk + upstream) get one core each, and the busiest
# bounds the throughput (instances serve equal shares):
#   X1 = min(1/c_a1, 1/c_pg1, 1/c_load1)                    c_* from run 1
#   X2 = min(2/max(c_a2, c_b2), 1/c_pg2, 1/c_load2)         c_* from run 2
#   predicted ratio on 4 cores = X2 / X1
# A variant for the sensitivity of the figure: the load elsewhere (as wrk and OpenPush are in a
# deployment) and PostgreSQL on 2 cores: X1' = min(1/c_a1, 2/c_pg1), X2' = min(2/max(c_a2, c_b2), 2/c_pg2).
# It is a CPU bound: it holds where the 2-core runs were CPU-bound (our processes' CPU ≈ cores ×
# wall time; the machine's busy time from /proc/stat tells other users' load from our waits),
# and the 2-core check is that there X ≈ cores / (sum of every c_X of the run), which the table
# prints beside the measured figure. The target is met when the model gives ≥ 1.6× and both
# runs were CPU-bound (otherwise the model is not checked by this run).
# BENCH_TARGETS=FILE appends each target row as "30.ROW|measure|value|target|met" (ROW: its place
# in issue 30's Targets table) for run.sh's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
pushbridge=$1 up_port=${2:-}
seconds=${BENCH_SECONDS:-5}
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }
work=$(mktemp -d /tmp/pushbridge-bench-instances.XXXXXX) pg_dir=$(mktemp -d /tmp/pushbridge-bench-pg.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  bench/pg-cluster.sh stop "$pg_dir"
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

base=$((26000 + RANDOM % 5000))  # below the ephemeral ports (32768+); run.sh 10000+, prune.sh 20000+
pg_port=$base s_port=$((base + 1)) a_port=$((base + 2)) b_port=$((base + 3))
wait_port() { for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open in 30 s" >&2; exit 1; }
if [ -z "$up_port" ]; then
  up_port=$((base + 4)); mkdir -p "$work/up"
  . bench/nginx-conf.sh
  upstream_conf "$work/up" "$up_port"
  "$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/up" -c "$work/up/nginx.conf" 2>"$work/up/stderr" & pids+=($!)
  wait_port "$up_port"
fi
# The upstream's processes: whoever listens on its port (nginx's master and worker).
mapfile -t up_pids < <(ss -Htlnp "sport = :$up_port" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)

PG_MAX_CONNECTIONS=200 bench/pg-cluster.sh start "$pg_dir" "$pg_port"
runuser -u postgres -- psql -q -h 127.0.0.1 -p "$pg_port" -c "CREATE DATABASE bench" postgres
uri="postgresql://postgres@127.0.0.1:$pg_port/bench"
postmaster=$(head -1 "$pg_dir/data/postmaster.pid")

write_config() { # OUT LISTEN_PORT NAME AUDIT_DB
  python3 - "$1" "$2" "$up_port" "$4" "$3" <<'PY'
import json, sys
out, pb, up, audit, name = sys.argv[1:]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{pb}"
c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = audit
c["instance_name"] = name
c["delivery"].update({"window_ms": 10, "margin_ms": 0})
json.dump(c, open(out, "w"), indent=1)
PY
}
start_pb() { # CONFIG LOG PORT → pid in started_pid
  PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$1" 2>"$2" & started_pid=$!; pids+=("$started_pid")
  wait_port "$3"
}
write_config "$work/s.json" "$s_port" a "$work/audit.sqlite"
write_config "$work/a.json" "$a_port" a "$uri"
write_config "$work/b.json" "$b_port" b "$uri"
start_pb "$work/s.json" "$work/s.log" "$s_port"; s_pid=$started_pid
start_pb "$work/a.json" "$work/a.log" "$a_port"; a_pid=$started_pid
start_pb "$work/b.json" "$work/b.log" "$b_port"; b_pid=$started_pid

body=fixtures/onesignal-start-reference/body.json
path=/apps/bench-app/activities/activity/DeliveryAttributes
auth="Key bench-onesignal-key"
for port in "$s_port" "$a_port"; do
  answer=$(curl -s -o "$work/check" -w '%{http_code}' -H "Content-Type: application/json" -H "Authorization: $auth" --data-binary @"$body" "http://127.0.0.1:$port$path")
  if [ "${answer:0:1}" != 2 ]; then echo "PushBridge on port $port answered $answer: $(cat "$work/check")" >&2; tail -5 "$work"/*.log >&2; exit 1; fi
done

# wrk_run OUT PORT CONNECTIONS: wrk's RESULT line in OUT, wrk's CPU ticks in OUT.cpu (the
# cutime+cstime of the shell that ran and waited for it).
wrk_run() {
  BENCH_BODY=$body BENCH_AUTH=$auth bash -c 'set -eo pipefail; out=$1; shift
    wrk "$@" | grep "^RESULT" >"$out"; read -r -a s </proc/$$/stat; echo $((s[15] + s[16])) >"$out.cpu"' \
    wrk_run "$1" -t1 -c"$3" -d"${seconds}s" -s bench/http/post.lua "http://127.0.0.1:$2$path"
}
warm() { BENCH_BODY=$body BENCH_AUTH=$auth wrk -t1 -c4 -d1s -s bench/http/post.lua "http://127.0.0.1:$1$path" >/dev/null; }
field() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1"; }
ticks() { # PID… → utime+stime+cutime+cstime summed (clock ticks); a process gone counts 0
  local n=0 p s
  for p in "$@"; do
    read -r -a s 2>/dev/null <"/proc/$p/stat" || continue
    n=$((n + s[13] + s[14] + s[15] + s[16]))
  done
  echo "$n"
}
pg_pids() { echo "$postmaster"; pgrep -P "$postmaster" || true; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; } # ticks, all cores
# snap TAG: every counter the accounting needs, in C[TAG_*]
declare -A C
snap() {
  C[$1_s]=$(ticks "$s_pid") C[$1_a]=$(ticks "$a_pid") C[$1_b]=$(ticks "$b_pid")
  mapfile -t pg <<<"$(pg_pids)"
  C[$1_pg]=$(ticks "${pg[@]}") C[$1_up]=$(ticks "${up_pids[@]}") C[$1_busy]=$(busy) C[$1_t]=$(date +%s%N)
}
hz=$(getconf CLK_TCK) cores=$(nproc)

echo "instances: SQLite then PostgreSQL one instance at 16 connections, then two at 8 each, ${seconds}s each; load $(cut -d' ' -f1-3 /proc/loadavg)"
warm "$s_port"
snap s0; wrk_run "$work/run-s" "$s_port" 16; snap s1
kill "$s_pid"; wait "$s_pid" 2>/dev/null || true
warm "$a_port"; warm "$b_port"
snap o0; wrk_run "$work/run-1" "$a_port" 16; snap o1
snap t0
wrk_run "$work/run-2a" "$a_port" 8 & wa=$!
wrk_run "$work/run-2b" "$b_port" 8 & wb=$!
wait "$wa" "$wb"
snap t1

# Requests and CPU per request (µs) of each part, per run.
req_s=$(field "$work/run-s" requests) req_1=$(field "$work/run-1" requests)
req_2a=$(field "$work/run-2a" requests) req_2b=$(field "$work/run-2b" requests); req_2=$((req_2a + req_2b))
rps_s=$(field "$work/run-s" rps) rps_1=$(field "$work/run-1" rps); rps_2=$(( $(field "$work/run-2a" rps) + $(field "$work/run-2b" rps) ))
errors=0
for f in "$work"/run-s "$work"/run-1 "$work"/run-2a "$work"/run-2b; do errors=$((errors + $(field "$f" non2xx) + $(field "$f" socket_errors))); done
us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }
d() { echo $(( C[$2_$1] - C[$3_$1] )); } # KEY AFTER BEFORE
c_s=$(us "$(d s s1 s0)" "$req_s")             c_up_s=$(us "$(d up s1 s0)" "$req_s")
c_wrk_s=$(us "$(cat "$work/run-s.cpu")" "$req_s")
c_a1=$(us "$(d a o1 o0)" "$req_1")            c_pg1=$(us "$(d pg o1 o0)" "$req_1")
c_up1=$(us "$(d up o1 o0)" "$req_1")          c_wrk1=$(us "$(cat "$work/run-1.cpu")" "$req_1")
c_a2=$(us "$(d a t1 t0)" "$req_2a")           c_b2=$(us "$(d b t1 t0)" "$req_2b")
c_pg2=$(us "$(d pg t1 t0)" "$req_2")          c_up2=$(us "$(d up t1 t0)" "$req_2")
c_wrk2=$(us $(( $(cat "$work/run-2a.cpu") + $(cat "$work/run-2b.cpu") )) "$req_2")
# Cores used over a run: our processes' CPU, and the whole machine's busy time, over wall time.
used() { awk -v t="$1" -v hz="$hz" -v ns="$2" 'BEGIN { printf "%.2f", t / hz / (ns / 1e9) }'; }
wall_1=$(( C[o1_t] - C[o0_t] )) wall_2=$(( C[t1_t] - C[t0_t] ))
tot_1=$(( $(d a o1 o0) + $(d b o1 o0) + $(d pg o1 o0) + $(d up o1 o0) + $(cat "$work/run-1.cpu") ))
tot_2=$(( $(d a t1 t0) + $(d b t1 t0) + $(d pg t1 t0) + $(d up t1 t0) + $(cat "$work/run-2a.cpu") + $(cat "$work/run-2b.cpu") ))
ours_1=$(used "$tot_1" "$wall_1") ours_2=$(used "$tot_2" "$wall_2")
busy_1=$(used "$(d busy o1 o0)" "$wall_1") busy_2=$(used "$(d busy t1 t0)" "$wall_2")
# CPU-bound: our processes used ≥ 90 % of the cores. Otherwise the machine was busy with other
# users' work, or ours waited (flushes, locks): then the CPU model cannot be checked here.
bound() { awk -v o="$1" -v b="$2" -v c="$cores" 'BEGIN { print ((o >= 0.9 * c) ? "yes" : (b >= 0.9 * c) ? "NO: other load" : "NO: waits") }'; }
bound_1=$(bound "$ours_1" "$busy_1") bound_2=$(bound "$ours_2" "$busy_2")
# The 2-core check: cores / (every process's CPU seconds per request) = cores × requests / CPU seconds.
pred() { awk -v c="$cores" -v n="$1" -v t="$2" -v hz="$hz" 'BEGIN { printf "%.0f", (t > 0 ? c * n * hz / t : 0) }'; }
pred_1=$(pred "$req_1" "$tot_1") pred_2=$(pred "$req_2" "$tot_2")
# The 4-core model (see the header): X1, X2 and X2/X1.
read -r x1 x2 model v1 v2 variant < <(awk -v a1="$c_a1" -v pg1="$c_pg1" -v l1="$((c_up1 + c_wrk1))" \
  -v a2="$c_a2" -v b2="$c_b2" -v pg2="$c_pg2" -v l2="$((c_up2 + c_wrk2))" '
  function min3(x, y, z,   m) { m = x < y ? x : y; return m < z ? m : z }
  BEGIN { x1 = min3(1e6 / a1, 1e6 / pg1, 1e6 / l1); x2 = min3(2e6 / (a2 > b2 ? a2 : b2), 1e6 / pg2, 1e6 / l2)
    v1 = min3(1e6 / a1, 2e6 / pg1, 1e12); v2 = min3(2e6 / (a2 > b2 ? a2 : b2), 2e6 / pg2, 1e12)
    printf "%.0f %.0f %.2f %.0f %.0f %.2f\n", x1, x2, x2 / x1, v1, v2, v2 / v1 }')
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
rows=$(runuser -u postgres -- psql -tA -h 127.0.0.1 -p "$pg_port" -c "SELECT instance_name || ':' || count(*) FROM requests GROUP BY instance_name ORDER BY instance_name" bench | tr '\n' ' ')

fmt='%-40s %11s %11s %11s %8s  %-18s %s\n'
printf "$fmt" "measure" "SQLite" "PG, 1 inst" "PG, 2 inst" "ratio" "target" "met / notes"
pg_met=$(awk -v a="$rps_1" -v b="$rps_s" 'BEGIN { print ((b > 0 && a >= 0.85 * b) ? "yes" : "NO") }')
pg_note="PG/SQLite, one instance each, same config but audit_db, 16 conns, both durable"
printf "$fmt" "requests/s, 16 conns in all" "$rps_s" "$rps_1" "$rps_2" "$(ratio "$rps_1" "$rps_s")" "PG ≥ 0.85× SQLite" "$pg_met  ($pg_note)"
two_met=$(awk -v m="$model" -v b1="$bound_1" -v b2="$bound_2" 'BEGIN { print ((m >= 1.6 && b1 == "yes" && b2 == "yes") ? "yes" : "NO") }')
two_note="2 inst/1 measured on $cores cores $(ratio "$rps_2" "$rps_1"); 4-core model X2/X1 = $x2/$x1; runs CPU-bound: $bound_1 / $bound_2"
printf "$fmt" "two instances / one, 4-core model" "" "" "" "$model" "≥ 1.6×" "$two_met  ($two_note)"
printf "$fmt" "p50, 16 conns in all (ms)" "$(ms "$(field "$work/run-s" p50_us)")" "$(ms "$(field "$work/run-1" p50_us)")" \
  "$(awk -v a="$(field "$work/run-2a" p50_us)" -v b="$(field "$work/run-2b" p50_us)" 'BEGIN { printf "%.3f", (a + b) / 2000 }')" "" "" "two: the mean of the instances' p50"
printf "$fmt" "CPU/request, PushBridge (µs)" "$c_s" "$c_a1" "$c_a2 + $c_b2" "" "" "two: instance a's per request of a, b's per request of b"
pg_cpu_met=$(awk -v c="$c_pg1" 'BEGIN { print ((c > 0 && c <= 250) ? "yes" : "NO") }')
printf "$fmt" "CPU/request, PostgreSQL (µs)" "" "$c_pg1" "$c_pg2" "" "one inst ≤ 250" "$pg_cpu_met  (postmaster, backends, background processes)"
printf "$fmt" "CPU/request, upstream nginx (µs)" "$c_up_s" "$c_up1" "$c_up2" "" "" ""
printf "$fmt" "CPU/request, wrk (µs)" "$c_wrk_s" "$c_wrk1" "$c_wrk2" "" "" ""
printf "$fmt" "cores used: ours / machine busy" "" "$ours_1/$busy_1" "$ours_2/$busy_2" "" "CPU-bound ≈ $cores" "of $cores cores; machine busy includes other users' load"
printf "$fmt" "req/s: $cores-core model cores/Σc vs measured" "" "$pred_1/$rps_1" "$pred_2/$rps_2" "" "" "the model's check: equal where CPU-bound and all CPU accounted"
printf "$fmt" "req/s: 4-core model X" "" "$x1" "$x2" "$model" "" "one core each: instance(s), PostgreSQL, wrk+upstream"
printf "$fmt" "req/s: variant, PG on 2 cores" "" "$v1" "$v2" "$variant" "" "load elsewhere; one core per instance, two for PostgreSQL"
echo "non-2xx and socket errors $errors; PostgreSQL audit rows $rows"

# The shared pacer's transactions per request: each writes `pacer_holds` once per app (the
# bench has one), so its rows inserted and updated count them. Read once both instances have
# stopped, so their backends have flushed their statistics.
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()
bench_sql() { runuser -u postgres -- psql -tA -h 127.0.0.1 -p "$pg_port" -c "$1" bench; }
for _ in $(seq 100); do
  [ "$(bench_sql "SELECT count(*) FROM pg_stat_activity WHERE datname = 'bench' AND pid <> pg_backend_pid()")" = 0 ] && break
  sleep 0.1
done
pacer_tx=$(bench_sql "SELECT n_tup_ins + n_tup_upd FROM pg_stat_user_tables WHERE relname = 'pacer_holds'")
requests=$(bench_sql "SELECT count(*) FROM requests")
printf "$fmt" "pacer transactions per request" "" "$(awk -v t="$pacer_tx" -v r="$requests" 'BEGIN { printf "%.3f", t / r }')" "" "" "" \
  "runs 1 and 2: $pacer_tx pacer transactions for $requests requests"
if [ -n "${BENCH_TARGETS:-}" ]; then
  echo "30.5|PostgreSQL CPU per request, one instance (µs)|$c_pg1|≤ 250|$pg_cpu_met  (run 1, 16 conns: postmaster, backends, background processes ÷ requests; two instances $c_pg2)" >>"$BENCH_TARGETS"
  echo "30.6|one instance on PostgreSQL / on SQLite (req/s)|$(ratio "$rps_1" "$rps_s")× ($rps_1 / $rps_s)|≥ 0.85×|$pg_met  ($pg_note)" >>"$BENCH_TARGETS"
  echo "30.7|two instances / one on PostgreSQL, 4 cores|$model× (model)|≥ 1.6×|$two_met  ($two_note)" >>"$BENCH_TARGETS"
fi
