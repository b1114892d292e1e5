#!/bin/bash
# make package: builds dist/pushbridge_<version>_<arch>.deb from a release build with the Swift
# runtime and Foundation linked statically (--static-swift-stdlib), so that the binary needs
# only Debian's own libraries, which `Depends` declares as dpkg-shlibdeps computes them from
# the libraries the binary links on this machine.
#
# The build has its own scratch folder (.build/package) so it never invalidates `make run`'s
# or the tests' builds, and is stamped with the commit and date through the generated
# Sources/pushbridge/Version/BuildStamp+Generated.swift (not in git), rewritten only when
# they change. Prints the path of the .deb on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=$(packaging/version.sh)
arch=$(dpkg --print-architecture)
maintainer=${PUSHBRIDGE_MAINTAINER:-"PushBridge maintainers <pushbridge@example.org>"}
scratch=.build/package
stage=$scratch/deb-root
deb=dist/pushbridge_${version}_${arch}.deb

# 1. The stamp: the commit (with -dirty for uncommitted changes) and the build date (UTC,
#    SOURCE_DATE_EPOCH when set, for a reproducible build).
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && ! git diff --quiet HEAD -- Sources Package.swift 2>/dev/null; then commit="$commit-dirty"; fi
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
stamp_file=Sources/pushbridge/Version/BuildStamp+Generated.swift
stamp=$(cat <<SWIFT
// Written by packaging/build-deb.sh for a stamped build (-DPUSHBRIDGE_STAMPED); not in git.
#if PUSHBRIDGE_STAMPED
/// The commit and build date of this packaged build.
enum BuildStamp {
    /// The git commit the binary was built from.
    static let commit = "$commit"
    /// The build date, UTC, \`YYYY-MM-DD\`.
    static let date = "$date"
}
#endif
SWIFT
)
[ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] || printf '%s\n' "$stamp" > "$stamp_file"

# 2. The static release build, linked with -z now (full RELRO: lintian hardening-no-bindnow).
swift build -c release --static-swift-stdlib --product pushbridge --scratch-path "$scratch" -Xswiftc -DPUSHBRIDGE_STAMPED -Xlinker -z -Xlinker now
binary=$scratch/release/pushbridge
if ldd "$binary" | grep -E '/opt/swift|swift' >&2; then
    echo "build-deb.sh: $binary still loads a library from the Swift toolchain (above)" >&2
    exit 1
fi

# 3. The tree the package installs.
rm -rf "$stage"
doc=$stage/usr/share/doc/pushbridge
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system" "$doc/examples" \
    "$stage/usr/share/man/man1" "$stage/usr/share/lintian/overrides" "$stage/etc/pushbridge" "$stage/var/lib/pushbridge"
install -m 0755 "$binary" "$stage/usr/bin/pushbridge"
strip --strip-unneeded --remove-section=.comment "$stage/usr/bin/pushbridge"
install -m 0644 deploy/pushbridge@.service "$stage/lib/systemd/system/pushbridge@.service"
install -m 0644 README.md CHANGELOG.md docs/*.md "$doc/"
install -m 0644 packaging/debian/copyright "$doc/copyright"
packaging/debian-changelog.sh CHANGELOG.md | gzip -9n > "$doc/changelog.gz"
install -m 0644 config/pushbridge.example.json packaging/pushbridge.example.env config/demo.json config/demo-seed.json \
    deploy/nginx-pushbridge.conf deploy/prometheus/pushbridge.rules.yml "$doc/examples/"
gzip -9n < packaging/pushbridge.1 > "$stage/usr/share/man/man1/pushbridge.1.gz"
install -m 0644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/pushbridge"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
find "$stage" -type d -exec chmod 0755 {} +

# 4. Depends: the Debian libraries the binary links, at the versions this machine's symbols
#    files ask for (libc6, libcurl4, libmicrohttpd12, libsqlite3-0, libpq5, libssl3, …), plus
#    adduser for postinst and procps for the unit's ExecReload=/bin/kill.
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: pushbridge\n\nPackage: pushbridge\nArchitecture: any\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$root/$stage/usr/bin/pushbridge" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependency" >&2; exit 1; }

# 5. The control file and the checksums, then the archive.
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$size|" -e "s|@DEPENDS@|adduser, procps, $depends|" packaging/debian/control.in > "$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
mkdir -p dist
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
echo "$deb"
