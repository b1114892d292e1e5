#!/usr/bin/env bash
# Which way one connection's audit commits go, per round: one pushbridge binary served as
# bench/profile.sh serves it, ROUNDS rounds of SECONDS at one connection (PRELOAD=N runs 3 s at N
# connections before each round, to see whether the loop finds its way back), and per thread of
# the proxy its share of the time running and waiting for a CPU, its slices per request and its
# mean wait per slice (/proc/PID/task/*/schedstat), with the context switches per request:
#   bench/lat1-waits.sh BIN [ROUNDS] [SECONDS]
# A loop committing its own lone operations shows 6.5-7.5 switches a request and an idle writer;
# with the commits on the writer thread, ~11 and the writer's slices (docs/benchmarks.md,
# "The loop's commits at one connection").
set -uo pipefail
BIN=$(readlink -f "$1"); rounds=${2:-5}; secs=${3:-5}; mode=cpu; conns=1
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
  *) "$BIN" serve --config $work/c.json 2>$work/stderr & pids+=($!); sleep 1.5;;
esac
pid=${pids[-1]}
body=fixtures/onesignal-start-reference/body.json; path=/apps/bench-app/activities/activity/DeliveryAttributes
load() { BENCH_BODY=$body BENCH_AUTH="Key bench-onesignal-key" wrk -t$([ $2 = 1 ] && echo 1 || echo 2) -c$2 -d${1}s -s bench/http/post.lua "http://127.0.0.1:$port$path" | grep ^RESULT; }
load 2 4 >/dev/null  # warm: connections, caches, the audit's first pages
ctxsw() { cat /proc/$pid/task/*/status 2>/dev/null | awk '/ctxt_switches/{n+=$2} END{print n+0}'; }
snap() { for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(cat $t/schedstat)"; done | sort; }
for r in $(seq 1 $rounds); do
  [ -n "${PRELOAD:-}" ] && load 3 $PRELOAD >/dev/null
  snap > $work/s0; c0=$(ctxsw); line=$(load $secs 1); c1=$(ctxsw); snap > $work/s1
  n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
  echo "round $r: $(echo $line | grep -o 'p50_us=[0-9]*') ctxsw/req=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c/n}')"
  join <(awk '{print $1"_"NR, $2, $3, $4}' $work/s0) <(awk '{print $1"_"NR, $2, $3, $4}' $work/s1) | awk -v s=$secs -v n=$n '{run=($5-$2)/1e9; wait=($6-$3)/1e9; sw=($7-$4); if (sw/n>0.05) printf "   %-22s run %5.1f%% wait %5.2f%% slices/req %.2f wait/slice %.1f us\n", $1, run/s*100, wait/s*100, sw/n, (sw>0?wait/sw*1e6:0)}'
done
