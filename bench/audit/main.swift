// audit-bench: rows per second the audit writer commits, each durable before its caller is
// resumed (fdatasync of the WAL by the pipelined syncer, or synchronous=FULL with
// AUDIT_PIPELINED=0).
// usage: audit-bench [ROWS] [CONCURRENCY]   (defaults 100000, 64)
// Each row is ~2 KB (inbound body, translation, bodies) with 3 findings. Two phases:
// `record` (one transaction-ful insert per request) and `begin+finish` (the proxy's pattern:
// a pending row before upstream, its completion after). Prints rows/s and the distribution
// of operations per committed transaction. AUDIT_DB=postgresql://… writes to PostgreSQL
// instead (group commit, durable as the server's synchronous_commit). AUDIT_LATENCY=N runs only
// N records from one caller and prints the p50 and p99 of each write's latency. AUDIT_LEDGER=1
// has every completion carry an activity-ledger start (a new activity each), written in the
// same transaction: the ledger's cost per request is the difference from a run without it.
// AUDIT_PG_PREPARED=0 sends PostgreSQL's statements unprepared (parsed and planned per row).
// AUDIT_PG_MULTIROW=unnest sends PostgreSQL each kind of row as one statement over `unnest`ed
// array parameters, `values` as one `INSERT … VALUES (…), (…)` / `INSERT … SELECT … FROM (VALUES …)`;
// `none` one prepared statement per row; unset, as the store ships (`unnest`).
// AUDIT_PG_OVERLAP=0 has the PostgreSQL writer wait for each batch's COMMIT itself (before
// the committer thread overlapped it with the next batch).
import Foundation
import PushBridgeCore
import PushBridgeServer
import Synchronization

let arguments = CommandLine.arguments
let rows = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 64 : 64

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let padding = String(repeating: "x", count: 700)
var template = AuditEntry(
    requestId: "", receivedAt: 0, path: "/api/v1/apps/app-1/activities/activity/Delivery", dialect: .onesignal, route: .start,
    sourceApp: "app-1", targetApp: "op-app", activityType: "Delivery", activityId: "activity", event: "start",
    keyFingerprint: "sha256:0123456789ab", inboundBody: #"{"event":"start","padding":"\#(padding)"}"#,
    translated: #"[{"method":"POST","padding":"\#(padding)"}]"#,
    findings: [
        Finding(field: "dismissal_date", kind: .dropped, message: "OpenPush has no dismissal date on start; dropped"),
        Finding(field: "include_player_ids", kind: .renamed, message: "sent as include_subscription_ids"),
        Finding(field: "headings", kind: .synthesized, message: "made from the activity name"),
    ])
// The proxy's entry says how many OpenPush sends its translation made (``AuditEntry/openPushSends``,
// handed to the writer's rollups as ``AuditRollupCounts``): the bench's too, so the writer does not
// count them in the translated text, which the proxy never makes it do.
template.openPushSends = 1
let completion = AuditCompletion(
    finishedAt: 0, outcome: .forwarded, upstreamStatus: 201, upstreamBody: #"{"id":"n1","padding":"\#(padding.prefix(200))"}"#,
    upstreamLatencyMs: 3.2, attempts: [UpstreamAttempt(startedAt: 0, status: 201, latencyMs: 3.2)], responseStatus: 200,
    responseBody: #"{"id":"n1","padding":"\#(padding.prefix(200))"}"#)

let pipelined = ProcessInfo.processInfo.environment["AUDIT_PIPELINED"] != "0"
let postgres = ProcessInfo.processInfo.environment["AUDIT_DB"]
let durability = postgres != nil ? "committed before ack (PostgreSQL, synchronous_commit as the server has it)"
    : pipelined ? "durable before ack (fdatasync of the WAL)" : "durable before ack (synchronous=FULL)"
let ledger = ProcessInfo.processInfo.environment["AUDIT_LEDGER"] == "1"
/// The completion of request `id`: with a ledger start of a new activity when AUDIT_LEDGER=1.
func completionCarrying(for id: String, at now: Int64) -> AuditCompletion {
    guard ledger else { return completion }
    var carrying = completion
    carrying.ledger = [.started(ActivityRecord(app: "app-1", activityId: "act-" + id, dialect: .onesignal, holder: .openpush, startedAt: now,
                                               cohortKey: "sha256:0123456789ab", requestId: id))]
    return carrying
}
let findingCount = ProcessInfo.processInfo.environment["AUDIT_FINDINGS"].flatMap { Int($0) } ?? 3
let entryTemplate = { () -> AuditEntry in
    var entry = template
    entry.findings = (0..<findingCount).map { template.findings[$0 % template.findings.count] }
    return entry
}()

func run(phase: String, pairs: Bool) async throws {
    let histogram = Mutex([Int: Int]())
    var configuration = AuditStoreConfiguration()
    if let text = ProcessInfo.processInfo.environment["AUDIT_PAGE_SIZE"], let size = Int(text) { configuration.pageSize = size }
    configuration.pipelinedSync = pipelined
    if let text = ProcessInfo.processInfo.environment["AUDIT_CACHE_KIB"], let kib = Int(text) { configuration.cacheKiB = kib }
    if let text = ProcessInfo.processInfo.environment["AUDIT_CHECKPOINT_PAGES"], let pages = Int(text) { configuration.walAutocheckpointPages = pages }
    configuration.postgresPreparedStatements = ProcessInfo.processInfo.environment["AUDIT_PG_PREPARED"] != "0"
    configuration.postgresOverlappedCommits = ProcessInfo.processInfo.environment["AUDIT_PG_OVERLAP"] != "0"
    switch ProcessInfo.processInfo.environment["AUDIT_PG_MULTIROW"] {
    case "unnest": configuration.postgresMultiRow = .unnest
    case "values": configuration.postgresMultiRow = .values
    case "none": configuration.postgresMultiRow = nil
    default: break
    }
    let busy = Mutex(Duration.zero)
    configuration.onCommit = { sample in
        histogram.withLock { $0[sample.batchSize, default: 0] += 1 }
        busy.withLock { $0 += sample.writeDuration }
    }
    let store = try AuditStore(path: postgres ?? directory.appendingPathComponent("\(phase).sqlite").path, configuration: configuration)
    let perCaller = rows / concurrency
    let clock = ContinuousClock()
    let cpuBefore = processCPUSeconds()
    let writtenBefore = processBytesWritten()
    let elapsed = try await clock.measure {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    for _ in 0..<perCaller {
                        var entry = entryTemplate
                        // Time-sortable ids, as the proxy makes them: inserts land at the indexes' right edge.
                        entry.receivedAt = AuditClock.nowMilliseconds()
                        entry.requestId = RequestID.make(nowMs: entry.receivedAt)
                        let finished = completionCarrying(for: entry.requestId, at: entry.receivedAt)
                        if pairs {
                            try await store.begin(entry)
                            try await store.finish(entry.requestId, finished)
                        } else {
                            try await store.record(entry, finished)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    await store.close()
    let cpuSeconds = processCPUSeconds() - cpuBefore
    let written = processBytesWritten() - writtenBefore
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let total = perCaller * concurrency
    let statistics = store.statistics
    print("\(phase)\(ledger ? " with a ledger start" : ""): \(total) rows, \(concurrency) callers, \(String(format: "%.2f", seconds)) s, \(Int(Double(total) / seconds)) rows/s (target 50000), \(durability), \(statistics.transactions) transactions, waited for room \(statistics.waitedForRoom)")
    let buckets: [(String, ClosedRange<Int>)] = [("1", 1...1), ("2-9", 2...9), ("10-31", 10...31), ("32-63", 32...63), ("64-99", 64...99), ("100+", 100...Int.max)]
    let counts = histogram.withLock { $0 }
    let line = buckets.map { name, range in
        "\(name): \(counts.filter { range.contains($0.key) }.values.reduce(0, +))"
    }.joined(separator: "  ")
    print("  ops per transaction: \(line)")
    let busySeconds = busy.withLock { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    print("  process CPU: \(String(format: "%.1f", cpuSeconds * 1e6 / Double(total))) µs per row (user+system, all threads); \(String(format: "%.1f", Double(written) / Double(max(total, 1)) / 1024)) KiB written per row (WAL and checkpoints)")
    if postgres != nil {
        let form = (configuration.postgresMultiRow.map { "multi-row (\($0.rawValue))" } ?? "one per row")
            + (configuration.postgresOverlappedCommits ? ", commits overlapped" : "")
        print("  statements sent: \(statistics.statementsSent) (\(form)), \(String(format: "%.1f", Double(statistics.statementsSent) / Double(max(statistics.transactions, 1)))) per transaction")
    }
    print("  writer busy in transactions: \(String(format: "%.2f", busySeconds)) s of \(String(format: "%.2f", seconds)) s")
}

/// Bytes this process has passed to write calls so far (`wchar` of /proc/self/io), 0 when unknown.
func processBytesWritten() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
    let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") }
    return line.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
}

/// User plus system CPU time of the whole process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let seconds = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// One caller, `count` records one after another: the latency a request adds by its audit write.
func latency(count: Int) async throws {
    let store = try AuditStore(path: postgres ?? directory.appendingPathComponent("latency.sqlite").path)
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<count {
        var entry = entryTemplate
        entry.receivedAt = AuditClock.nowMilliseconds()
        entry.requestId = RequestID.make(nowMs: entry.receivedAt)
        let finished = completionCarrying(for: entry.requestId, at: entry.receivedAt)
        let elapsed = try await clock.measure { try await store.record(entry, finished) }
        samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    await store.close()
    samples.sort()
    let at = { (q: Double) in samples[min(samples.count - 1, Int((q * Double(samples.count)).rounded(.up)) - 1)] }
    print("latency: \(count) records, 1 caller, p50 \(String(format: "%.3f", at(0.5))) ms, p99 \(String(format: "%.3f", at(0.99))) ms, \(durability)")
}

if let text = ProcessInfo.processInfo.environment["AUDIT_LATENCY"], let count = Int(text), count > 0 {
    try await latency(count: count)
} else {
    try await run(phase: "record", pairs: false)
    try await run(phase: "begin+finish", pairs: true)
}
