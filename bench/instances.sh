#!/usr/bin/env bash
# Called by bench/run.sh at its end: two PushBridge instances against one on the same
# PostgreSQL database (audit, shared pacer and instance registry there). Usage:
#   bench/instances.sh PUSHBRIDGE_BINARY UPSTREAM_PORT
# Starts a throwaway PostgreSQL cluster (Debian's initdb/pg_ctl as the postgres user, its own
# data directory in a temporary folder, a free port, fsync off like the test cluster), then:
# one instance under 16 connections; two instances under 8 connections each, at once.
# Prints requests/s and the p50 of each, and the ratio. Two cores bound the scaling here:
# the instances, PostgreSQL, the upstream and wrk share them.
set -euo pipefail
cd "$(dirname "$0")/.."
pushbridge=$1 up_port=$2
seconds=${BENCH_SECONDS:-5}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$pg_bin" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
work=$(mktemp -d /tmp/pushbridge-bench-pg.XXXXXX)
chown postgres:postgres "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

base=$((41000 + RANDOM % 8000))
pg_port=$base a_port=$((base + 1)) b_port=$((base + 2))
runuser -u postgres -- "$pg_bin/initdb" -D "$work/data" -A trust -U postgres --no-sync -E UTF8 --locale=C >/dev/null
runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work -c fsync=off -c max_connections=200" start >/dev/null
runuser -u postgres -- psql -q -h 127.0.0.1 -p "$pg_port" -c "CREATE DATABASE bench" postgres
uri="postgresql://postgres@127.0.0.1:$pg_port/bench"

write_config() { # OUT LISTEN_PORT NAME
  python3 - "$1" "$2" "$up_port" "$uri" "$3" <<'PY'
import json, sys
out, pb, up, uri, name = sys.argv[1:]
c = json.load(open("config/bench.json"))
c["listen"] = f"127.0.0.1:{pb}"
c["openpush"]["base_url"] = f"http://127.0.0.1:{up}"
c["audit_db"] = uri
c["instance_name"] = name
# The pacer still takes its row lock per send; a 10 ms window keeps its row short at these rates.
c["delivery"].update({"window_ms": 10, "margin_ms": 0})
json.dump(c, open(out, "w"), indent=1)
PY
}
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open" >&2; exit 1; }
write_config "$work/a.json" "$a_port" a
write_config "$work/b.json" "$b_port" b
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/a.json" 2>"$work/a.log" & pids+=($!)
wait_port "$a_port"
PUSHBRIDGE_BENCH_OPENPUSH_KEY=op_bench_key "$pushbridge" serve --config "$work/b.json" 2>"$work/b.log" & pids+=($!)
wait_port "$b_port"

body=fixtures/onesignal-start-reference/body.json
path=/apps/bench-app/activities/activity/DeliveryAttributes
auth="Key bench-onesignal-key"
answer=$(curl -s -o "$work/check" -w '%{http_code}' -H "Content-Type: application/json" -H "Authorization: $auth" --data-binary @"$body" "http://127.0.0.1:$a_port$path")
if [ "${answer:0:1}" != 2 ]; then echo "PushBridge on PostgreSQL answered $answer: $(cat "$work/check")" >&2; tail -5 "$work/a.log" >&2; exit 1; fi

wrk_line() { # PORT CONNECTIONS → the RESULT line
  BENCH_BODY=$body BENCH_AUTH=$auth wrk -t1 -c"$2" -d"${seconds}s" -s bench/http/post.lua "http://127.0.0.1:$1$path" | grep '^RESULT'
}
field() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" <<<"$1"; }
echo "instances: one, then two, on one PostgreSQL database, 16 connections in all, ${seconds}s each"
BENCH_BODY=$body BENCH_AUTH=$auth wrk -t1 -c4 -d1s -s bench/http/post.lua "http://127.0.0.1:$b_port$path" >/dev/null
# CPU of the one instance and of PostgreSQL (the postmaster and every backend) over that run.
cpu_ticks() { local n=0 p; for p in "$@"; do n=$((n + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$n"; }
postmaster=$(head -1 "$work/data/postmaster.pid")
pg_pids() { echo "$postmaster" $(pgrep -P "$postmaster"); }
pg_procs=$(pg_pids)
pb0=$(cpu_ticks "${pids[0]}") pg0=$(cpu_ticks $pg_procs)
one=$(wrk_line "$a_port" 16)
pb1=$(cpu_ticks "${pids[0]}") pg1=$(cpu_ticks $pg_procs)
wrk_line "$a_port" 8 >"$work/two-a" & wa=$!
wrk_line "$b_port" 8 >"$work/two-b" & wb=$!
wait "$wa" "$wb"
two_a=$(cat "$work/two-a") two_b=$(cat "$work/two-b")
rps1=$(field "$one" rps) rps2=$(( $(field "$two_a" rps) + $(field "$two_b" rps) ))
errors=$(( $(field "$one" non2xx) + $(field "$two_a" non2xx) + $(field "$two_b" non2xx) ))
rows=$(runuser -u postgres -- psql -tA -h 127.0.0.1 -p "$pg_port" -c "SELECT instance_name || ':' || count(*) FROM requests GROUP BY instance_name ORDER BY instance_name" bench | tr '\n' ' ')
fmt='%-34s %12s %12s %10s  %s\n'
printf "$fmt" "measure" "1 instance" "2 instances" "2/1" "notes"
printf "$fmt" "requests/s, 16 conns, PostgreSQL" "$rps1" "$rps2" "$(awk -v a="$rps2" -v b="$rps1" 'BEGIN { printf "%.2f", a / b }')" \
  "$(nproc) cores shared by both instances, PostgreSQL, the upstream and wrk; non-2xx $errors; audit rows $rows"
per_request_us() { awk -v t="$1" -v r="$(field "$one" requests)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", t * 1e6 / hz / r }'; }
printf "$fmt" "CPU per request, 1 instance (us)" "$(per_request_us $((pb1 - pb0 + pg1 - pg0)))" "" "" \
  "PushBridge $(per_request_us $((pb1 - pb0))) + PostgreSQL $(per_request_us $((pg1 - pg0))) (every backend)"
printf "$fmt" "p50, 16 conns (ms)" "$(awk -v u="$(field "$one" p50_us)" 'BEGIN { printf "%.3f", u / 1000 }')" \
  "$(awk -v a="$(field "$two_a" p50_us)" -v b="$(field "$two_b" p50_us)" 'BEGIN { printf "%.3f", (a + b) / 2000 }')" "" "two: the mean of the instances' p50"

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
printf "$fmt" "pacer transactions per request" "$(awk -v t="$pacer_tx" -v r="$requests" 'BEGIN { printf "%.3f", t / r }')" "" "" \
  "both runs: $pacer_tx pacer transactions for $requests requests"
