#!/usr/bin/env python3
"""Splits a `perf record -g` profile of pushbridge into the parts of a request.

    perf script -i perf.data | bench/profile-split.py [CPU_US_PER_REQUEST]

Two tables, each part with its share of the samples and, given the process's CPU per request,
its microseconds per request:
  * by where the sample landed (the leaf): kernel by syscall family, SQLite, libcurl,
    libmicrohttpd, OpenSSL, the Swift runtime (retain/release, malloc/free, concurrency),
    PushBridge's own code by component;
  * by PushBridge component (the nearest PushBridge frame above the leaf that names one), so
    the runtime, libc and kernel time a component causes is counted with it.
Call chains need DWARF unwinding through libc and the Swift runtime
(bench/profile.sh with PROFILE_PERF_CALLGRAPH=dwarf,16384).
"""
import re
import sys
from collections import Counter

COMPONENTS = [  # first match wins, tested from the leaf upwards on PushBridge frames
    ("JSON parse", r"JSONParser|ParsedBody|BodyDecoding|JSONValue.*decod"),
    ("JSON write", r"JSONWriter|JSONEncod|jsonBytes|jsonData|JSONObjectWriter"),
    ("redaction, secret scrub, fingerprints", r"Redaction|SecretScrubber|Scrubb|scrub|Fingerprint|Secrets"),
    ("translation (core)", r"Dialect|Translat|OneSignal|Pushwoosh|BuzzKit|OpenPushCheck|OpenPushRules|FieldAccounting|IdempotencyKeys|OpenPushStart|OpenPushPath"),
    ("logging (access line, findings)", r"EventLog|LogLine|LogField|LogValue|LogRedaction|RFC3339|LogSink|StderrSink"),
    ("metrics", r"Metrics|Histogram|LabeledCounters"),
    ("audit: entry, statements, SQLite, WAL write, fsync", r"Audit|SQLite|AuditEntry"),
    ("upstream: libcurl and its set-up, the loop's curl timer", r"Curl|Upstream|OpenPushForwarder|OpenPushDelivery|SendPacer|PacerSlots"),
    ("admission (credential, app lookup)", r"Admission|Credential|AppDirectory|NULRule"),
    ("HTTP server: libmicrohttpd, exchange", r"HTTPServer|HTTPExchange|MHDConnection|HTTPRequest|HTTPResponse|HTTPHeadRules"),
    ("event loop, deadlines, timers", r"EventLoop|HandlerDeadlines|DeadlineRace|ConnectionWatch|loopMulti"),
    ("pipeline (route, modes, exit, ids)", r"ProxyService|Mode|Router|Placement|Outcome|RequestID|Inbound|Call|Refusal"),
]
COMPONENT_RES = [(name, re.compile(rx)) for name, rx in COMPONENTS]


KERNEL_PARTS = [  # kernel frames of a sample not on the audit's files, first match wins
    (r"timerfd", "kernel: timerfd_settime"),
    (r"epoll", "kernel: epoll"),
    (r"futex", "kernel: futex (thread wake-ups)"),
    (r"tcp|sock|inet|unix_stream|skb|__sys_sendto|recvfrom|sendmsg|recvmsg|ksys_read|ksys_write|vfs_write|vfs_read|pipe|eventfd",
     "kernel: sockets, read/write"),
    (r"page_fault|exc_page|clear_page|do_anonymous|mmap|munmap|brk|madvise", "kernel: page faults, mmap"),
    (r"schedule|switch|irq|softirq|timer", "kernel: scheduling, interrupts"),
]


def kernel_part(frames):
    syms = " ".join(s for s, d in frames if "kernel" in d)
    users = [d for s, d in frames if "kernel" not in d]
    if "sqlite" in " ".join(users) or re.search(r"fdatasync|fsync|ext4|jbd2", syms):
        if re.search(r"fdatasync|fsync", syms):
            return "kernel: fdatasync (audit)"
        return "kernel: audit file I/O (pwrite, read)"
    for rx, name in KERNEL_PARTS:
        if re.search(rx, syms):
            return name
    return "kernel: other syscalls"


def leaf_part(frames):
    sym, dso = frames[0]
    if "kernel" in dso:
        return kernel_part(frames)
    if "sqlite" in dso:
        return "SQLite (user space)"
    if "libcurl" in dso or "libnghttp" in dso:
        return "libcurl"
    if "microhttpd" in dso:
        return "libmicrohttpd"
    if "libcrypto" in dso or "libssl" in dso:
        return "OpenSSL (SHA-256)"
    if "Concurrency" in dso or "dispatch" in dso:
        return "Swift concurrency (task switching, executors)"
    if re.search(r"swift_(retain|release|bridgeObjectRe|unknownObjectRe)|RefCounts|isUniquelyReferenced", sym):
        return "Swift runtime: retain/release"
    if re.search(r"malloc|free|_int_|unlink_chunk|swift_(allocObject|deallocObject|slowAlloc|slowDealloc)|tcache|arena", sym):
        return "allocation (malloc/free)"
    if "pushbridge" in dso and "PushBridge" not in sym:
        return "Swift stdlib (String, Array, Dictionary, hashing)"  # generics specialized into the binary
    if "pushbridge" in dso:
        return "PushBridge code: " + component(frames, leaf_only=True)
    if "libswiftCore" in dso or "libswift" in dso or "Foundation" in dso:
        return "Swift stdlib (String, Array, Dictionary, hashing)"
    if "libc.so" in dso or "ld-linux" in dso or "vdso" in dso:
        return "libc (memcpy, memcmp, clock, other)"
    return "other: " + dso.rsplit("/", 1)[-1]


LIBRARY_COMPONENTS = [  # a library frame met before any named PushBridge frame
    ("sqlite", "audit: entry, statements, SQLite, WAL write, fsync"),
    ("libcurl", "upstream: libcurl and its set-up, the loop's curl timer"),
    ("microhttpd", "HTTP server: libmicrohttpd, exchange"),
]


def component(frames, leaf_only=False):
    """The first frame from the leaf up that names a part: a PushBridge function matching one
    of COMPONENTS, or one of the libraries a part owns."""
    own = [(s, d) for s, d in frames if "pushbridge" in d or any(lib in d for lib, _ in LIBRARY_COMPONENTS)]
    if leaf_only:
        own = [(s, d) for s, d in frames if "pushbridge" in d][:1]
    for sym, dso in own:
        for lib, name in LIBRARY_COMPONENTS:
            if lib in dso:
                return name
        for name, rx in COMPONENT_RES:
            if rx.search(sym):
                return name
    if own:
        return "pipeline (route, modes, exit, ids)"
    if "kernel" in frames[0][1]:
        return "kernel, no PushBridge frame (wake-ups, softirq)"
    return "runtime, no PushBridge frame"


def samples(stream):
    frames, header = [], None
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if header is not None and frames:
                yield header, frames
            frames, header = [], None
            continue
        if not line.startswith((" ", "\t")):
            header = line
            continue
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$", line)
        if m:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
            frames.append((sym, m.group(2)))
    if header is not None and frames:
        yield header, frames


def resolve_inlined(frames):
    """perf lists a function inlined into another before it, with `(inlined)` for its object."""
    out, dso = [], None
    for sym, d in reversed(frames):
        if d == "inlined":
            d = dso or d
        else:
            dso = d
        out.append((sym, d))
    return out[::-1]


def table(title, counts, total, cpu_us):
    print(f"\n{title} ({total} samples" + (f", {cpu_us:.0f} µs of CPU per request" if cpu_us else "") + ")")
    print(f"| part | share | µs/request |\n|---|---|---|")
    for name, n in counts.most_common():
        share = n / total
        print(f"| {name} | {share * 100:.1f} % | {share * cpu_us:.1f} |" if cpu_us else f"| {name} | {share * 100:.1f} % | |")


def main():
    cpu_us = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    leaf, comp, threads = Counter(), Counter(), Counter()
    total = 0
    for header, frames in samples(sys.stdin):
        frames = resolve_inlined(frames)
        total += 1
        leaf[leaf_part(frames)] += 1
        comp[component(frames)] += 1
        threads[re.sub(r"[-0-9]+$", "", header.split()[0])] += 1
    if not total:
        sys.exit("no samples")
    table("By where the sample landed", leaf, total, cpu_us)
    table("By PushBridge component (runtime, libc and kernel time counted with the component that caused it)", comp, total, cpu_us)
    table("By thread", threads, total, cpu_us)


if __name__ == "__main__":
    main()
