#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60), one at
# a time, with a corpus seeded from fixtures/*/body.json. A crash stops the run and leaves the
# input in .build/fuzz/artifacts/; copy it to fuzz/regressions/ so the tests replay it.
# Usage: fuzz/run.sh [dialect ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
dialects=("$@")
[ ${#dialects[@]} -gt 0 ] || dialects=(onesignal pushwoosh buzzkit)
fuzz/build.sh "${dialects[@]}"
mkdir -p .build/fuzz/artifacts
for d in "${dialects[@]}"; do
  corpus=.build/fuzz/corpus-$d
  mkdir -p "$corpus"
  for f in fixtures/*/body.json fuzz/regressions/*; do
    [ -f "$f" ] && cp "$f" "$corpus/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
  done
  echo "== fuzz-$d for ${seconds}s"
  .build/fuzz/fuzz-"$d" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
    -dict=fuzz/pushbridge.dict -print_final_stats=1 -artifact_prefix=.build/fuzz/artifacts/"$d"- "$corpus" 2>&1 \
    | grep -E '^(==|#[0-9]+ +DONE|stat::|INFO: Running|SUMMARY|.*(ERROR|Fatal|crash|deadly))' || true
  test "${PIPESTATUS[0]}" -eq 0 || { echo "fuzz-$d found a crash: see .build/fuzz/artifacts/"; exit 1; }
done
