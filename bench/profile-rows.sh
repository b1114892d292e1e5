#!/usr/bin/env bash
# The profile split's parts per request (issue 31, item 5), called by bench/run.sh (and runnable
# alone):
#   bench/profile-rows.sh PUSHBRIDGE [CPU_US_PER_REQUEST]
# When perf can count here (`perf stat -e instructions true` succeeds), bench/profile.sh records
# PUSHBRIDGE under wrk's OneSignal start at 64 connections (BENCH_SECONDS, default 5; DWARF call
# graphs at 1,000 Hz, as docs/benchmarks.md's profile split was taken) and bench/profile-split.py
# prints each part's share and µs per request: by where the samples landed, by PushBridge
# component, by thread. The µs are the share times CPU_US_PER_REQUEST (bench/run.sh passes its
# 64-connection cell's CPU per request, measured without perf, which adds to the CPU it samples);
# without it, the CPU per request measured while recording. Without perf it prints one line
# saying so and exits 0.
set -uo pipefail
cd "$(dirname "$0")/.."
pushbridge=$1 cpu_us=${2:-}
seconds=${BENCH_SECONDS:-5}

if ! command -v perf >/dev/null; then
  echo "profile split: skipped, perf is not installed (apt-get install linux-perf)"; exit 0
fi
# `perf stat -e instructions true` fails where perf may not read this machine's events at all
# (perf_event_paranoid, a container without perf_event_open): then there is no profile. Where it
# runs but the CPU has no hardware counters to give (`<not supported>`, as in many VMs), the
# profile still works: it samples the software `cpu-clock` event.
if ! why=$(perf stat -e instructions true 2>&1 >/dev/null); then
  echo "profile split: skipped, perf cannot count here ('perf stat -e instructions true': $(echo "$why" | grep -v '^$' | head -1))"; exit 0
fi
if echo "$why" | grep -q "not supported"; then
  echo "profile split: no hardware counters here (perf stat -e instructions: <not supported>); sampling the software cpu-clock"
fi
out=$(mktemp -d /tmp/pushbridge-profile-rows.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
echo "profile split: perf record of the OneSignal start, 64 connections, ${seconds}s (bench/profile.sh, DWARF call graphs)"
line=$(PROFILE_OUT=$out PROFILE_PERF_HZ=1000 PROFILE_PERF_CALLGRAPH=dwarf,16384 bench/profile.sh "$pushbridge" perf "$seconds" 64 | tail -1)
recorded=$(echo "$line" | sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p')
echo "  while recording: ${recorded:--} µs CPU per request; the parts below use ${cpu_us:-${recorded:-0}} µs (${cpu_us:+measured without perf in this run}${cpu_us:-as recorded})"
perf script -i "$out/perf.data" 2>/dev/null | bench/profile-split.py "${cpu_us:-${recorded:-0}}"
