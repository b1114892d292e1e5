#!/usr/bin/env bash
# A/B of two pushbridge binaries in one run: bench/ab.sh BIN_A BIN_B [ROUNDS] [SECONDS].
# One nginx upstream; both binaries serve config/bench.json side by side (audit files on disk);
# each round runs OneSignal start and Pushwoosh start at 16 connections and OneSignal at 1
# connection against A and B (alternating which goes first), printing wrk's RESULT line plus cpu_us, the proxy's
# utime+stime per request. On shared machines compare A and B within a round, over rounds.
# AB_CELLS="os16 lat1" runs only those cells (of os16 pw16 lat1 os64).
# AB_AUDIT_DIR=/dev/shm puts both audit files on tmpfs (no fsync cost: CPU and hand-offs only).
# AB_AUDIT=postgres gives A and B each their own database in one throwaway PostgreSQL cluster
# (bench/pg-cluster.sh: fsync and synchronous_commit on, so the audit stays durable) instead of
# SQLite files; each round line then also has pgcpu_us, PostgreSQL's CPU per request (postmaster,
# backends and background processes, utime+stime) and pgwal_b, the WAL bytes written per request;
# their medians are printed too.
# ctxsw is the proxy's context switches per request (voluntary + involuntary, summed over its
# threads): the thread hand-offs a request costs. The last lines give each cell's median over
# the rounds for A and B and the ratio B/A.
set -uo pipefail
A=$1; B=$2; rounds=${3:-3}; secs=${4:-3}
command -v wrk >/dev/null || { echo "bench/ab.sh: wrk is missing (make bench installs it, or apt-get install wrk)" >&2; exit 1; }
cd "$(dirname "$0")/.." || exit 1
work=$(mktemp -d /tmp/pushbridge-ab.XXXXXX); pids=(); pg_dir=; audit_dir=$work
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; [ -n "$pg_dir" ] && bench/pg-cluster.sh stop "$pg_dir"; rm -rf $work; [ "$audit_dir" != "$work" ] && rm -rf "$audit_dir"' EXIT
base=$((10000 + RANDOM % 20000)); up=$base; pa=$((base+1)); pb=$((base+2))
if [ "${AB_AUDIT:-sqlite}" = postgres ]; then
  pg_dir=$(mktemp -d /tmp/pushbridge-ab-pg.XXXXXX); pg_port=$((base+3))
  PG_MAX_CONNECTIONS=200 bench/pg-cluster.sh start "$pg_dir" $pg_port || exit 1
  for x in a b; do runuser -u postgres -- psql -q -h 127.0.0.1 -p $pg_port -c "CREATE DATABASE $x" postgres || exit 1; done
  postmaster=$(head -1 "$pg_dir/data/postmaster.pid")
fi
mkdir -p $work/up
audit_dir=${AB_AUDIT_DIR:-$work}; [ "$audit_dir" != "$work" ] && audit_dir=$(mktemp -d "$audit_dir/pushbridge-ab.XXXXXX")
. bench/nginx-conf.sh
upstream_conf $work/up $up
"$(command -v nginx || echo /usr/sbin/nginx)" -p $work/up -c $work/up/nginx.conf 2>$work/up/stderr & pids+=($!)
for x in a b; do port=$pa; [ $x = b ] && port=$pb
audit=$audit_dir/$x.sqlite; [ -n "$pg_dir" ] && audit=postgresql://postgres@127.0.0.1:$pg_port/$x
python3 - $work/$x.json $port $up $audit <<'PY'
import json, sys
out, pb, up, audit = sys.argv[1:]
c = json.load(open("config/bench.json")); c["listen"] = f"127.0.0.1:{pb}"; c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"; c["audit_db"] = audit
json.dump(c, open(out, "w"))
PY
done
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $A serve --config $work/a.json 2>/dev/null & apid=$!; pids+=("$apid")
PUSHBRIDGE_BENCH_OPENPUSH_KEY=k $B serve --config $work/b.json 2>/dev/null & bpid=$!; pids+=("$bpid")
for port in $up $pa $pb; do for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done; done
os_body=fixtures/onesignal-start-reference/body.json; pw_body=fixtures/pushwoosh-start-filter-reference/body.json
os_path=/apps/bench-app/activities/activity/DeliveryAttributes; pw_path=/json/1.3/startLiveActivity
ctxsw() { cat /proc/$1/task/*/status 2>/dev/null | awk '/ctxt_switches/{n+=$2} END{print n+0}'; }
# PostgreSQL's CPU in clock ticks: the postmaster (with its exited children's), every live child.
# The cluster's WAL position in bytes (A and B run one after the other, so its delta is one binary's).
pg_wal() { [ -n "$pg_dir" ] || { echo 0; return; }; runuser -u postgres -- psql -qtA -h 127.0.0.1 -p $pg_port -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint" postgres; }
pg_ticks() { [ -n "$pg_dir" ] || { echo 0; return; }; { echo $postmaster; pgrep -P $postmaster; } | while read -r p; do cat /proc/$p/stat 2>/dev/null; done | awk '{n+=$14+$15+$16+$17} END{print n+0}'; }
one() { # pid port conns body path auth
  local t0=$(awk '{print $14+$15}' /proc/$1/stat) c0=$(ctxsw $1) w0=$(pg_wal) g0=$(pg_ticks) line
  line=$(BENCH_BODY=$4 BENCH_AUTH=$6 wrk -t$([ $3 = 1 ] && echo 1 || echo 2) -c$3 -d${secs}s -s bench/http/post.lua "http://127.0.0.1:$2$5" | grep ^RESULT)
  local t1=$(awk '{print $14+$15}' /proc/$1/stat) c1=$(ctxsw $1) g1=$(pg_ticks) w1=$(pg_wal)
  local n=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
  echo "$line cpu_us=$(awk -v t=$((t1-t0)) -v n=$n -v hz=$(getconf CLK_TCK) 'BEGIN{printf "%.0f", t/hz*1e6/n}') ctxsw=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c/n}')$(
    [ -n "$pg_dir" ] && awk -v t=$((g1-g0)) -v n=$n -v hz="$(getconf CLK_TCK)" 'BEGIN{printf " pgcpu_us=%.0f", t/hz*1e6/n}')$(
    [ -n "$pg_dir" ] && awk -v w=$((w1-w0)) -v n=$n 'BEGIN{printf " pgwal_b=%.0f", w/n}')"
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
done | tee $work/rounds
# Medians over the rounds, per cell: A, B and B/A for p50, requests/s, CPU and switches per request.
awk '{ for (i = 5; i <= NF; i++) { split($i, kv, "="); v[$3 " " $4 " " kv[1]] = v[$3 " " $4 " " kv[1]] " " kv[2] } cells[$4] = 1 }
function median(list,   a, n, i, j, t) { n = split(list, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
END { for (c in cells) for (m = 1; m <= 6; m++) { k = m == 1 ? "p50_us" : m == 2 ? "rps" : m == 3 ? "cpu_us" : m == 4 ? "ctxsw" : m == 5 ? "pgcpu_us" : "pgwal_b"
  if (k ~ /^pg/ && !(("a " c " " k) in v)) continue
  a = median(v["a " c " " k]); b = median(v["b " c " " k]); printf "median %s %s A=%s B=%s B/A=%.2f\n", c, k, a, b, (a > 0 ? b / a : 0) } }' $work/rounds | sort
for x in a b; do pid=$apid; [ $x = b ] && pid=$bpid; echo "$x VmHWM $(awk '/VmHWM/{print $2}' /proc/$pid/status) kB"; done
