#!/usr/bin/env bash
# Issue 23's before/after table in one run: bench/issue23-ab.sh BIN_A BIN_B [ROUNDS] [SECONDS].
# Runs bench/ab.sh's cells lat1 (OneSignal start, 1 connection) and os64 (64 connections) for
# A and B with the durable SQLite audit, then again with AB_AUDIT=postgres (each binary its own
# database in a throwaway cluster, fsync and synchronous_commit on), ROUNDS rounds (default 5)
# of SECONDS (default 3) per cell, A and B alternating who goes first. Prints ab.sh's round
# lines as they come, then one markdown table of the medians: CPU per request of the proxy
# (and of PostgreSQL), p50, context switches per request and requests/s, A → B (B/A).
# AB_AUDIT_DIR is passed on to the SQLite half (e.g. /dev/shm to take the fsync out).
set -euo pipefail
A=$1 B=$2 rounds=${3:-5} secs=${4:-3}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/pushbridge-issue23-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "issue 23 A/B: A=$A B=$B, $rounds rounds of ${secs}s per cell; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for engine in sqlite postgres; do
  echo "== $engine"
  AB_CELLS="lat1 os64" AB_AUDIT=$engine bench/ab.sh "$A" "$B" "$rounds" "$secs" | tee "$work/$engine"
done
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
echo
# Each cell: A's and B's medians over the rounds, B/A of the medians, and the median with the
# range of the per-round ratios (A and B ran back to back in each round, so a drift of the
# machine between rounds, such as the shared disk's fsync latency, cancels out there; the range
# is the noise of the instrument for that measure).
awk '
  $1 == "round" { for (i = 6; i <= NF; i++) { split($i, kv, "="); v[FILENAME "|" $4 "|" kv[1] "|" $3 "|" $2] = kv[2] }
    rounds[$2] = 1 }
  function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } }
  function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function cell(f, c, key, scale, fmt,   r, n, k, a, b, q, ma, mb) { n = 0
    for (r in rounds) { k = f "|" c "|" key; if (!((k "|a|" r) in v)) continue
      n++; a[n] = v[k "|a|" r]; b[n] = v[k "|b|" r]; q[n] = a[n] > 0 ? b[n] / a[n] : 0 }
    if (n == 0) return "-"
    ma = median(a, n); mb = median(b, n); median(q, n)
    return sprintf(fmt " → " fmt " (%.2f; paired %.2f, %.2f–%.2f)", ma / scale, mb / scale, ma > 0 ? mb / ma : 0,
      n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2, q[1], q[n]) }
  END {
    print "| cell | audit | CPU/request, proxy (µs) | CPU/request, PostgreSQL (µs) | p50 (ms) | switches/request | requests/s |"
    print "|---|---|---|---|---|---|---|"
    n = split("lat1 os64", cells, " ")
    for (i = 1; i <= n; i++) for (e = 1; e <= 2; e++) {
      f = e == 1 ? sqlite : postgres; c = cells[i]
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", c == "lat1" ? "1 connection" : "64 connections",
        e == 1 ? "SQLite" : "PostgreSQL", cell(f, c, "cpu_us", 1, "%.0f"), cell(f, c, "pgcpu_us", 1, "%.0f"),
        cell(f, c, "p50_us", 1000, "%.3f"), cell(f, c, "ctxsw", 1, "%.1f"), cell(f, c, "rps", 1, "%.0f") } }
' sqlite="$work/sqlite" postgres="$work/postgres" "$work/sqlite" "$work/postgres"
echo
echo "A → B (B/A of the medians over $rounds rounds; paired: the median and range of the per-round B/A); A=$A, B=$B"
