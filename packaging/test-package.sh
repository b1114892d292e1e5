#!/bin/bash
# The package's test, as a server would see it (in `make test`, after the Swift tests; also
# `make package-test`). Builds the .deb once (packaging/build-deb.sh), or takes the one named
# as argument 1, then checks:
#   1. its control fields (name, version from PushBridgeVersion.swift, architecture, Depends
#      on each Debian library the binary links, with a version) and its contents;
#   2. lintian: no error or warning (each tag left is fixed, or justified in
#      packaging/lintian-overrides);
#   3. systemd-analyze verify of the unit it installs;
#   4. the packaged binary with the Swift toolchain out of reach (/opt/swift hidden behind an
#      empty folder in a mount namespace, LD_LIBRARY_PATH empty): ldd lists no toolchain
#      library and nothing missing; --version prints the version, commit and build date;
#      check-config accepts the example; `serve` on the demo configuration answers a OneSignal
#      start through its embedded sandbox on an ephemeral loopback port;
#   5. as root, when no pushbridge package is installed on the machine: install, remove (the
#      audit stays), purge (it goes); the pushbridge system user is created.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }
step() { echo "test-package: $*"; }

deb=${1:-$(packaging/build-deb.sh | tail -n 1)}
[ -f "$deb" ] || fail "no package at $deb"
version=$(packaging/version.sh)
work=$(mktemp -d /tmp/pushbridge-package-test.XXXXXX)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Control fields and contents.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = pushbridge ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', PushBridgeVersion.swift says $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is '$(field Architecture)'"
depends=$(field Depends)
for library in libc6 libcurl4 libmicrohttpd12 libsqlite3-0 libpq5 libssl3; do
    grep -Eq "(^|, )$library \(>= [0-9][^)]*\)" <<<"$depends" || fail "Depends has no versioned $library: $depends"
done
for tool in adduser procps; do   # postinst's adduser, the unit's /bin/kill
    grep -Eq "(^|, )$tool(,|\$)" <<<"$depends" || fail "Depends lacks $tool: $depends"
done
grep -q swift <<<"$depends" && fail "Depends names a Swift package: $depends"
step "control fields ok: $(field Package) $(field Version) $(field Architecture); Depends: $depends"

dpkg-deb -c "$deb" | awk '{print $1, $2, $NF}' > "$work/contents"
expect() { # MODE OWNER PATH
    grep -qxF -e "$1 $2 $3" "$work/contents" || fail "the package lacks '$1 $2 $3'; it has: $(grep -F "$3" "$work/contents" || echo nothing)"
}
expect -rwxr-xr-x root/root ./usr/bin/pushbridge
expect -rw-r--r-- root/root ./lib/systemd/system/pushbridge@.service
expect drwxr-xr-x root/root ./etc/pushbridge/
expect drwxr-xr-x root/root ./var/lib/pushbridge/
for doc in copyright changelog.gz README.md CHANGELOG.md deployment.md configuration.md security.md migration.md \
    examples/pushbridge.example.json examples/pushbridge.example.env examples/demo.json examples/demo-seed.json examples/pushbridge.rules.yml; do
    expect -rw-r--r-- root/root "./usr/share/doc/pushbridge/$doc"
done
expect -rw-r--r-- root/root ./usr/share/man/man1/pushbridge.1.gz
grep -q '^-.* ./etc/pushbridge/.' "$work/contents" && fail "the package ships a file in /etc/pushbridge: $(grep ' ./etc/pushbridge/.' "$work/contents")"
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/DEBIAN"
unit=$work/root/lib/systemd/system/pushbridge@.service
grep -q '^ExecStart=/usr/bin/pushbridge serve --config /etc/pushbridge/%i.json$' "$unit" || fail "the unit does not start /usr/bin/pushbridge: $(grep ^Exec "$unit")"
grep -q '/usr/local' "$unit" && fail "the unit still names /usr/local"
zcat "$work/root/usr/share/doc/pushbridge/changelog.gz" | sed -n 1p | grep -qxF "pushbridge ($version) stable; urgency=medium" \
    || fail "changelog.gz does not start with version $version"
step "contents ok: $(wc -l < "$work/contents") entries"

# 1b. What the operator reads: the version's CHANGELOG section, README's "Install on a
#     server", docs/deployment.md on the package's paths.
grep -q "^## $version (" CHANGELOG.md || fail "CHANGELOG.md has no section '## $version (…)'"
grep -q '^## Install on a server$' README.md || fail "README.md has no 'Install on a server' section"
grep -q '/lib/systemd/system/pushbridge@.service' docs/deployment.md || fail "docs/deployment.md does not say where the unit is installed"
grep -n '/usr/local/bin' docs/deployment.md README.md deploy/pushbridge@.service && fail "the docs name /usr/local/bin (above), not the package's /usr/bin"
step "CHANGELOG, README and docs/deployment.md ok"

# 2. lintian.
lintian --info --fail-on error,warning --tag-display-limit 0 "$deb" > "$work/lintian" 2>&1 || { cat "$work/lintian" >&2; fail "lintian"; }
grep -E '^(E|W):' "$work/lintian" && fail "lintian reports the errors and warnings above"
remarks=$(sed -n 's/^[A-Z]: pushbridge[^:]*: \([^ ]*\).*/\1/p' "$work/lintian" | sort -u | tr '\n' ' ')
step "lintian ok (no error or warning${remarks:+; remarks: $remarks})"

# 3. The unit, as systemd would read it: the instance pushbridge@a of the template, with
#    /usr/bin/pushbridge pointing at the extracted binary (its ExecStart path is checked above).
#    systemd-analyze exits 0 on a directive it ignores, so any line it prints fails the test.
mkdir -p "$work/unit"
sed "s|/usr/bin/pushbridge|$work/root/usr/bin/pushbridge|g" "$unit" > "$work/unit/pushbridge@a.service"
systemd-analyze verify "$work/unit/pushbridge@a.service" > "$work/verify" 2>&1 || { cat "$work/verify" >&2; fail "systemd-analyze verify"; }
[ -s "$work/verify" ] && { cat "$work/verify" >&2; fail "systemd-analyze verify complains (above)"; }
step "systemd-analyze verify ok"

# 4. The binary with the toolchain out of reach.
binary=$work/root/usr/bin/pushbridge
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")   # /opt/swift/usr
toolchain=${toolchain%/usr}
mkdir -p "$work/empty"
unshare -m true 2>/dev/null || fail "unshare -m is refused (it needs root or CAP_SYS_ADMIN): the toolchain cannot be hidden from the binary"
# Runs the command after it with the toolchain hidden and an empty LD_LIBRARY_PATH; each step
# execs the next, so a background run's $! is the command's own process.
hidden=(unshare -m -- /bin/sh -c 'mount --bind "$1" "$2" && shift 2 && exec env LD_LIBRARY_PATH= "$@"' sh "$work/empty" "$toolchain")
bare() { "${hidden[@]}" "$@"; }
ldd "$binary" > "$work/ldd"
grep -E "$toolchain|not found|libswift|libFoundation|libdispatch|libBlocksRuntime" "$work/ldd" && fail "ldd: the binary needs the toolchain (above)"
bare /bin/sh -c "test ! -e '$toolchain/usr/lib/swift'" || fail "the toolchain is not hidden in the namespace"
bare ldd "$binary" | grep -q "not found" && fail "ldd without the toolchain: $(bare ldd "$binary" | grep 'not found')"
line=$(bare "$binary" --version) || fail "--version: exit status $?"
[[ "$line" =~ ^pushbridge\ $version\ \(commit\ [0-9a-f]{12}(-dirty)?,\ built\ [0-9]{4}-[0-9]{2}-[0-9]{2}\)$ ]] || fail "--version printed '$line'"
step "--version without the toolchain: $line"

examples=$work/root/usr/share/doc/pushbridge/examples
bare env -i PATH=/usr/bin:/bin OP_KEY_SCORES=k1 OP_KEY_SCORES_STAGING=k2 OP_KEY_RIDES=k3 ONESIGNAL_KEY_SCORES=k4 \
    PUSHWOOSH_AUTH_RIDES=k5 PUSHBRIDGE_ADMIN_TOKEN=k6 "$binary" check-config "$examples/pushbridge.example.json" > "$work/check" 2>&1 \
    || { cat "$work/check" >&2; fail "check-config on the packaged example"; }
step "check-config on the example without the toolchain: $(head -n 1 "$work/check")"

python3 - "$examples" "$work" <<'PY'
import json, sys
examples, work = sys.argv[1], sys.argv[2]
demo = json.load(open(f"{examples}/demo.json"))
demo.update(listen="127.0.0.1:0", audit_db=f"{work}/audit.sqlite", log_format="logfmt")
demo["sandbox"] = dict(demo["sandbox"], listen="127.0.0.1:0", seed=f"{examples}/demo-seed.json")
demo.setdefault("delivery", {})["scheduler_db"] = f"{work}/scheduled.sqlite"
json.dump(demo, open(f"{work}/demo.json", "w"), indent=1)
PY
"${hidden[@]}" "$binary" serve --config "$work/demo.json" 2> "$work/serve.log" &
server=$!
address=""
for _ in $(seq 600); do   # up to 60 s on a loaded machine; ends as soon as the line is there
    address=$(sed -n 's/.*msg=listening address=\([0-9.:]*\).*/\1/p' "$work/serve.log" | head -n 1)
    [ -n "$address" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; fail "serve exited before listening"; }
    sleep 0.1
done
[ -n "$address" ] || { cat "$work/serve.log" >&2; fail "serve did not log 'listening' within 60 s"; }
status=$(curl -s -o "$work/answer" -w '%{http_code}' -X POST \
    "http://$address/apps/5eb5a37e-b458-11e3-ac11-000c2940e62c/activities/activity/DeliveryAttributes" \
    -H 'Authorization: Key demo-onesignal-key' -H 'Content-Type: application/json' \
    -d @fixtures/onesignal-start-interruption-level-and-subtitle/body.json) || true
grep -Eq '^\{"notification_id":"msg_[A-Za-z0-9_-]+"\}$' "$work/answer" && [[ "$status" == 20[01] ]] \
    || { cat "$work/serve.log" >&2; fail "the OneSignal start got HTTP $status: $(cat "$work/answer")"; }
kill -TERM "$server"
wait "$server" || fail "serve exited with status $? after SIGTERM"
server=""
grep -q 'msg=stopped' "$work/serve.log" || fail "serve did not log 'stopped' after SIGTERM"
step "serve without the toolchain on $address answered the OneSignal start: HTTP $status $(cat "$work/answer")"

# 5. Install, remove, purge, as dpkg does them (root only, and never over an installed copy).
if [ "$(id -u)" != 0 ]; then
    step "SKIPPED install/remove/purge: needs root"
elif dpkg-query -W -f='${Status}' pushbridge 2>/dev/null | grep -q 'install ok'; then
    step "SKIPPED install/remove/purge: a pushbridge package is installed on this machine already"
else
    dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -i"; }
    getent passwd pushbridge | grep -q ':/var/lib/pushbridge:/usr/sbin/nologin$' || fail "no pushbridge system user: $(getent passwd pushbridge)"
    [ "$(stat -c '%U:%G %a' /var/lib/pushbridge)" = "pushbridge:pushbridge 750" ] || fail "/var/lib/pushbridge is $(stat -c '%U:%G %a' /var/lib/pushbridge)"
    [ "$(stat -c '%U:%G %a' /etc/pushbridge)" = "root:pushbridge 750" ] || fail "/etc/pushbridge is $(stat -c '%U:%G %a' /etc/pushbridge)"
    [ "$(/usr/bin/pushbridge --version)" = "$line" ] || fail "the installed binary says $(/usr/bin/pushbridge --version)"
    runuser -u pushbridge -- touch /var/lib/pushbridge/audit.sqlite || fail "the pushbridge user cannot write /var/lib/pushbridge"
    echo '{}' > /etc/pushbridge/a.json
    dpkg -r pushbridge > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -r"; }
    [ ! -e /usr/bin/pushbridge ] || fail "dpkg -r left /usr/bin/pushbridge"
    [ -f /var/lib/pushbridge/audit.sqlite ] && [ -f /etc/pushbridge/a.json ] || fail "dpkg -r deleted the audit or the configuration"
    dpkg -P pushbridge > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -P"; }
    [ ! -e /var/lib/pushbridge ] && [ ! -e /etc/pushbridge ] || fail "dpkg -P left /var/lib/pushbridge or /etc/pushbridge"
    grep -q 'purge deletes /var/lib/pushbridge' "$work/dpkg.log" || fail "purge did not say what it deletes"
    step "install (user and folders), remove (audit kept), purge (audit deleted) ok"
fi
step "ok"
