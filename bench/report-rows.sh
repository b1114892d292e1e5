#!/usr/bin/env bash
# Issue 30's report rows, called by bench/run.sh (and runnable alone):
#   bench/report-rows.sh REPORT_BENCH [BASELINE_REPORT_BENCH]
# Runs REPORT_BENCH over BENCH_REPORT_ROWS rows (default 1,000,000: it builds the audit through
# the proxy's own writer, then times report text/json/html, a filtered report and readiness, and
# checks their totals), prints its lines and the two target rows: `report over 1,000,000 rows,
# text (s)` and `readiness over 1,000,000 rows (s)`, each ≤ 2 s and ≤ today's. Today's is
# BASELINE_REPORT_BENCH (a report-bench built from the `main` the issue started from) run the
# same way in this run on its own audit; without it the rows say "today's not measured" and are
# judged on the 2 s alone. BENCH_TARGETS=FILE appends the rows as "30.9|…" and "30.10|…" for
# bench/run.sh's summary. The audits go in a temp dir (BENCH_REPORT_DIR, default /tmp) removed
# at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=$1 baseline=${2:-}
rows=${BENCH_REPORT_ROWS:-1000000}
work=$(mktemp -d "${BENCH_REPORT_DIR:-/tmp}/pushbridge-report.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# seconds OUTPUT PREFIX: the seconds on report-bench's line starting with PREFIX (`report text:`, `readiness:`)
seconds() { echo "$1" | awk -v p="$2" 'index($0, p) == 1 { for (i = 1; i <= NF; i++) if ($i == "s") { print $(i - 1); exit } }'; }
rows_label=$(echo "$rows" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')  # 1000000 → 1,000,000

echo "report and readiness over $rows_label rows (report-bench; load $(cut -d' ' -f1-3 /proc/loadavg))"
out=$("$bench" "$rows" "$work/new.sqlite") || { echo "report-bench failed: $out" >&2; exit 1; }
echo "$out"
text=$(seconds "$out" "report text:") readiness=$(seconds "$out" "readiness:")
base_text="" base_readiness=""
if [ -n "$baseline" ]; then
  echo "today's (baseline $baseline):"
  base_out=$("$baseline" "$rows" "$work/old.sqlite") || { echo "baseline report-bench failed: $base_out" >&2; base_out=""; }
  echo "$base_out"
  base_text=$(seconds "$base_out" "report text:") base_readiness=$(seconds "$base_out" "readiness:")
fi

# row KEY MEASURE VALUE TODAY: the row, met when VALUE ≤ 2 s and (with a baseline) ≤ TODAY.
row() {
  local met note
  met=$(awk -v v="${3:--}" -v t="${4:--}" 'BEGIN { print ((v != "-" && v + 0 <= 2 && (t == "-" || v + 0 <= t + 0)) ? "yes" : "NO") }')
  if [ -n "$4" ]; then note="today's $4 s, this build/today's $(awk -v v="$3" -v t="$4" 'BEGIN { if (t > 0) printf "%.2f", v / t; else print "-" }')"
  else note="today's not measured in this run (BENCH_REPORT_BASELINE=an older report-bench); judged on 2 s alone"; fi
  printf '%-44s %10s  %-24s %s\n' "$2" "${3:--}" "≤ today's, and ≤ 2 s" "$met  ($note)"
  if [ -n "${BENCH_TARGETS:-}" ]; then
    printf '%s|%s|%s|%s|%s\n' "$1" "$2" "${3:--}" "≤ today's, and ≤ 2 s" "$met  ($note; report-bench $rows)" >>"$BENCH_TARGETS"
  fi
}
row 30.9 "report over $rows_label rows, text (s)" "$text" "$base_text"
row 30.10 "readiness over $rows_label rows (s)" "$readiness" "$base_readiness"
