#!/usr/bin/env bash
# Serves config/demo.json (free ports, a scratch audit, an admin listener), sends the README's
# OneSignal, Pushwoosh and BuzzKit starts, fetches the admin page (GET /admin/, with the admin
# token) into var/admin.html and renders it in headless Chromium to a full-page screenshot, to
# check by eye that the page reads well.
# usage: scripts/check-admin-html.sh [OUT_PNG]     (OUT_PNG default var/admin.png)
# Installs Debian's chromium when it is missing (it is large, so `make test` does not).
set -euo pipefail
cd "$(dirname "$0")/.."
out_png=${1:-var/admin.png}
mkdir -p var "$(dirname "$out_png")"
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
swift build --product pushbridge >/dev/null
work=$(mktemp -d)
pid=
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
read -r proxy_port admin_port < <(python3 - "$work" <<'PY'
import json, socket, sys
def free():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
proxy, admin = free(), free()
config = json.load(open("config/demo.json"))
config["listen"] = f"127.0.0.1:{proxy}"
config["audit_db"] = f"{sys.argv[1]}/audit.sqlite"
config["sandbox"]["listen"] = "127.0.0.1:0"
config["admin"] = {"token_env": "PUSHBRIDGE_ADMIN_TOKEN", "listen": f"127.0.0.1:{admin}"}
json.dump(config, open(f"{sys.argv[1]}/config.json", "w"))
print(proxy, admin)
PY
)
export PUSHBRIDGE_ADMIN_TOKEN=check-admin-page-token
.build/debug/pushbridge serve --config "$work/config.json" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q 'listening' "$work/serve.log" && break; sleep 0.1; done
grep -q 'listening' "$work/serve.log" || { cat "$work/serve.log"; exit 1; }
base=http://127.0.0.1:$proxy_port
for _ in 1 2 3; do
  curl -s -o /dev/null -X POST "$base/apps/5eb5a37e-b458-11e3-ac11-000c2940e62c/activities/activity/DeliveryAttributes" \
    -H 'Authorization: Key demo-onesignal-key' -H 'Content-Type: application/json' \
    -d @fixtures/onesignal-start-interruption-level-and-subtitle/body.json
done
sed 's/XXXXX-XXXXX/DEMO1-23456/; s/SECRET_API_TOKEN/demo-pushwoosh-auth/' fixtures/pushwoosh-start-filter-reference/body.json |
  curl -s -o /dev/null -X POST "$base/json/1.3/startLiveActivity" -d @-
curl -s -o /dev/null -X POST "$base/v1/live-activities/send" -H 'Authorization: Bearer demo-buzzkit-token' \
  -d '{"to":"alice","event":"start","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"baking"},"alert":{"title":"Order placed","body":"We are on it"}}'
html=var/admin.html
curl -sf -H "Authorization: Bearer $PUSHBRIDGE_ADMIN_TOKEN" "http://127.0.0.1:$admin_port/admin/" -o "$html"
# The page has no scripts and no external resources, so a sandboxless offline run is enough.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1600 \
  --screenshot="$PWD/$out_png" "file://$PWD/$html" 2>/dev/null
echo "screenshot: $out_png (from $html)"
