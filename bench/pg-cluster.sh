#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the audit benchmark, as the tests start one: Debian's
# initdb and pg_ctl run as the postgres user on a data directory under DIR, listening on
# 127.0.0.1:PORT, trust authentication on loopback. fsync stays on (the default), so the
# figures include PostgreSQL's WAL flush at every commit (synchronous_commit = on).
# usage: bench/pg-cluster.sh start DIR PORT | stop DIR   (PG_MAX_CONNECTIONS, default 50)
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
case "$1" in
  start)
    mkdir -p "$2"; chown postgres:postgres "$2"
    runuser -u postgres -- "$bin/initdb" -D "$2/data" -A trust -U postgres -E UTF8 --locale=C >/dev/null
    runuser -u postgres -- "$bin/pg_ctl" -D "$2/data" -l "$2/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $3 -k $2 -c max_connections=${PG_MAX_CONNECTIONS:-50}" start >/dev/null ;;
  stop)
    runuser -u postgres -- "$bin/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$2" ;;
esac
