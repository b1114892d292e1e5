import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, "readiness over 1,000,000 rows ≤ 2 s": readiness's shadow figures (comparisons,
/// disagreements and their cells with examples, expected gaps, OpenPush as the shadow: its
/// calls, errors, 429s and gaps) come from `rollup_shadow_hourly` for a window's whole hours
/// (``AuditRollupShadowSchema``), and are exactly what the comparisons joined to the log give
/// (a reader that ignores the rollups), on both engines, live, after a comparison is replaced,
/// after the migration counts an existing audit and after pruning.
@Suite(.serialized) struct ShadowRollupTests {
    /// The comparison request `i` of ``ReportRollupTests``'s mix gets, if any (none for a
    /// rejected one): every 5th OpenPush as the primary with the legacy provider as the shadow
    /// (201, 400 or timed out), every 5th + 2 the legacy provider as the primary with OpenPush
    /// as the shadow, whose answer cycles through 201, both population gaps, a 429, a 500 and
    /// a timeout; every 45th + 2 skipped for live traffic.
    static func comparison(_ i: Int, _ request: SyntheticTraffic.Request) -> ShadowComparison? {
        guard request.completion.outcome != .rejected, i % 5 == 0 || i % 5 == 2, let dialect = request.entry.dialect, let route = request.entry.route else { return nil }
        let legacy: ShadowComparison.Side = switch i % 3 {
        case 0: .init(provider: "legacy:\(dialect.rawValue)", status: 400, body: #"{"errors":["status differs"]}"#, latencyMs: 12, error: nil)
        case 1: .init(provider: "legacy:\(dialect.rawValue)", status: 201, body: #"{"id":"l1"}"#, latencyMs: 11, error: nil)
        default: .init(provider: "legacy:\(dialect.rawValue)", status: i % 2 == 0 ? nil : 201, body: nil, latencyMs: nil, error: i % 2 == 0 ? "timed out" : nil)
        }
        var openPush: ShadowComparison.Side = switch i % 7 {
        case 1: .init(provider: "openpush", status: 404, body: #"{"error":"\#(PopulationGap.noOpenActivity)"}"#, latencyMs: 7, error: nil)
        case 2: .init(provider: "openpush", status: 400, body: #"{"error":"\#(PopulationGap.noPushToStartToken)"}"#, latencyMs: 7, error: nil)
        case 3: .init(provider: "openpush", status: 429, body: #"{"error":"slow down"}"#, latencyMs: 2, error: nil)
        case 4: .init(provider: "openpush", status: 500, body: #"{"error":"boom"}"#, latencyMs: 3, error: nil)
        case 5: .init(provider: "openpush", status: nil, body: nil, latencyMs: nil, error: "timed out")
        default: .init(provider: "openpush", status: 201, body: #"{"id":"n1"}"#, latencyMs: 9, error: nil)
        }
        let at = request.entry.receivedAt + 30
        let entry = request.entry
        if i % 5 == 0 {
            return ShadowComparison(requestId: entry.requestId, comparedAt: at, dialect: dialect, route: route, sourceApp: entry.sourceApp ?? "",
                                    primary: .init(provider: "openpush", status: 201, body: #"{"id":"n1"}"#, latencyMs: 9, error: nil), shadow: legacy)
        }
        if i % 45 == 2 { (openPush.skipped, openPush.status, openPush.error) = (true, nil, "no slot in OpenPush's window") }
        let primary: ShadowComparison.Side = .init(provider: "legacy:\(dialect.rawValue)", status: i % 4 == 2 ? 500 : 201, body: nil, latencyMs: 10, error: nil)
        return ShadowComparison(requestId: entry.requestId, comparedAt: at, dialect: dialect, route: route, sourceApp: entry.sourceApp ?? "",
                                primary: primary, shadow: openPush)
    }

    /// Writes request `i`'s comparison, if it has one: every 15th is first written as a
    /// disagreement (the newest of its cell when written) and then replaced; every 4th is
    /// written without its request's time and app name (read from the log).
    static func record(_ store: AuditStore, _ i: Int, _ request: SyntheticTraffic.Request) async throws {
        guard let comparison = comparison(i, request) else { return }
        if i % 15 == 0 {
            var first = comparison
            first.primary = .init(provider: "openpush", status: 201, body: nil, latencyMs: 1, error: nil)
            first.shadow = .init(provider: "legacy:\(comparison.dialect.rawValue)", status: 400, body: #"{"errors":["status differs"]}"#, latencyMs: 1, error: nil)
            try await store.record(first, receivedAt: request.entry.receivedAt, appName: request.entry.appName)
        }
        if i % 4 == 0 {
            try await store.record(comparison)
        } else {
            try await store.record(comparison, receivedAt: request.entry.receivedAt, appName: request.entry.appName)
        }
    }

    /// The rollup's comparisons per hour and key against the comparisons' own: the rollup
    /// holds exactly the comparisons, each once, with each row's newest request id.
    static func expectTheRollupIsTheComparisons(_ reader: AuditReader, _ label: String) throws {
        let key = AuditRollupShadowSchema.key.map(\.expression).joined(separator: ", ")
        let rolled = try reader.query("SELECT \(AuditRollupShadowSchema.keyColumns.joined(separator: ", ")), comparisons, newest_request_id FROM \(AuditRollupShadowSchema.table) ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15")
        let counted = try reader.query("SELECT \(key), count(*), max(s.request_id) FROM shadow_comparisons s WHERE s.received_at IS NOT NULL GROUP BY \(key) ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15")
        let text = { (rows: [[SQLiteValue]]) in rows.map { $0.map { $0.textValue ?? $0.integerValue.map(String.init) ?? "-" }.joined(separator: "|") } }
        #expect(!rolled.isEmpty, "\(label)")
        #expect(text(rolled) == text(counted), "\(label)")
    }

    /// Sums a figure over every route readiness judged.
    static func sum(_ readiness: Readiness, _ figure: (RouteReadiness) -> Int) -> Int { readiness.apps.flatMap(\.routes).reduce(0) { $0 + figure($1) } }

    /// Readiness over the whole audit reads the shadow figures from the rollup alone (no
    /// query of `shadow_comparisons`), and they are the comparisons': every kind present.
    @Test(arguments: AuditEngine.allCases)
    func readinessReadsItsShadowFiguresFromTheRollup(_ engine: AuditEngine) async throws {
        try await ReportRollupTests.withWrittenAudit(engine) { path, reader in
            #expect(reader.hasShadowRollup)
            try Self.expectTheRollupIsTheComparisons(reader, "\(engine)")
            reader.recordedQueries.withLock { $0 = [] }
            let readiness = try reader.readiness()
            let queries = reader.recordedQueries.withLock { queries in
                defer { queries = nil }
                return queries ?? []
            }
            #expect(queries.contains { $0.contains("FROM \(AuditRollupShadowSchema.table)") }, "\(queries)")
            #expect(!queries.contains { $0.contains("FROM shadow_comparisons") }, "\(queries)")
            #expect(readiness == (try AuditReader.rowsOnly(path).readiness()))
            let sent = try reader.query("SELECT count(*) FROM shadow_comparisons WHERE verdict <> 'shadow_skipped'").first?.first?.integerValue
            #expect(Self.sum(readiness, \.shadowed) == Int(sent ?? -1))
            let cells = readiness.apps.flatMap(\.routes).flatMap(\.disagreementCells)
            #expect(Self.sum(readiness, \.disagreements) > 10 && Self.sum(readiness, \.expectedDisagreements) > 5 && cells.count > 3, "\(cells)")
            #expect(cells.allSatisfy { $0.exampleRequestId.hasPrefix("req_") })
            #expect(Self.sum(readiness, \.rateLimited) > 0 && Self.sum(readiness, \.openPushErrors) > 0)
        }
    }

    /// A replaced comparison leaves its old cell: three requests of one app and route in one
    /// hour disagree alike (one rollup row); the newest one's comparison replaced by an
    /// agreeing one, the cell counts two and its example is the next newest (read again from
    /// the hour's comparisons); the oldest pruned, one. The mix's own replacements are compared
    /// with the rows by ``ReportRollupTests``.
    @Test(arguments: AuditEngine.allCases)
    func aReplacedComparisonLeavesItsCell(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let candidates = (50_000..<50_400).map { SyntheticTraffic.request($0, of: 100_000) }.filter { $0.completion.outcome != .rejected }
            let groups = Dictionary(grouping: candidates) { "\($0.entry.sourceApp ?? "")/\($0.entry.dialect?.rawValue ?? "")/\($0.entry.route?.rawValue ?? "")/\($0.entry.receivedAt / 3_600_000)" }
            let three = try #require(groups.values.filter { $0.count >= 3 }.min { $0[0].entry.receivedAt < $1[0].entry.receivedAt }).prefix(3)
            let (a, b, c) = (three[three.startIndex], three[three.startIndex + 1], three[three.startIndex + 2])
            func compared(_ request: SyntheticTraffic.Request, legacyStatus: Int) -> ShadowComparison {
                ShadowComparison(requestId: request.entry.requestId, comparedAt: request.entry.receivedAt + 30, dialect: request.entry.dialect ?? .onesignal,
                                 route: request.entry.route ?? .start, sourceApp: request.entry.sourceApp ?? "",
                                 primary: .init(provider: "openpush", status: 201, body: nil, latencyMs: 1, error: nil),
                                 shadow: .init(provider: "legacy", status: legacyStatus, body: nil, latencyMs: 1, error: nil))
            }
            for request in [a, b, c] {
                try await store.record(request.entry, request.completion)
                try await store.record(compared(request, legacyStatus: 400), receivedAt: request.entry.receivedAt, appName: nil)
            }
            let reader = try AuditReader(path: path)
            let cells = { () throws -> [ReadinessDisagreement] in try reader.readiness().apps.flatMap(\.routes).flatMap(\.disagreementCells) }
            let written = try cells()
            #expect(written == [ReadinessDisagreement(primary: "openpush 2xx", shadow: "legacy 4xx", count: 3, exampleRequestId: c.entry.requestId)], "\(written)")
            try await store.record(compared(c, legacyStatus: 200), receivedAt: c.entry.receivedAt, appName: nil)
            #expect(try cells() == [ReadinessDisagreement(primary: "openpush 2xx", shadow: "legacy 4xx", count: 2, exampleRequestId: b.entry.requestId)])
            #expect(try reader.readiness() == (try AuditReader.rowsOnly(path).readiness()))
            try Self.expectTheRollupIsTheComparisons(reader, "\(engine) replaced")
            await store.close()
            #expect(try reader.prune(olderThanDays: 0, now: a.entry.receivedAt + 1) == 1)
            #expect(try cells() == [ReadinessDisagreement(primary: "openpush 2xx", shadow: "legacy 4xx", count: 1, exampleRequestId: b.entry.requestId)])
            try Self.expectTheRollupIsTheComparisons(reader, "\(engine) pruned")
        }
    }

    /// Pruning takes the deleted comparisons out of the rollup (both engines): readiness still
    /// gives what the remaining comparisons give.
    @Test(arguments: AuditEngine.allCases)
    func pruningTakesTheDeletedComparisonsOut(_ engine: AuditEngine) async throws {
        try await ReportRollupTests.withWrittenAudit(engine) { path, reader in
            let before = try reader.readiness()
            let now = SyntheticTraffic.start + SyntheticTraffic.span / 2 + 30 * 86_400_000 + 1_234_567
            #expect(try reader.prune(olderThanDays: 30, now: now) > 0)
            let after = try reader.readiness()
            #expect(Self.sum(after, \.shadowed) < Self.sum(before, \.shadowed) && Self.sum(after, \.shadowed) > 0)
            try Self.expectTheRollupIsTheComparisons(reader, "\(engine) pruned")
            try ReportRollupTests.compare(reader, path: path, "\(engine) pruned")
        }
    }

    /// An audit from before the shadow rollup (its migration undone: the table, the triggers,
    /// the two columns gone) is counted by the migration from the comparisons and the log, on
    /// both engines.
    @Test(arguments: AuditEngine.allCases)
    func anAuditFromBeforeTheShadowRollupIsCountedByItsMigration(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await ReportRollupTests.write(store)
            await store.close()
            let undo = """
                DROP TABLE \(AuditRollupShadowSchema.table); DROP INDEX shadow_by_received;
                ALTER TABLE shadow_comparisons DROP COLUMN received_at; ALTER TABLE shadow_comparisons DROP COLUMN app_name;
                DELETE FROM pushbridge_migrations WHERE number = \(engine == .sqlite ? AuditRollupShadowSchema.sqliteNumber : AuditRollupShadowSchema.postgresNumber);
                """
            if engine == .sqlite {
                try SQLiteDatabase(path: path).execute("DROP TRIGGER rollup_shadow_insert; DROP TRIGGER rollup_shadow_update; DROP TRIGGER rollup_shadow_delete;" + undo)
            } else {
                try PostgresConnection(path).executeScript("DROP TRIGGER rollup_shadow ON shadow_comparisons; DROP FUNCTION rollup_shadow_fold();" + undo)
            }
            #expect(!(try AuditReader(path: path)).hasShadowRollup)
            await (try AuditStore(path: path)).close()
            let migrated = try AuditReader(path: path)
            #expect(migrated.hasShadowRollup)
            try Self.expectTheRollupIsTheComparisons(migrated, "\(engine) migrated")
            try ReportRollupTests.compare(migrated, path: path, "\(engine) migrated")
        }
    }
}
