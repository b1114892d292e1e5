#!/bin/bash
# The alert rules' test (in `make test`): deploy/prometheus/pushbridge.rules.yml is valid
# (`promtool check rules`), every rule passes its unit tests (`promtool test rules`), every
# rule has a test, every pushbridge_* metric a rule reads is one PushBridge exposes, and
# every description links a section of docs/deployment.md that exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/deploy/prometheus"
fail() { echo "test-rules: $*" >&2; exit 1; }

promtool check rules pushbridge.rules.yml
promtool test rules pushbridge.rules.test.yml

alerts=$(sed -n 's/^ *- alert: *//p' pushbridge.rules.yml)
[ -n "$alerts" ] || fail "no alert in pushbridge.rules.yml"
for alert in $alerts; do
    grep -q "alertname: $alert\$" pushbridge.rules.test.yml || fail "$alert has no test in pushbridge.rules.test.yml"
    anchor=$(echo "$alert" | tr 'A-Z' 'a-z')
    grep -q "See docs/deployment.md#$anchor\$" pushbridge.rules.yml || fail "$alert's description does not link docs/deployment.md#$anchor"
    grep -q "^#### $alert\$" "$root/docs/deployment.md" || fail "docs/deployment.md has no section '#### $alert'"
done
for metric in $(grep -o 'pushbridge_[a-z_]*' pushbridge.rules.yml | sort -u); do
    grep -rqF "\"$metric" "$root/Sources/PushBridgeServer/Observability/" || fail "$metric is not a metric PushBridge exposes"
done
echo "test-rules: $(echo "$alerts" | wc -l) rules, each tested, on metrics that exist, with its docs section"
