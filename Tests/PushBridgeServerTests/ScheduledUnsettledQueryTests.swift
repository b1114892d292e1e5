import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The query the scheduled-start reconciler runs at every start
/// (``AuditReader/unsettledScheduled()``): it reads the requests still `scheduled` from their
/// partial index (``AuditScheduledIndexSchema``) instead of the whole log through the
/// `requests` view, and finds what the old query found.
struct ScheduledUnsettledQueryTests {
    /// The query before the partial index: the `requests` view filtered on its computed outcome.
    static let oldSQL = """
        SELECT request_id, received_at, outcome FROM requests WHERE outcome = 'scheduled'
        UNION
        SELECT r.request_id, r.received_at, r.outcome FROM scheduled_sends s JOIN requests r ON r.request_id = s.request_id
        WHERE s.state IN ('pending', 'sending')
        ORDER BY 2, 1
        """

    private static let start: Int64 = 1_700_000_000_000

    /// A `scheduled` answer's completion, as the proxy writes it with the intent.
    private static func scheduled(_ at: Int64) -> AuditCompletion {
        AuditCompletion(finishedAt: at + 100, outcome: .scheduled, responseStatus: 200, responseBody: #"{"id":"sch"}"#)
    }

    /// An audit with ordinary rows, rows still `scheduled` (one with its mirror open), a
    /// `scheduled` row completed later (`sent`), one completed with its mirror still
    /// `sending`, and an intent without outcome whose mirror is `pending`.
    private static func fill(_ store: AuditStore) async throws {
        for index in 0..<20 {
            try await store.record(sampleEntry("ORDINARY-\(index)", receivedAt: start + Int64(index) * 1_000), sampleCompletion())
        }
        try await store.record(sampleEntry("OPEN-LATE", receivedAt: start + 30_000), scheduled(start + 30_000))
        try await store.record(sampleEntry("OPEN-EARLY", receivedAt: start + 5_500), scheduled(start + 5_500))
        try await store.record(sampleEntry("DONE", receivedAt: start + 7_000), scheduled(start + 7_000))
        try await store.record(sampleEntry("DONE-MIRROR-OPEN", receivedAt: start + 8_000), scheduled(start + 8_000))
        try await store.begin(sampleEntry("INTENT-MIRROR-OPEN", receivedAt: start + 9_000))
        let sent = AuditCompletion(finishedAt: start + 60_000, outcome: .sent, upstreamStatus: 201, responseStatus: 200, responseBody: #"{"id":"sch"}"#)
        for id in ["DONE", "DONE-MIRROR-OPEN"] {
            try await store.run(.completeScheduled(id, sent, onlyWhileScheduled: true, bodyLimit: store.configuration.bodyLimit))
        }
        for (id, state) in [("OPEN-LATE", ScheduledStart.State.sending), ("DONE-MIRROR-OPEN", .sending), ("INTENT-MIRROR-OPEN", .pending)] {
            try await store.run(.mirrorScheduled(requestId: id, ordinal: 0, sendAt: start + 50_000, targetApp: "op-app", redactedRequest: "{}",
                                                 createdAt: start, instance: "test"))
            if state == .sending { try await store.run(.mirrorState(requestId: id, ordinal: 0, state: .sending, at: start + 50_000)) }
        }
    }

    /// The old query's rows and the new one's are the same on both engines: the open
    /// `scheduled` rows and the requests with an open start, oldest first; the `scheduled`
    /// row completed later (its outcome row updated to `sent`) has left the set.
    @Test(arguments: AuditEngine.allCases)
    func theReconcilerFindsWhatTheOldQueryFound(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.fill(store)
            let reader = try AuditReader(path: path)
            let found = try reader.unsettledScheduled()
            #expect(found.map(\.requestId) == ["OPEN-EARLY", "DONE-MIRROR-OPEN", "INTENT-MIRROR-OPEN", "OPEN-LATE"])
            #expect(found.map(\.outcome) == ["scheduled", "sent", "pending", "scheduled"])
            #expect(found.map(\.receivedAt) == [Self.start + 5_500, Self.start + 8_000, Self.start + 9_000, Self.start + 30_000])
            let old = try reader.query(Self.oldSQL).map { [$0[0].textValue ?? "", String($0[1].integerValue ?? -1), $0[2].textValue ?? ""] }
            #expect(found.map { [$0.requestId, String($0.receivedAt), $0.outcome] } == old)
            #expect(try reader.query(AuditReader.unsettledScheduledSQL) == reader.query(Self.oldSQL))
            await store.close()
        }
    }

    /// SQLite reads the request log only by request id: the `scheduled` outcomes from their
    /// partial index, the open starts from `scheduled_due`, never a scan of `request_log`
    /// (which the old query, through the view, did on every start).
    @Test func theQueryReadsTheLogByIdNeverWhole() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await Self.fill(store)
            await store.close()
            let database = try SQLiteDatabase(path: path)
            try database.execute("ANALYZE;")
            func plan(_ sql: String) throws -> [String] { try database.rows("EXPLAIN QUERY PLAN " + sql).compactMap { $0.last?.textValue } }
            let new = try plan(AuditReader.unsettledScheduledSQL)
            #expect(!new.contains { $0.hasPrefix("SCAN ") && !$0.contains(AuditScheduledIndexSchema.indexName) }, "\(new)")
            #expect(new.contains { $0.hasPrefix("SEARCH l USING INDEX request_log_id") }, "\(new)")
            #expect(new.contains { $0.contains(AuditScheduledIndexSchema.indexName) }, "\(new)")
            // The old query read all of request_log.
            #expect(try plan(Self.oldSQL).contains { $0.hasPrefix("SCAN l") }, "the old query no longer scans: the test shows nothing")
        }
    }

    /// PostgreSQL has the same partial index, on `request_outcomes` (so on each of its partitions).
    @Test func postgresHasThePartialIndex() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        await (try AuditStore(path: uri)).close()
        let rows = try AuditReader(path: uri).query("SELECT indexdef FROM pg_indexes WHERE indexname = '\(AuditScheduledIndexSchema.indexName)' AND schemaname = current_schema()")
        let definition = try #require(rows.first?.first?.textValue)
        #expect(definition.contains("request_outcomes") && definition.contains("WHERE (outcome = 'scheduled'::text)"), "\(definition)")
    }
}
