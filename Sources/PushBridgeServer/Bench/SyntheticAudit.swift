/// Fills an audit with ``SyntheticTraffic`` through the proxy's own write path
/// (``AuditStore/record(_:_:)`` and ``AuditStore/record(_:)-(ShadowComparison)``): the
/// store's migrations create the schema and its encoders name every column, so the bench
/// keeps writing complete rows when a migration adds a column or a table (the hand-written
/// `INSERT`s it had before fell behind the schema and crashed it).
public enum SyntheticAudit {
    /// What was written: the figures `report` and `readiness` must find again.
    public struct Totals: Sendable, Equatable {
        /// Requests written.
        public var requests = 0
        /// Requests by `dialect/route`.
        public var byRoute: [String: Int] = [:]
        /// Requests refused by a `rejected` finding (outcome `rejected`, translation kept).
        public var rejected = 0
        /// Findings written, over all requests.
        public var findings = 0
        /// Shadow comparisons written.
        public var comparisons = 0

        /// No rows.
        public init() {}
    }

    /// Requests in flight at once while building: enough for the writer's group commit to
    /// fill its batches.
    static let window = 512

    /// Creates (or opens and migrates) the audit at `path`, writes requests `0..<rows` of
    /// ``SyntheticTraffic`` with their findings and shadow comparisons, and closes it (the WAL
    /// checkpointed into the file). Each write is durable as the proxy's are; the requests
    /// share the writer's transactions (up to 1,000 per commit).
    public static func build(path: String, rows: Int) async throws -> Totals {
        var configuration = AuditStoreConfiguration()
        configuration.maxBatchSize = 1_000
        configuration.instanceName = "report-bench"
        let store = try AuditStore(path: path, configuration: configuration)
        let totals: Totals
        do {
            totals = try await write(rows: rows, to: store)
        } catch {
            await store.close()
            throw error
        }
        // A checkpoint that fails on close leaves the rows in the `-wal`, where readers find them.
        await store.close()
        return totals
    }

    /// Records every request (and its comparison) with at most ``window`` in flight; returns
    /// what it wrote.
    private static func write(rows: Int, to store: AuditStore) async throws -> Totals {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var totals = Totals()
            for i in 0..<max(rows, 0) {
                if i >= window { try await group.next() }
                let request = SyntheticTraffic.request(i, of: rows)
                totals.add(request)
                group.addTask {
                    try await store.record(request.entry, request.completion)
                    if let comparison = request.comparison { try await store.record(comparison, receivedAt: request.entry.receivedAt, appName: request.entry.appName) }
                }
            }
            try await group.waitForAll()
            return totals
        }
    }
}

extension SyntheticAudit.Totals {
    /// Counts one written request.
    mutating func add(_ request: SyntheticTraffic.Request) {
        requests += 1
        byRoute["\(request.entry.dialect?.rawValue ?? "")/\(request.entry.route?.rawValue ?? "")", default: 0] += 1
        if request.completion.outcome == .rejected { rejected += 1 }
        findings += request.entry.findings.count
        if request.comparison != nil { comparisons += 1 }
    }
}
