#!/usr/bin/env bash
# Thread hand-offs of the five requests docs/architecture.md walks through:
#   bench/handoffs.sh BIN [SECONDS] [AUDIT_DIR]
# One nginx stands in for OpenPush and for the legacy OneSignal provider (201 to everything).
# BIN serves a configuration with the bench's two apps plus a OneSignal app shadowed with the
# legacy provider as primary; each request is sent alone on one connection (wrk -c1) for
# SECONDS (default 3), and the line per request gives the proxy's context switches per request
# (voluntary + involuntary, summed over its threads: the hand-offs and wake-ups it costs),
# its CPU per request and p50. AUDIT_DIR=/dev/shm takes the fsync cost out.
# HANDOFFS_PER_THREAD=1 also prints, per request, each thread's switches per request
# (voluntary+involuntary, by /proc/PID/task/*/comm): where the switches come from.
set -uo pipefail
BIN=$1; secs=${2:-3}; audit_dir=${3:-}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/pushbridge-handoffs.XXXXXX); pids=()
[ -n "$audit_dir" ] && audit_dir=$(mktemp -d "$audit_dir/pushbridge-handoffs.XXXXXX") || audit_dir=$work
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf $work; [ "$audit_dir" != "$work" ] && rm -rf "$audit_dir"' EXIT
base=$((10000 + RANDOM % 20000)); up=$base; port=$((base + 1))
mkdir -p $work/up
. bench/nginx-conf.sh
upstream_conf $work/up $up
"$(command -v nginx || echo /usr/sbin/nginx)" -p $work/up -c $work/up/nginx.conf 2>$work/up/stderr & pids+=($!)
python3 - "$work" "$port" "$up" "$audit_dir" <<'PY'
import json, sys, datetime
work, port, up, audit = sys.argv[1:]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{port}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = f"{audit}/audit.sqlite"
c["legacy"] = {"onesignal": f"http://127.0.0.1:{up}"}
shadow = dict(c["apps"][0]); shadow.update(name="bench-shadow", source_app_id="bench-shadow-app", mode="shadow",
                                           shadow={"primary": "legacy", "segment": "seg_bench"})
c["apps"].append(shadow)
json.dump(c, open(f"{work}/config.json", "w"))
start = json.load(open("fixtures/pushwoosh-start-filter-reference/body.json"))
note = start["request"]["notifications"][0]
three = json.loads(json.dumps(start)); three["request"]["notifications"] = [dict(note, live_activity_id=f"LA_{i}") for i in range(3)]
json.dump(three, open(f"{work}/pw3.json", "w"))
later = (datetime.datetime.utcnow() + datetime.timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
scheduled = json.loads(json.dumps(start)); scheduled["request"]["notifications"] = [dict(note, send_date=later)]
json.dump(scheduled, open(f"{work}/pw-scheduled.json", "w"))
json.dump({}, open(f"{work}/empty.json", "w"))
PY
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $BIN serve --config $work/config.json 2>$work/serve.log & pid=$!; pids+=($pid)
for _ in $(seq 100); do curl -sf http://127.0.0.1:$port/healthz >/dev/null && break; sleep 0.1; done
os_body=fixtures/onesignal-start-reference/body.json; os_auth="Key bench-onesignal-key"
ctxsw() { cat /proc/$1/task/*/status 2>/dev/null | awk '/ctxt_switches/{n+=$2} END{print n+0}'; }
threads() { # one line per thread: tid name voluntary involuntary
  for t in /proc/$1/task/*; do
    awk -v tid=${t##*/} -v name="$(tr ' ' _ <$t/comm 2>/dev/null)" '/^voluntary_ctxt/{v=$2} /^nonvoluntary_ctxt/{n=$2} END{print tid, name, v+0, n+0}' $t/status 2>/dev/null
  done
}
one() { # name body path auth
  [ "${HANDOFFS_PER_THREAD:-}" = 1 ] && threads $pid >$work/threads0
  local t0=$(awk '{print $14+$15}' /proc/$pid/stat) c0=$(ctxsw $pid) line
  line=$(BENCH_BODY=$2 BENCH_AUTH=$4 wrk -t1 -c1 -d${secs}s -s bench/http/post.lua "http://127.0.0.1:$port$3" | grep ^RESULT)
  local t1=$(awk '{print $14+$15}' /proc/$pid/stat) c1=$(ctxsw $pid)
  local n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
  printf '%-28s %s cpu_us=%s ctxsw=%s\n' "$1" "$line" \
    "$(awk -v t=$((t1-t0)) -v n=$n -v hz=$(getconf CLK_TCK) 'BEGIN{printf "%.0f", t/hz*1e6/n}')" \
    "$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c/n}')"
  [ "${HANDOFFS_PER_THREAD:-}" = 1 ] && threads $pid | awk -v n=$n 'NR==FNR{v[$1]=$3; i[$1]=$4; next}
    {dv=$3-v[$1]; di=$4-i[$1]; if (dv+di > 0) printf "    %-8s %-16s voluntary %6.2f  involuntary %5.2f  per request\n", $1, $2, dv/n, di/n}' $work/threads0 -
}
BENCH_BODY=$os_body BENCH_AUTH="$os_auth" wrk -t1 -c1 -d1s -s bench/http/post.lua http://127.0.0.1:$port/apps/bench-app/activities/activity/DeliveryAttributes >/dev/null
one "onesignal start" $os_body /apps/bench-app/activities/activity/DeliveryAttributes "$os_auth"
one "pushwoosh start of three" $work/pw3.json /json/1.3/startLiveActivity ""
one "shadow, legacy primary" $os_body /apps/bench-shadow-app/activities/activity/DeliveryAttributes "$os_auth"
one "scheduled pushwoosh start" $work/pw-scheduled.json /json/1.3/startLiveActivity ""
one "unknown route" $work/empty.json /nope ""
echo "threads: $(ls /proc/$pid/task | wc -l) ($(cat /proc/$pid/task/*/comm | sort | uniq -c | awk '{printf "%s%s×%s", sep, $2, $1; sep=", "}'))"
