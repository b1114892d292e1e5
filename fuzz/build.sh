#!/usr/bin/env bash
# Builds one libFuzzer binary per dialect: the PushBridgeCore sources plus fuzz/FuzzHarness.swift
# and fuzz/fuzz_<dialect>.swift, compiled as one module with -sanitize=fuzzer,address.
# Usage: fuzz/build.sh [dialect ...]   (default: onesignal pushwoosh buzzkit)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz
mkdir -p "$out"
dialects=("$@")
[ ${#dialects[@]} -gt 0 ] || dialects=(onesignal pushwoosh buzzkit)
mapfile -t core < <(find Sources/PushBridgeCore -name '*.swift' | sort)
for d in "${dialects[@]}"; do
  bin="$out/fuzz-$d"
  newest=$(ls -t "${core[@]}" fuzz/FuzzHarness.swift "fuzz/fuzz_$d.swift" | head -1)
  if [ -x "$bin" ] && [ "$bin" -nt "$newest" ]; then continue; fi
  echo "building $bin"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PushBridgeFuzz \
    "${core[@]}" fuzz/FuzzHarness.swift "fuzz/fuzz_$d.swift" -lm -o "$bin" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
done
