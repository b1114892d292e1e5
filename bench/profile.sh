#!/usr/bin/env bash
# Profile one pushbridge binary on the OneSignal start under wrk, the way bench/ab.sh serves it:
#   bench/profile.sh BIN perf      [SECONDS] [CONNS]   perf record -e cpu-clock -g of the serving process
#   bench/profile.sh BIN callgrind [SECONDS] [CONNS]   valgrind --tool=callgrind, collection only during wrk
#   bench/profile.sh BIN cpu       [SECONDS] [CONNS]   CPU (utime+stime) and context switches per request only
#   bench/profile.sh BIN syscalls  [SECONDS] [CONNS]   system calls per request, all and by name (perf stat on the
#     syscalls:sys_enter_* tracepoints of PROFILE_SYSCALLS, default the loop's and the upstream's: epoll_ctl,
#     epoll_wait, read, write, sendto, recvfrom, timerfd_settime, futex, clock_gettime is in the vDSO)
#   bench/profile.sh BIN waits     [SECONDS] [CONNS]   PROFILE_ROUNDS rounds (default 5), each printing per thread
#     its share of the time running and waiting for a CPU, its slices per request and its mean wait per
#     slice (/proc/PID/task/*/schedstat), and the switches per request; PROFILE_PRELOAD=N runs 3 s at N
#     connections before each round. At one connection, a loop committing its own lone operations shows
#     6.5-7.5 switches a request and an idle writer; with the commits on the writer thread ~11
#     (docs/benchmarks.md, "The loop's commits at one connection").
# One nginx upstream (bench/nginx-conf.sh), config/bench.json pointed at it, the audit in a temp
# file on disk (PROFILE_AUDIT_DIR=/dev/shm for tmpfs). Outputs go to PROFILE_OUT (default
# /tmp/pushbridge-profile): perf.data + perf-report.txt (--no-children --sort dso,symbol) and
# perf-dso.txt, or callgrind.out + callgrind-annotate.txt; the last line is wrk's RESULT with
# cpu_us per request (and Ir per request under callgrind).
# PROFILE_PERF_CALLGRAPH=dwarf records DWARF call graphs instead of frame pointers.
set -uo pipefail
BIN=$(readlink -f "$1"); mode=${2:-perf}; secs=${3:-5}; conns=${4:-64}
cd "$(dirname "$0")/.."
out=${PROFILE_OUT:-/tmp/pushbridge-profile}; mkdir -p "$out"
work=$(mktemp -d /tmp/pushbridge-prof.XXXXXX); pids=()
audit_dir=${PROFILE_AUDIT_DIR:-$work}; [ "$audit_dir" != "$work" ] && audit_dir=$(mktemp -d "$audit_dir/pushbridge-prof.XXXXXX")
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf $work; [ "$audit_dir" != "$work" ] && rm -rf "$audit_dir"' EXIT
base=$((30000 + RANDOM % 10000)); up=$base; port=$((base+1))
mkdir -p $work/up
. bench/nginx-conf.sh
upstream_conf $work/up $up
"$(command -v nginx || echo /usr/sbin/nginx)" -p $work/up -c $work/up/nginx.conf 2>$work/up/stderr & pids+=($!)
python3 - $work/c.json $port $up $audit_dir/a.sqlite <<'PY'
import json, sys
out, pb, up, audit = sys.argv[1:]
c = json.load(open("config/bench.json")); c["listen"] = f"127.0.0.1:{pb}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"; c["audit_db"] = audit
json.dump(c, open(out, "w"))
PY
export PUSHBRIDGE_BENCH_OPENPUSH_KEY=k
case $mode in
  callgrind) valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=$out/callgrind.out \
               "$BIN" serve --config $work/c.json 2>$out/valgrind.err & pids+=($!); sleep 12;;
  *) "$BIN" serve --config $work/c.json 2>$out/serve.err & pids+=($!); sleep 1.5;;
esac
pid=${pids[-1]}
body=fixtures/onesignal-start-reference/body.json; path=/apps/bench-app/activities/activity/DeliveryAttributes
load() { BENCH_BODY=$body BENCH_AUTH="Key bench-onesignal-key" wrk -t$([ $2 = 1 ] && echo 1 || echo 2) -c$2 -d${1}s -s bench/http/post.lua "http://127.0.0.1:$port$path" | grep ^RESULT; }
load 2 4 >/dev/null  # warm: connections, caches, the audit's first pages
ctxsw() { cat /proc/$pid/task/*/status 2>/dev/null | awk '/ctxt_switches/{n+=$2} END{print n+0}'; }
if [ $mode = waits ]; then
  snap() { for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(cat $t/schedstat)"; done | sort; }
  for r in $(seq 1 ${PROFILE_ROUNDS:-5}); do
    [ -n "${PROFILE_PRELOAD:-}" ] && load 3 $PROFILE_PRELOAD >/dev/null
    snap > $work/s0; c0=$(ctxsw); line=$(load $secs $conns); c1=$(ctxsw); snap > $work/s1
    n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
    echo "round $r: $(echo $line | grep -o 'p50_us=[0-9]*') ctxsw/req=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c/n}')"
    join <(awk '{print $1"_"NR, $2, $3, $4}' $work/s0) <(awk '{print $1"_"NR, $2, $3, $4}' $work/s1) | awk -v s=$secs -v n=$n '{run=($5-$2)/1e9; wait=($6-$3)/1e9; sw=($7-$4); if (sw/n>0.05) printf "   %-22s run %5.1f%% wait %5.2f%% slices/req %.2f wait/slice %.1f us\n", $1, run/s*100, wait/s*100, sw/n, (sw>0?wait/sw*1e6:0)}'
  done
  exit 0
fi
t0=$(awk '{print $14+$15}' /proc/$pid/stat); c0=$(ctxsw)
case $mode in
  perf) perf record -e cpu-clock -F ${PROFILE_PERF_HZ:-4000} --call-graph ${PROFILE_PERF_CALLGRAPH:-fp} -p $pid -o $out/perf.data 2>$out/perf-record.err & rec=$!
        sleep 0.5; line=$(load $secs $conns); kill -INT $rec; wait $rec;;
  callgrind) callgrind_control -i on $pid >/dev/null; line=$(load $secs $conns); callgrind_control -i off $pid >/dev/null;;
  syscalls) events="raw_syscalls:sys_enter"
        for s in ${PROFILE_SYSCALLS:-epoll_ctl epoll_wait read write sendto recvfrom timerfd_settime futex}; do events="$events,syscalls:sys_enter_$s"; done
        perf stat -x, -e "$events" -p $pid -o $out/perf-stat.txt & rec=$!
        sleep 0.5; line=$(load $secs $conns); kill -INT $rec; wait $rec;;
  *) line=$(load $secs $conns);;
esac
t1=$(awk '{print $14+$15}' /proc/$pid/stat); c1=$(ctxsw)
n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
extra=""
case $mode in
  perf) perf report -i $out/perf.data --no-children --sort dso,symbol --stdio 2>/dev/null > $out/perf-report.txt
        perf report -i $out/perf.data --no-children --sort dso --stdio 2>/dev/null > $out/perf-dso.txt;;
  callgrind) callgrind_control -d $pid >/dev/null; sleep 1
        f=$(ls -t $out/callgrind.out* | head -1)
        callgrind_annotate --inclusive=no "$f" > $out/callgrind-annotate.txt 2>/dev/null
        callgrind_annotate --inclusive=yes "$f" > $out/callgrind-inclusive.txt 2>/dev/null
        ir=$(awk '/PROGRAM TOTALS/{gsub(",","",$1); print $1; exit}' $out/callgrind-annotate.txt)
        extra=" ir_per_request=$(awk -v i=${ir:-0} -v n=$n 'BEGIN{printf "%.0f", i/n}')";;
  syscalls)
        extra=" syscalls/req: $(awk -F, -v n=$n '$1 ~ /^[0-9]+$/ {e=$3; sub(/.*sys_enter_?/, "", e); printf "%s=%.2f ", (e==""?"all":e), $1/n}' $out/perf-stat.txt)";;
esac
echo "$line cpu_us=$(awk -v t=$((t1-t0)) -v n=$n -v hz=$(getconf CLK_TCK) 'BEGIN{printf "%.0f", t/hz*1e6/n}') ctxsw=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c/n}')$extra" | tee $out/result.txt
