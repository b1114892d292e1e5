#!/usr/bin/env bash
# A/B of two pushbridge binaries on PostgreSQL in one run: bench/instances-ab.sh BIN_A BIN_B [ROUNDS].
# One nginx upstream (the fast "OpenPush"); each round runs bench/instances.sh (its own
# throwaway PostgreSQL cluster: one instance at 16 connections, then two at 8 each, then the
# shared pacer's transactions per request) for A and for B, alternating which goes first.
# On a shared machine compare A and B within a round.
set -euo pipefail
A=$1 B=$2 rounds=${3:-2}
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
work=$(mktemp -d /tmp/pushbridge-instances-ab.XXXXXX) nginx_pid=
trap '[ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
up=$((20000 + RANDOM % 5000))  # below the ephemeral ports (32768+), apart from instances.sh
mkdir -p "$work/up"
. bench/nginx-conf.sh
upstream_conf "$work/up" "$up"
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/up" -c "$work/up/nginx.conf" 2>"$work/up/stderr" & nginx_pid=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$up") 2>/dev/null && break; sleep 0.1; done
for round in $(seq "$rounds"); do
  order="A B"; [ $((round % 2)) = 0 ] && order="B A"
  for side in $order; do
    binary=$A; [ "$side" = B ] && binary=$B
    echo "== round $round, $side: $binary"
    bench/instances.sh "$binary" "$up"
  done
done
