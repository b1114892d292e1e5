import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The ledger's read of one activity's record (``ActivityLedgerSQL/recordSQL``, one per
/// request that places or routes an activity): the same answers as the `IN (?, ?) … ORDER BY`
/// statement it replaced, on both engines, and on SQLite no temporary b-tree or sorter.
@Suite(.serialized) struct ActivityRecordReadPlanTests {
    static let t0: Int64 = 1_800_000_000_000

    /// The statement `recordSQL` was before (`main` at `c6a4320`): the oracle of the answers.
    static let orderedInSQL = """
        SELECT \(ActivityLedgerSQL.columns) FROM activities WHERE activity_id = ? AND openpush_app IN (?, ?) AND started_at > ?
        ORDER BY CASE WHEN openpush_app = ? THEN 0 ELSE 1 END LIMIT 1
        """

    /// Records of source app `pw` under OpenPush app `op` (first key) and under its legacy key
    /// (second key), the request that wrote each named after it; read at a `now` whose cutoff
    /// is `t0 + 5`, so a record started at `t0` is past its lifetime.
    static let seeded: [(request: String, id: String, openPushApp: String?, at: Int64)] = [
        ("both-first", "both", "op", t0 + 10), ("both-second", "both", nil, t0 + 20),
        ("stale-first", "stale", "op", t0), ("stale-second", "stale", nil, t0 + 30),
        ("only-first", "first", "op", t0 + 40), ("only-second", "second", nil, t0 + 50),
        ("old-first", "old", "op", t0), ("old-second", "old", nil, t0 + 1),
        ("other-key", "elsewhere", "op_other", t0 + 60),
    ]

    /// Each activity id read, and the request whose record the read must return (nil: none).
    static let expected: [(id: String, request: String?)] = [
        ("both", "both-first"), ("stale", "stale-second"), ("first", "only-first"), ("second", "only-second"),
        ("old", nil), ("elsewhere", nil), ("never", nil),
    ]

    static let now = t0 + 5 + ActivityRecord.lifetimeMs

    static func seed(_ path: String) async throws {
        let store = try AuditStore(path: path)
        for row in seeded {
            let record = ActivityRecord(app: "pw", activityId: row.id, dialect: .pushwoosh, holder: .openpush, startedAt: row.at,
                                        requestId: row.request, openPushApp: row.openPushApp, startState: .accepted)
            try await store.begin(sampleEntry(row.request, receivedAt: row.at))
            var completion = sampleCompletion(finishedAt: row.at)
            completion.ledger = [.started(record)]
            try await store.finish(row.request, completion)
        }
        await store.close()
    }

    /// Every case through the ledger: the first key's record when both are live, the second's
    /// when the first is past its lifetime or absent, none when neither is live.
    @Test(arguments: AuditEngine.allCases) func theFirstKeysLiveRecordWinsOnBothEngines(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            try await Self.seed(path)
            let ledger = try ActivityLedger(path: path)
            for (id, request) in Self.expected {
                let record = try await ledger.record(openPushApp: "op", app: "pw", activityId: id, now: Self.now)
                #expect(record?.requestId == request, "activity \(id)")
                if let record { #expect(record.activityId == id && record.app == "pw") }
            }
        }
    }

    /// On SQLite the rows are those of the statement it replaced, column for column, and its
    /// program opens no ephemeral table and no sorter (the `IN` list's b-tree and the `ORDER BY`'s
    /// sorter of the statement before: both are there in the oracle's program, so the check can fail).
    @Test func sqliteAnswersAsTheOrderedInStatementWithoutATemporaryBTree() async throws {
        try await withTemporaryAudit { path in
            try await Self.seed(path)
            let database = try SQLiteDatabase(path: path)
            for id in Self.expected.map(\.id) + ["", "both "] {
                let ask = ActivityReadGather.Ask(activityId: id, firstKey: "op", secondKey: ActivityLedgerSQL.key(openPushApp: nil, app: "pw"),
                                                 cutoff: Self.now - ActivityRecord.lifetimeMs)
                let (sql, values) = ActivityLedgerGatheredSQL.statement(for: ask)
                #expect(sql == ActivityLedgerSQL.recordSQL)
                #expect(try database.rows(sql, values) == database.rows(Self.orderedInSQL, values), "activity \(id)")
            }
            func opcodes(_ sql: String) throws -> [String] {
                try database.rows("EXPLAIN " + sql, Array(repeating: .null, count: 5)).compactMap { $0.count > 1 ? $0[1].textValue : nil }
            }
            let temporary: Set = ["OpenEphemeral", "SorterOpen", "OpenAutoindex"]
            #expect(try !opcodes(Self.orderedInSQL).filter(temporary.contains).isEmpty, "the oracle's program is not the one this test guards against")
            #expect(try opcodes(ActivityLedgerSQL.recordSQL).filter(temporary.contains) == [])
            #expect(try opcodes(ActivityLedgerSQL.recordSQL).filter { $0 == "OpenRead" }.count == 2, "two primary-key lookups")
        }
    }
}
