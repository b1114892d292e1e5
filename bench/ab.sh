#!/usr/bin/env bash
# A/B of two pushbridge binaries in one run: bench/ab.sh BIN_A BIN_B [ROUNDS] [SECONDS].
# One nginx upstream; both binaries serve config/bench.json side by side (audit files on disk);
# each round runs OneSignal start and Pushwoosh start at 16 connections and OneSignal at 1
# connection against A and B (alternating which goes first), printing wrk's RESULT line plus cpu_us, the proxy's
# utime+stime per request. On shared machines compare A and B within a round, over rounds.
# AB_CELLS="os16 lat1" runs only those cells (of os16 pw16 lat1 os64).
# AB_AUDIT_DIR=/dev/shm puts both audit files on tmpfs (no fsync cost: CPU and hand-offs only).
set -uo pipefail
A=$1; B=$2; rounds=${3:-3}; secs=${4:-3}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/pushbridge-ab.XXXXXX); pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf $work; [ "$audit_dir" != "$work" ] && rm -rf "$audit_dir"' EXIT
base=$((40000 + RANDOM % 10000)); up=$base; pa=$((base+1)); pb=$((base+2))
mkdir -p $work/up
audit_dir=${AB_AUDIT_DIR:-$work}; [ "$audit_dir" != "$work" ] && audit_dir=$(mktemp -d "$audit_dir/pushbridge-ab.XXXXXX")
. bench/nginx-conf.sh
upstream_conf $work/up $up
"$(command -v nginx || echo /usr/sbin/nginx)" -p $work/up -c $work/up/nginx.conf 2>$work/up/stderr & pids+=($!)
for x in a b; do port=$pa; [ $x = b ] && port=$pb
python3 - $work/$x.json $port $up $audit_dir/$x.sqlite <<'PY'
import json, sys
out, pb, up, audit = sys.argv[1:]
c = json.load(open("config/bench.json")); c["listen"] = f"127.0.0.1:{pb}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"; c["audit_db"] = audit
json.dump(c, open(out, "w"))
PY
done
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $A serve --config $work/a.json 2>/dev/null & apid=$!; pids+=($apid)
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $B serve --config $work/b.json 2>/dev/null & bpid=$!; pids+=($bpid)
sleep 1.5
os_body=fixtures/onesignal-start-reference/body.json; pw_body=fixtures/pushwoosh-start-filter-reference/body.json
os_path=/apps/bench-app/activities/activity/DeliveryAttributes; pw_path=/json/1.3/startLiveActivity
one() { # pid port conns body path auth
  local t0=$(awk '{print $14+$15}' /proc/$1/stat) line
  line=$(BENCH_BODY=$4 BENCH_AUTH=$6 wrk -t$([ $3 = 1 ] && echo 1 || echo 2) -c$3 -d${secs}s -s bench/http/post.lua "http://127.0.0.1:$2$5" | grep ^RESULT)
  local t1=$(awk '{print $14+$15}' /proc/$1/stat)
  local n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
  echo "$line cpu_us=$(awk -v t=$((t1-t0)) -v n=$n -v hz=$(getconf CLK_TCK) 'BEGIN{printf "%.0f", t/hz*1e6/n}')"
}
for x in a b; do p=$pa; [ $x = b ] && p=$pb; BENCH_BODY=$os_body BENCH_AUTH="Key bench-onesignal-key" wrk -t1 -c4 -d1s -s bench/http/post.lua http://127.0.0.1:$p$os_path >/dev/null; done
for r in $(seq $rounds); do
  order="a b"; [ $((r % 2)) = 0 ] && order="b a"  # alternate who goes first
  for x in $order; do pid=$apid; p=$pa; [ $x = b ] && { pid=$bpid; p=$pb; }
    for cell in ${AB_CELLS:-os16 pw16 lat1}; do case $cell in
      os16) echo "round $r $x os16 $(one $pid $p 16 $os_body $os_path 'Key bench-onesignal-key')";;
      os64) echo "round $r $x os64 $(one $pid $p 64 $os_body $os_path 'Key bench-onesignal-key')";;
      pw16) echo "round $r $x pw16 $(one $pid $p 16 $pw_body $pw_path '')";;
      lat1) echo "round $r $x lat1 $(one $pid $p 1 $os_body $os_path 'Key bench-onesignal-key')";;
    esac; done
  done
done
for x in a b; do pid=$apid; [ $x = b ] && pid=$bpid; echo "$x VmHWM $(awk '/VmHWM/{print $2}' /proc/$pid/status) kB"; done
