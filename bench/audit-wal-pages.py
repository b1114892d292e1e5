#!/usr/bin/env python3
"""Where the SQLite audit's bytes go: every WAL frame audit-bench writes, by the b-tree its page belongs to.

usage: bench/audit-wal-pages.py AUDIT_BENCH_BINARY [ROWS] [CONCURRENCY] [PHASE]

Runs `audit-bench ROWS CONCURRENCY` (defaults 5000 64) with the background checkpoints off
(AUDIT_CHECKPOINT_PAGES=0), so the WAL of the phase (`begin+finish` by default, or `record`) only grows
while it runs; reads it as it grows (the store's close checkpoints and truncates it), then opens a copy of
the file with that WAL and maps every page to its table or index with SQLite's `dbstat`. Prints, per
b-tree: frames written (each a 4 KiB page plus a 24-byte header, written again and again while a page is
the right edge every commit appends to), distinct pages (what one checkpoint at the end copies into the
file), and the bytes of payload the rows hold; then per request, and the row sizes of one request.
"""
import collections
import glob
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time


def capture(binary, rows, concurrency, phase):
    """Runs the bench and returns (db file bytes, WAL bytes) of `phase` as they were before its close."""
    scratch = tempfile.mkdtemp(prefix="audit-wal-")
    env = dict(os.environ, TMPDIR=scratch, AUDIT_CHECKPOINT_PAGES="0")
    process = subprocess.Popen([binary, str(rows), str(concurrency)], env=env, stdout=subprocess.PIPE, text=True)
    wal_path = None
    while wal_path is None and process.poll() is None:
        found = glob.glob(os.path.join(scratch, "audit-bench-*", phase + ".sqlite-wal"))
        if found:
            wal_path = found[0]
        else:
            time.sleep(0.001)
    if wal_path is None:
        raise SystemExit("the bench ended before its %s WAL appeared" % phase)
    with open(wal_path[: -len("-wal")], "rb") as db:
        database = db.read()
    wal = bytearray()
    with open(wal_path, "rb") as handle:
        while True:
            chunk = handle.read(1 << 20)
            if chunk:
                wal += chunk
                continue
            if process.poll() is not None:
                break
            # The close truncates the WAL: a file shorter than what was read means it is over.
            try:
                if os.path.getsize(wal_path) < len(wal):
                    break
            except FileNotFoundError:
                break
            time.sleep(0.002)
    output = process.communicate()[0]
    shutil.rmtree(scratch, ignore_errors=True)
    return database, bytes(wal), output


def frames(wal):
    """(page number, is commit) of every valid frame, and the page size."""
    magic, version, page_size, _, salt1, salt2, _, _ = struct.unpack(">8I", wal[:32])
    result = []
    offset = 32
    while offset + 24 + page_size <= len(wal):
        page, commit_size, s1, s2 = struct.unpack(">4I", wal[offset:offset + 16])
        if (s1, s2) != (salt1, salt2):
            break
        result.append((page, commit_size != 0))
        offset += 24 + page_size
    return result, page_size


def main():
    binary = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    concurrency = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    phase = sys.argv[4] if len(sys.argv) > 4 else "begin+finish"
    database, wal, output = capture(binary, rows, concurrency, phase)
    print(output.strip())
    valid, page_size = frames(wal)
    # Only whole transactions: the frames after the last commit frame are dropped.
    last_commit = max(i for i, (_, commit) in enumerate(valid) if commit)
    valid = valid[: last_commit + 1]
    copy = tempfile.mkdtemp(prefix="audit-wal-copy-")
    path = os.path.join(copy, "audit.sqlite")
    with open(path, "wb") as handle:
        handle.write(database)
    with open(path + "-wal", "wb") as handle:
        handle.write(wal[: 32 + len(valid) * (24 + page_size)])
    connection = sqlite3.connect(path)
    owner = {page: name for name, page in connection.execute("SELECT name, pageno FROM dbstat")}
    payload = dict(connection.execute("SELECT name, sum(payload) FROM dbstat GROUP BY name"))
    requests = connection.execute("SELECT count(*) FROM request_log").fetchone()[0]
    # The transactions before the first request row are the migrations: not counted.
    transactions, current, first_request_tx = [], [], None
    for page, commit in valid:
        current.append(page)
        if commit:
            transactions.append(current)
            current = []
    log_pages = {p for p, n in owner.items() if n == "request_log"}
    for i, pages in enumerate(transactions):
        if any(p in log_pages for p in pages):
            first_request_tx = i
            break
    counted = transactions[first_request_tx:]
    per_tree, distinct = collections.Counter(), collections.defaultdict(set)
    for pages in counted:
        for page in pages:
            name = owner.get(page, "(free or beyond)")
            per_tree[name] += 1
            distinct[name].add(page)
    total_frames = sum(per_tree.values())
    print("\n%s: %d requests, %d transactions (%.1f requests each), %d frames of %d bytes"
          % (phase, requests, len(counted), requests / max(1, len(counted)), total_frames, page_size))
    print("%-28s %9s %9s %10s %10s %12s" % ("b-tree", "frames", "/commit", "KiB/req", "pages", "payload/req"))
    for name, count in per_tree.most_common():
        print("%-28s %9d %9.2f %10.2f %10d %12.0f" % (
            name, count, count / len(counted), count * (page_size + 24) / 1024 / requests, len(distinct[name]),
            (payload.get(name) or 0) / requests))
    all_distinct = sum(len(s) for s in distinct.values())
    print("WAL: %.2f KiB per request; one checkpoint at the end: %.2f KiB per request (distinct pages)"
          % (total_frames * (page_size + 24) / 1024 / requests, all_distinct * page_size / 1024 / requests))
    print("\nrow sizes (bytes of the values, averaged):")
    for table in ("request_log", "request_outcomes", "findings"):
        columns = [row[1] for row in connection.execute("SELECT * FROM pragma_table_info(?)", (table,))]
        sizes = connection.execute("SELECT " + ", ".join("avg(length(CAST(%s AS BLOB)))" % c for c in columns) + " FROM " + table).fetchone()
        count = connection.execute("SELECT count(*) FROM " + table).fetchone()[0]
        print("  %s (%d rows, %.0f bytes a row): " % (table, count, sum(s or 0 for s in sizes))
              + ", ".join("%s %.0f" % (c, s or 0) for c, s in zip(columns, sizes)))
    connection.close()
    shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    main()
