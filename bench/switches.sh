#!/usr/bin/env bash
# Where a request's context switches go: bench/switches.sh [BIN] [REQUESTS] [CONNS].
# Starts the nginx upstream and one `pushbridge serve` (config/bench.json, durable SQLite audit on
# disk unless SWITCHES_AUDIT_DIR says where), warms it up, then sends REQUESTS (default 2000)
# OneSignal starts over CONNS (default 1) keep-alive connections, one at a time on each (a Python
# http.client loop: a count, not a duration), and prints each thread's voluntary and involuntary
# context switches per request (from /proc/PID/task/*/status, before and after), then the sum.
# With SWITCHES_STRACE=1 it runs the requests again under `strace -f -c` and prints the calls per
# request of futex, write (the eventfd), epoll_wait, fdatasync, sendto/recvfrom.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bin=${1:-.build/release/pushbridge}; n=${2:-2000}; conns=${3:-1}
work=$(mktemp -d /tmp/pushbridge-switches.XXXXXX); pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf $work' EXIT
base=$((10000 + RANDOM % 20000)); up=$base; port=$((base + 1))
mkdir -p $work/up
. bench/nginx-conf.sh
upstream_conf $work/up $up
"$(command -v nginx || echo /usr/sbin/nginx)" -p $work/up -c $work/up/nginx.conf 2>$work/up/stderr & pids+=($!)
python3 - $work/pb.json $port $up "${SWITCHES_AUDIT_DIR:-$work}/audit-$base.sqlite" <<'PY'
import json, sys
out, pb, up, audit = sys.argv[1:]
c = json.load(open("config/bench.json")); c["listen"] = f"127.0.0.1:{pb}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"; c["audit_db"] = audit
json.dump(c, open(out, "w"))
PY
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $bin serve --config $work/pb.json 2>$work/pb.log & pid=$!; pids+=($pid)
for p in $up $port; do for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && break; sleep 0.1; done; done
load() { # REQUESTS CONNS: each connection sends its share one after another
  python3 - $port $1 $2 <<'PY'
import http.client, sys, threading
port, n, conns = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
body = open("fixtures/onesignal-start-reference/body.json", "rb").read()
def run(count):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for _ in range(count):
        c.request("POST", "/apps/bench-app/activities/activity/DeliveryAttributes", body,
                  {"Authorization": "Key bench-onesignal-key", "Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status >= 300: sys.exit(f"status {r.status}")
threads = [threading.Thread(target=run, args=(n // conns,)) for _ in range(conns)]
for t in threads: t.start()
for t in threads: t.join()
PY
}
snapshot() { for t in /proc/$pid/task/*; do
  printf '%s %s %s %s\n' "${t##*/}" "$(tr ' ' _ <$t/comm)" "$(awk '/^voluntary_ctxt/{print $2}' $t/status)" "$(awk '/^nonvoluntary_ctxt/{print $2}' $t/status)"
done; }
load 200 $conns
snapshot >$work/before
load $n $conns
snapshot >$work/after
echo "requests=$n connections=$conns (per request: voluntary, involuntary)"
awk -v n=$n 'NR==FNR { v[$1] = $3; i[$1] = $4; next }
  { dv = $3 - v[$1]; di = $4 - i[$1]; tv += dv; ti += di
    if (dv + di > 0) printf "%-16s %6.2f %6.2f\n", $2, dv / n, di / n }
  END { printf "%-16s %6.2f %6.2f  total %.2f\n", "ALL", tv / n, ti / n, (tv + ti) / n }' $work/before $work/after | sort -k2 -nr
if [ -n "${SWITCHES_STRACE:-}" ]; then
  strace -f -c -o $work/strace -p $pid & st=$!; sleep 1
  load $n $conns; sleep 0.5; kill -INT $st; wait $st 2>/dev/null
  awk -v n=$n '$NF ~ /^(futex|write|read|epoll_wait|epoll_pwait|fdatasync|fsync|sendto|recvfrom|writev|pwrite64|poll)$/ { printf "%-12s %6.2f per request\n", $NF, $4 / n }' $work/strace
fi
