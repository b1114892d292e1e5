// alloc-count: allocations per request through PushBridge's whole pipeline (issue 31, item 5).
// usage: alloc-count [--root DIR] [--warm-up N] [--rounds R] [--requests M] [--audit-dir DIR] [--sites K] [--site-lines L]
// Linked with the counting allocator (Sources/CAllocationCounter: malloc, calloc, realloc,
// free and the aligned ones forwarded to glibc's own, counted while on); `pushbridge` is not.
// In this process: `pushbridge serve`'s runtime (ProxyRuntime, the listener on 127.0.0.1, the
// audit in a durable SQLite file in a temp dir), an OpenPush stand-in answering 201 on loopback
// and a keep-alive caller, both on threads whose allocations are not counted. For a OneSignal
// start and a Pushwoosh start of three notifications: N warm-up requests, then R rounds of M
// requests counted, and the round with the fewest allocations, per request: over HTTP (every
// thread of PushBridge, by thread), in-process through ProxyService.handle (no HTTP server),
// and stages alone (RequestPathStages: admission, translation, audit entry, audit writes); the
// rest is the difference. The last line per request is `RESULT case=… allocations=…` for
// bench/run.sh and AllocationGuardTests. With --sites K, one more round over HTTP samples every
// K-th allocation's call stack and lists the lines of Sources/ that allocate, per request
// (AllocationSites: llvm-symbolizer and swift-demangle on PATH), the first L of them (80 unless
// --site-lines says).
// Exit status 0, 1 when a request failed (stderr says which), 2 for a bad argument.
import Foundation

/// The usage line, on stderr, and exit 2.
func usage() -> Never {
    FileHandle.standardError.write(Data("usage: alloc-count [--root DIR] [--warm-up N] [--rounds R] [--requests M] [--audit-dir DIR] [--sites K] [--site-lines L]   (N ≥ 0, R, M, K and L ≥ 1)\n".utf8))
    exit(2)
}

var options = AllocationRun.Options()
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { usage() }
    switch flag {
    case "--root": options.root = value
    case "--audit-dir": options.auditDirectory = value
    case "--warm-up": guard let n = Int(value), n >= 0 else { usage() }; options.rounds.warmUp = n
    case "--rounds": guard let n = Int(value), n >= 1 else { usage() }; options.rounds.rounds = n
    case "--requests": guard let n = Int(value), n >= 1 else { usage() }; options.rounds.requests = n
    case "--sites": guard let n = Int(value), n >= 1 else { usage() }; options.sitesEvery = n
    case "--site-lines": guard let n = Int(value), n >= 1 else { usage() }; options.siteLines = n
    default: usage()
    }
}
do {
    exit(try await AllocationRun.run(options) ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("alloc-count: \(error)\n".utf8))
    exit(1)
}
