#!/usr/bin/env bash
# Renders the HTML diff report of an audit (default: a replay of every fixture) in headless
# Chromium and writes a full-page screenshot, to check by eye that the report reads well.
# usage: scripts/check-report-html.sh [AUDIT_FILE] [OUT_PNG]     (OUT_PNG default var/report.png)
# Installs Debian's chromium when it is missing (it is large, so `make test` does not).
set -euo pipefail
cd "$(dirname "$0")/.."
out_png=${2:-var/report.png}
mkdir -p var "$(dirname "$out_png")"
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
swift build --product pushbridge >/dev/null
html=var/report.html
if [[ -n "${1:-}" ]]; then
  .build/debug/pushbridge report --db "$1" --format html --out "$html"
else
  lines=var/fixtures-replay.jsonl
  python3 - "$lines" <<'PY'
import json, os, sys
with open(sys.argv[1], "w") as out:
    for name in sorted(os.listdir("fixtures")):
        case = os.path.join("fixtures", name, "case.json")
        if not os.path.exists(case):
            continue
        body = open(os.path.join("fixtures", name, "body.json")).read()
        out.write(json.dumps({"method": "POST", "path": json.load(open(case))["path"], "headers": {}, "body": body}) + "\n")
PY
  .build/debug/pushbridge replay "$lines" --format html --out "$html"
fi
# The page has no scripts and no external resources, so a sandboxless offline run is enough.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,3200 \
  --screenshot="$PWD/$out_png" "file://$PWD/$html" 2>/dev/null
echo "screenshot: $out_png (from $html)"
