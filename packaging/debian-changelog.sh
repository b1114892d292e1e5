#!/bin/bash
# Writes CHANGELOG.md (argument 1) as a Debian changelog on stdout: one entry per
# `## VERSION (YYYY-MM-DD)` section, its `- ` bullets as `  * ` items. The package ships it
# gzipped as /usr/share/doc/pushbridge/changelog.gz (Debian policy 12.7, native package).
set -euo pipefail
maintainer=${PUSHBRIDGE_MAINTAINER:-"PushBridge maintainers <pushbridge@example.org>"}
awk -v maintainer="$maintainer" '
function close_entry() {
    if (version == "") return
    cmd = "LC_ALL=C date -u -R -d " date
    cmd | getline stamp; close(cmd)
    printf "\n -- %s  %s\n\n", maintainer, stamp
}
/^## / {
    close_entry()
    version = $2; date = $3; gsub(/[()]/, "", date)
    printf "pushbridge (%s) stable; urgency=medium\n\n", version
    next
}
version != "" && /^- / { sub(/^- /, ""); printf "  * %s\n", $0; next }
version != "" && /^  [^ ]/ { sub(/^  /, ""); printf "    %s\n", $0; next }
END { close_entry() }
' "$1" | sed '$d'
