#!/bin/bash
# Prints PushBridge's version, read from the one place it is declared:
# Sources/pushbridge/Version/PushBridgeVersion.swift (`static let version = "X.Y.Z"`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^ *static let version = "\([0-9][0-9A-Za-z.+~-]*\)"$/\1/p' "$root/Sources/pushbridge/Version/PushBridgeVersion.swift")
[ -n "$version" ] || { echo "version.sh: no 'static let version = \"…\"' in PushBridgeVersion.swift" >&2; exit 1; }
echo "$version"
