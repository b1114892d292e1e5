import Foundation
import PushBridgeTestSupport
import Testing

/// The allocation guard of issue 31 (item 5): `alloc-count` (`bench/alloc`, linked with the
/// counting allocator `Sources/CAllocationCounter`) runs a OneSignal start and a Pushwoosh start
/// of three through `pushbridge serve`'s whole runtime in its own process (HTTP on 127.0.0.1,
/// durable SQLite audit, an OpenPush stand-in on loopback) after a warm-up, and counts the
/// allocations per request. Counts, not times: the machine's load changes how long a request
/// takes, not how many allocations it makes, and the fewest of several rounds leaves out a
/// round that met a periodic task.
@Suite(.serialized) struct AllocationGuardTests {
    /// Allocations per request of the debug build `make test` runs (`swift build --build-tests`):
    /// the highest count `alloc-count` measured in several runs plus a margin of 5 %, for what
    /// the HTTP server's part varies by from run to run (2 % seen: how often the loop turns for
    /// a request depends on timing; the in-process part moves by less than 0.2 %).
    ///
    /// Measured 2026-12-06 (branch `bench` on `main` 5cac8a2), warm: OneSignal start
    /// 3,068–3,131, Pushwoosh start of three 6,061–6,199 (of them in-process 2,857–2,863 and
    /// 5,788–5,795).
    ///
    /// How to update (after a change that makes a request allocate more on purpose, or less):
    /// `swift build --product alloc-count`, then run
    /// `.build/debug/alloc-count --warm-up 200 --rounds 4 --requests 20` three times from the
    /// repository root, take each case's highest `allocations=` from its `RESULT` lines, add
    /// 5 %, write it here with the date and say why in the commit. A release build allocates
    /// less; `make bench` prints its count against issue 31's target (≤ 80 for a OneSignal start).
    ///
    /// Re-measured 2026-12-06 after the merge of issue 30's log and rollups and issue 31's
    /// redaction over bytes (`main` after 5cac8a2): OneSignal start 3,724–3,747, Pushwoosh start
    /// of three 7,392–7,462. Where it grew, per OneSignal start in this debug build: the audit
    /// writes +300 (the writer folds each batch into per-minute rollups: its key strings and
    /// dictionaries), the audit entry +370 (the byte redaction's span arrays, unoptimized here:
    /// in a release build the audit entry is 43 allocations and the whole OneSignal start 804,
    /// `make bench`'s row).
    ///
    /// Re-measured 2026-12-06 after the rollup fold was made cheap (branch `fold`, interned
    /// integer keys, counts handed over, upsert SQL made once), three runs each of this debug
    /// build against the same build of `a2e9797`: OneSignal start 3,724–3,740 → 3,664–3,674,
    /// Pushwoosh start of three 7,351–7,451 → 7,271–7,289; pins lowered from 3,935 and 7,835 to
    /// the new highest plus 5 %. That margin is larger than what the fold saved in this
    /// unoptimized build (about 65 and 120; in a release build 85 and 145 of 810 and 1,961,
    /// the audit writer's thread 206 → 126 and 354 → 197), so the fold's own saving is held by
    /// ``pinnedAuditWrites`` below.
    /// Lowered 2026-12-06 (branch `alloc`, issue 31's "fewer allocations per request"):
    /// OneSignal start 3,367–3,390, Pushwoosh start of three 6,500–6,563 in this debug build
    /// (about −350 and −900 from the figures above; release 803 → 573 and 1,963 → 1,277,
    /// `docs/benchmarks.md`, "Fewer allocations per request"). What went down: the activity
    /// ledger's read compiled its query every time (−130 per activity read in release: its
    /// statements now stay compiled), OpenSSL's one-shot digests (five allocations per
    /// fingerprint and UUIDv5), Dictionary `modify` accessors in `ConnectionWatch` and the
    /// finding log limiter (a heap coroutine frame each), the limiter's interpolated keys,
    /// the findings metric's index folding, lower-cased copies of header names, request header
    /// values copied twice, and the NUL rule spelling every body member's path. A change that
    /// brings any of them back fails here.
    /// Lowered 2026-12-06 (branch `parse`, the cheaper translation of issue 31 item 1: key
    /// fingerprints, the body writer, objects reserving their members): OneSignal start
    /// 3,489–3,510 (at `a2e9797` on the same machine and run 3,718–3,748), Pushwoosh start of
    /// three 6,933–7,044 (was 7,383–7,465); the stages that fell are translation (434 → 251 and
    /// 1,223 → 908) and admission's parse (899 → 851 and 1,190 → 1,096).
    ///
    /// All three branches merged (`fold`, `alloc`, `parse`, lead, 2026-12-06): OneSignal start
    /// 3,051.7–3,055.5, Pushwoosh start of three 5,921.9–5,925.8 in this debug build (two runs,
    /// `.build/debug/alloc-count --warm-up 200 --rounds 4 --requests 20`); pinned at the highest
    /// plus 5 %.
    ///
    /// Then the audit's translated copy redacted over bytes and the key scans' index loops
    /// (branch `redact2`): 2,595.7–2,596.7 and 4,913.9–4,927.4 (two runs, same command);
    /// pinned at the highest plus 5 %.
    ///
    /// Then the route matched over the path's bytes, findings' sentences built as bytes and the
    /// dialects' field names interned by the shared parse (branch `bytesparse`, issue 31 item 1):
    /// 2,308.8–2,315.3 and 4,837.9–4,852.9 (three runs, same command; admission 652 → 448 and
    /// 1,220 → 913); pinned at the highest plus 5 %.
    ///
    /// Then SQLite and libcurl allocating through the per-thread block cache
    /// (`Sources/CBlockCache`), the loop's job batch, due timers and request ids without their
    /// arrays, and the OpenPush key headers made once per key (branch `allocs`, "Allocations per
    /// request, fourth pass" in `docs/benchmarks.md`): 2,123.8–2,134.2 and 4,437.3–4,468.6
    /// (three runs, same command; the same build without them, 2,310.4 and 4,847.4); pinned
    /// at the highest plus 5 %, under what the code before them makes.
    ///
    /// Merged with the hourly rollups (branch `rollhour`: the fold writes both levels), findings
    /// inline (`inline`) and the idle loop's signal (`ctxsw2`), lead, 2026-12-06: 2,261.4–2,266.5
    /// and 4,766.6–4,803.2 (three runs, same command); pinned at the highest plus 5 %.
    ///
    /// Then the cuts outside the translation (branch `allocs2`, "Allocations per request, fifth
    /// pass" in `docs/benchmarks.md`: libmicrohttpd's answer headers without a copy of each
    /// string, the writer's batch, rollup and acknowledgement arrays, the log line's arrays, a
    /// start's update-repeat key): 2,150.8–2,160.8 and 4,620.1–4,639.8 (three runs, same
    /// command); with the scrubber of the secrets before authentication made once per set
    /// (`SecretScrubberCache`), 1,835.0–1,854.5 and 4,314.9–4,334.8 (three runs); pinned at the
    /// highest plus 5 %, far under what the code before them makes.
    ///
    /// Then the sixth pass (branch `allocs3`, "Allocations per request, sixth pass" in
    /// `docs/benchmarks.md`: the audit's redaction sweeping with the request's own scrubber, the
    /// rollup fold's upserts without arrays of their own, the OpenPush URL in one string): the
    /// merged `main` before it 1,872.8–1,878.6 and 4,335.6–4,383.4 (two runs, same command),
    /// the branch 1,458.5–1,469.2 and 3,900.6–3,950.8 (three runs); pinned at the highest plus
    /// 5 %, under what `main` made before.
    ///
    /// With the profile-guided translation merged too (branch `translate`: the OpenPush payload
    /// boxed, sentences written into one buffer, field paths made only for findings):
    /// 1,449.7–1,456.2 and 3,892.5–3,906.2 (six runs of the merged tree, same command); pinned
    /// at the highest plus 5 %.
    ///
    /// Then the seventh pass (branch `allocs4`, "Allocations per request, seventh pass" in
    /// `docs/benchmarks.md`: the answer's body handed to libmicrohttpd without a copy, the
    /// findings metric's folded paths kept, the handler task adopted without arrays, the log
    /// line's fields on the stack, the kept scrubber set found without its array, and smaller
    /// ones): 1,353.3–1,370.0 and 3,699.3–3,753.4 (five runs, same command; the branch's start,
    /// `397f52e`, 1,456.8–1,471.5 and 3,884.8–3,894.2 in two runs). The OneSignal start is
    /// pinned at the highest plus 5 %; the Pushwoosh start of three at the highest plus 3 %
    /// (its five runs spread by 1.5 %), for plus 5 % would sit above what the code before makes.
    ///
    /// Then the eighth pass (branch `allocs5`, "Allocations per request, eighth pass" in
    /// `docs/benchmarks.md`: the ledger's record read without temporary b-trees, the findings'
    /// inline list in one reserved buffer and indexed loops), 2026-12-07, five runs of this debug
    /// build, same command: OneSignal start 1,313.0–1,320.3, Pushwoosh start of three
    /// 3,551.7–3,594.9 (the same build with `main`'s two files, two runs: 1,346.1–1,358.7 and
    /// 3,705.6–3,724.4). Pinned at the highest plus 5 %, as the comment above says (both sit
    /// above what the code before makes here; ``pinnedAuditWrites`` holds the list's cut).
    ///
    /// Lowered 2026-12-07 (branch `allocs6`, issue 31's ninth pass: the idempotency keys set in
    /// the translation's own arrays with their UUIDs on the stack, the exit's request id header
    /// appended in place, the access line's fields on the stack and each logfmt line written
    /// once into its string), three runs of this debug build, same command: OneSignal start
    /// 1,184.5–1,231.0, Pushwoosh start of three 3,483.1–3,516.3 (release: 174 → 165 and
    /// 410 → 388). Pinned at the highest plus 5 %; the audit writes' pins below are unchanged
    /// (401.2–402.9 and 913.1–924.5 here, not this pass's).
    ///
    /// Lowered 2026-12-07 (branch `allocs7`, issue 31's tenth pass: a caller's credential
    /// checked with its digest on the stack and no arrays, the app's idempotency scope made
    /// once with the app), three runs of this debug build, same command: OneSignal start
    /// 1,191.7–1,196.0, Pushwoosh start of three 3,489.4–3,507.8 (release: 159.6 → 154 and
    /// 382 → 376). Pinned at the highest plus 5 %; the audit writes' pins below are unchanged
    /// (396.2–400.6 and 915.0–935.1 here, not this pass's).
    ///
    /// Lowered 2026-12-07 (branch `allocs8`, issue 31's eleventh pass: the redaction scan's
    /// open containers on the stack, the audit envelope written into one array of its room,
    /// ASCII keys told secret on their bytes, the handler's task with one closure), three runs
    /// of this debug build, same command: OneSignal start 1,149.7–1,169.5, Pushwoosh start of
    /// three 3,362.8–3,381.3 (release: 153 → 146.5 and 374 → 364.5). Pinned at the highest
    /// plus 5 %; the audit writes' pins below are unchanged (397.9–403.2 and 918.6–930.7 here,
    /// not this pass's). Lowered again after the pass's third cut (the redacted texts written
    /// straight into their strings): 1,152.2–1,159.2 and 3,365.3–3,375.2 (three runs; release
    /// 153 → 144.5 and 375 → 362.5), pinned at the highest plus 5 %; the audit writes
    /// 399.8–403.4 and 910.8–914.6, their pins unchanged.
    ///
    /// Lowered 2026-12-07 (branch `upstream3`: an upstream call's header lines and body copy
    /// one block, no object of their own: 2 fewer a call), by what the cut removes (2 a call,
    /// 3 calls in the Pushwoosh start): three runs of this debug build, same command,
    /// 1,123.2–1,164.2 and 3,374.6–3,394.6, spread wider than the cut. Merged with `translate8`
    /// (the OneSignal start's two findings in one block: 1,218 → 1,213 there), the lower of each.
    ///
    /// Lowered 2026-12-07 (branch `translate9`: the JSON writer's walk and the parser's key
    /// stack without their array operations, a field reader without its array of slots, the
    /// OneSignal segment lists without an array of `String`s; release: 19 → 17 and 109 → 101 a
    /// translation), three runs of this debug build, same command: OneSignal start
    /// 1,110.2–1,122.2, Pushwoosh start of three 3,199.8–3,241.2 (translation stage 83 → 42 and
    /// 502 → 358; the same build of the branch's base `38c66a1`, two runs: 1,156.8–1,175.9 and
    /// 3,399.3–3,403.3). Pinned at the highest plus 5 %.
    ///
    /// Lowered 2026-12-08 with `allocs9` merged beside `translate9` (the handler's task kept
    /// between requests, the modes boxed once, header names lower-cased in place, the request
    /// id line and the attempts text without arrays; release 137.3 → 115.5 and 342.6 → 318.6
    /// before the merge), three runs of the merged tree's debug build, same command: OneSignal
    /// start 1,079.2–1,091.7, Pushwoosh start of three 3,153.0–3,182.4 (the audit writes
    /// 396.2–400.1 and 904.3–919.2, their pins unchanged). Pinned at the highest plus 5 %.
    static let pinned: [String: Double] = [
        "onesignal-start": 1_147,
        "pushwoosh-start-of-three": 3_342,
    ]

    /// Allocations per request of the in-process `audit writes` stage (`stage_audit_writes`:
    /// the begin and finish of a request's row, the writer's rollup fold included), which moves
    /// by far less than the whole request (no HTTP loop in it). Measured 2026-12-06 with the
    /// cheap fold (branch `fold`): 482–485 and 1,055–1,057, against 530–548 and 1,106–1,159 with
    /// the text-keyed fold of `a2e9797`; pinned at the highest plus 3 % and 2.5 %, under the old
    /// fold's lowest, so the fold's allocations coming back fails here.
    ///
    /// With SQLite allocating through the block cache (branch `allocs`): 397.9–399.0 and
    /// 880.3–883.4 (three runs; 499.6 and 1,037.9 without it): pinned at the highest plus 3 %
    /// and 2.5 %, so SQLite's own mallocs per statement coming back fails here.
    ///
    /// With the hourly rollups' second level in the fold (branch `rollhour`) and findings inline
    /// in the intent (`inline`), merged: 529.2–533.1 and 1,160.0–1,204.0 (three runs); pinned
    /// at the highest plus 3 % and 2.5 %.
    ///
    /// With the writer's batch, rollup and acknowledgement arrays cut (branch `allocs2`):
    /// 465.4–474.1 and 1,100.0–1,136.0 (six runs); pinned at the highest plus 3 % and 2.5 %.
    ///
    /// With the busiest minute's table folded too (branch `busyminute`: one more counter per
    /// request) and the PostgreSQL carry merged: 493.2–505.4 and 1,144.2–1,156.0 (five runs of
    /// the merged tree, two of them inside the whole suite); pinned at the highest plus 3 % and 2.5 %.
    ///
    /// With the rollup fold's upserts appended straight to the batch, their sorted rows and value
    /// arrays reused from batch to batch (branch `allocs3`): 422.6–426.2 and 1,043.0–1,056.2
    /// (three runs; `main` before it 497.9–500.2 and 1,119.4–1,144.0); pinned at the highest plus
    /// 3 % and 2.5 %, so the per-batch arrays coming back fails here.
    ///
    /// Eighth pass (branch `allocs5`: the findings' inline list reserved once and written with
    /// indexed loops, which allocate nothing per step unoptimized): five runs 393.6–404.4 and
    /// 873.2–924.1, 2026-12-07 (the same build with `main`'s `AuditRowEncoding`, four runs:
    /// 414.9–419.2 and 1,016–1,031); pinned at the highest plus 3 % and 2.5 %, the Pushwoosh
    /// start's under what the code before makes.
    static let pinnedAuditWrites: [String: Double] = [
        "onesignal-start": 417,
        "pushwoosh-start-of-three": 947,
    ]

    /// The arguments the guard runs with. The warm-up matters: the HTTP server's part settles
    /// only after about 100 requests (after 30 it is 300 to 1,800 allocations per request
    /// higher), so 200 go first; the fewest of four rounds leaves a round that met a periodic
    /// task out.
    static let arguments = ["--warm-up", "200", "--rounds", "4", "--requests", "20"]

    /// Each request's count is at most its pin; the failure says by how much and where
    /// (PushBridge's threads and the stages alloc-count splits the request into).
    @Test func aOneSignalStartAndAPushwooshStartOfThreeAllocateNoMoreThanPinned() async throws {
        let output = try await Self.run(Self.arguments)
        #expect(output.status == 0, "alloc-count failed: \(output.stderr)")
        let results = Self.results(output.stdout)
        #expect(Set(results.keys) == Set(Self.pinned.keys), "RESULT lines: \(output.stdout)")
        for (name, pin) in Self.pinned.sorted(by: { $0.key < $1.key }) {
            let fields = try #require(results[name], "no RESULT for \(name): \(output.stdout)")
            let allocations = try #require(fields["allocations"].flatMap(Double.init))
            // A counter that counts nothing would pass any pin: the allocator must be interposed.
            #expect(allocations > 0 && fields["in_process"].flatMap(Double.init).map { $0 > 0 } == true, "\(name): nothing counted: \(output.stdout)")
            #expect(allocations <= pin, """
                \(name): \(allocations) allocations per request, pinned at \(pin) (\(String(format: "%+.1f", allocations - pin))). \
                Where, per request:
                \(Self.block(of: name, in: output.stdout))
                If the new allocations are meant, update AllocationGuardTests.pinned as its comment says.
                """)
            let writes = try #require(fields["stage_audit_writes"].flatMap(Double.init), "\(name): no stage_audit_writes: \(output.stdout)")
            let writesPin = try #require(Self.pinnedAuditWrites[name])
            #expect(writes > 0 && writes <= writesPin, """
                \(name): the audit writes stage makes \(writes) allocations per request, pinned at \(writesPin) \
                (the writer's rollup fold is in it: AuditRollupFold). If they are meant, update AllocationGuardTests.pinnedAuditWrites.
                """)
        }
    }

    /// The counting allocator is in `alloc-count` and nowhere else: the proxy's binary has none
    /// of its symbols, so `pushbridge` allocates through glibc alone.
    @Test func pushbridgeHasNoCountingAllocator() throws {
        let counter = Array("pb_alloc_counting".utf8)
        let pushbridge = try Data(contentsOf: Repository.url(".build/debug/pushbridge"))
        let allocCount = try Data(contentsOf: Repository.url(".build/debug/alloc-count"))
        #expect(allocCount.range(of: Data(counter)) != nil, "alloc-count should hold the counter")
        #expect(pushbridge.range(of: Data(counter)) == nil, "pushbridge must not link CAllocationCounter")
    }

    /// A bad argument gets the usage line and status 2, not a run with defaults.
    @Test(arguments: [["--rounds", "0"], ["--requests", "x"], ["--bogus", "1"], ["--root"], ["--site-lines", "0"]])
    func aBadArgumentGetsTheUsage(_ arguments: [String]) async throws {
        let output = try await Self.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains("usage: alloc-count"))
        #expect(output.stdout.isEmpty)
    }

    /// Runs the built `alloc-count` from the repository root.
    static func run(_ arguments: [String]) async throws -> CLIRunner.Output {
        let binary = Repository.url(".build/debug/alloc-count")
        return try await offPool { try CLIRunner.runProcess(binary, arguments, directory: Repository.root) }
    }

    /// Each `RESULT case=NAME key=value …` line's fields, by case name.
    static func results(_ stdout: String) -> [String: [String: String]] {
        var found: [String: [String: String]] = [:]
        for line in stdout.split(separator: "\n") where line.hasPrefix("RESULT ") {
            var fields: [String: String] = [:]
            for pair in line.dropFirst(7).split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            if let name = fields["case"] { found[name] = fields }
        }
        return found
    }

    /// The lines alloc-count printed for case `name` (its by-thread and by-stage rows).
    static func block(of name: String, in stdout: String) -> String {
        let title = name.replacingOccurrences(of: "-", with: " ")
        var lines: [Substring] = []
        var inside = false
        for line in stdout.split(separator: "\n") {
            if line == title { inside = true; continue }
            if inside && line.hasPrefix("RESULT ") { break }
            if inside { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }
}
