import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30: the activity ledger's reads on PostgreSQL carried together (``ActivityReadGather``).
/// The reads of concurrent requests go to the server in one statement per round trip and route
/// exactly as they would one at a time; a lone read is sent at once, never held for company.
@Suite(.serialized) struct ActivityLedgerGatherTests {
    static let t0: Int64 = 1_800_000_000_000
    /// When the tests read: every record but `old-0` is within its lifetime.
    static let now = t0 + 1_000
    /// An id the array literal must carry whole: quotes, a backslash, a comma, braces, spaces, the word NULL.
    static let oddId = #"we"ird\,{id} NULL"#

    /// A record of source app `app` in OpenPush app `op_shared`.
    static func record(_ app: String, _ id: String, _ holder: ActivityHolder, at: Int64 = t0) -> ActivityRecord {
        ActivityRecord(app: app, activityId: id, dialect: .pushwoosh, holder: holder, startedAt: at, requestId: "S-\(app)-\(id)",
                       openPushApp: "op_shared", startState: .accepted)
    }

    /// Writes `records` through the audit, as the starts' completions place them.
    static func seed(_ path: String, _ records: [ActivityRecord]) async throws {
        let store = try AuditStore(path: path)
        for record in records {
            try await store.begin(sampleEntry(record.requestId, receivedAt: record.startedAt))
            try await ActivityRecordStoreTests.finish(store, record.requestId, [.started(record)], at: record.startedAt + 1)
        }
        await store.close()
    }

    /// The ledger's seed: app `pw`'s activities on each side, app `other`'s (another tenant of
    /// the same OpenPush app), one past its lifetime, and the odd id.
    static let records: [ActivityRecord] = (0..<6).map { record("pw", "own-\($0)", [ActivityHolder.openpush, .legacy, .both][$0 % 3]) }
        + [record("other", "their-0", .openpush), record("other", "their-1", .legacy),
           record("pw", "old-0", .openpush, at: t0 + 1_000 - ActivityRecord.lifetimeMs), record("pw", oddId, .legacy)]

    /// What a read decided, as a user sees it: where the request goes, the holders followed,
    /// the activity refused as another tenant's.
    struct Routed: Equatable, CustomStringConvertible {
        var ledger: Placement.Ledger
        var holders: [String: ActivityHolder]
        var crossTenant: String?

        init(_ read: Router.Ledger) {
            ledger = read.ledger
            holders = read.records.mapValues(\.holder)
            crossTenant = read.crossTenant.map { "\($0.id) of \($0.owner)" }
        }

        var description: String { "\(ledger) \(holders.sorted { $0.key < $1.key }) \(crossTenant ?? "-")" }
    }

    /// Item: 16 callers at once on PostgreSQL are routed exactly as one at a time (each update
    /// or end to the side its activity lives on, another tenant's activity refused, an unknown
    /// or expired one unknown), and their reads were gathered: fewer statements than reads.
    @Test func sixteenConcurrentCallersAreRoutedAsOneAtATimeAndTheirReadsGathered() async throws {
        try await withTemporaryAudit(.postgresql) { path in
            try await Self.seed(path, Self.records)
            let ledger = try ActivityLedger(path: path)
            let router = Router(activities: ledger, log: EventLog(sink: { _ in }), clock: { Self.now }, rollouts: nil)
            let app = AppConfiguration(name: "pw", dialect: .pushwoosh, sourceAppId: "src", openPushAppId: "op_shared", openPushKey: Secret("k"))
            let callers: [[(id: String, event: ActivityRules.Event)]] = (0..<6).map { [("own-\($0)", $0 % 2 == 0 ? .update : .end)] } + [
                [("their-0", .update)], [("their-1", .end)], [("old-0", .update)], [("never-0", .update)], [("never-1", .start)],
                [("own-0", .update), ("own-1", .update)], [("own-2", .end), ("never-2", .update)], [(Self.oddId, .update)],
                [("their-0", .start)], [("own-4", .update), ("their-1", .end)],
            ]
            #expect(callers.count == 16)

            var alone: [Routed] = []
            for ids in callers { alone.append(Routed(try await router.read(ids, app: app))) }
            #expect(alone[0].ledger == .held(.openpush) && alone[0].holders == ["own-0": .openpush], "an update was not sent where its activity lives")
            #expect(alone[1].ledger == .held(.legacy) && alone[2].ledger == .held(.both), "an activity's side was not followed")
            #expect(alone[6].crossTenant == "their-0 of other" && alone[7].crossTenant == "their-1 of other", "another tenant's activity was not refused")
            #expect(alone[8].ledger == .unknown && alone[9].ledger == .unknown, "an expired or unknown activity was placed")
            #expect(alone[11].ledger == .held(.both) && alone[13].ledger == .held(.legacy))
            let sequential = try #require(ledger.gatheredReads)
            #expect(sequential.statements == sequential.reads, "reads one at a time were held for company")

            // Rounds of 16 at once until one round's reads were gathered; every round routes as one at a time.
            var gathered = false
            for _ in 0..<20 where !gathered {
                let before = try #require(ledger.gatheredReads)
                let together = try await withThrowingTaskGroup(of: (Int, Routed).self) { group in
                    for (i, ids) in callers.enumerated() { group.addTask { (i, Routed(try await router.read(ids, app: app))) } }
                    var routed = [Routed?](repeating: nil, count: callers.count)
                    for try await (i, read) in group { routed[i] = read }
                    return routed.compactMap { $0 }
                }
                #expect(together == alone, "16 callers at once were routed otherwise than one at a time")
                let after = try #require(ledger.gatheredReads)
                #expect(after.reads - before.reads == sequential.reads, "a caller's read went missing or was read twice")
                gathered = after.statements - before.statements < after.reads - before.reads
            }
            #expect(gathered, "16 concurrent callers' reads were never carried together")
            #expect(try #require(ledger.gatheredReads).largestBatch > 1)
        }
    }

    /// Item: a lone read is sent at once, alone (it is at the server, waiting on a lock another
    /// connection holds, before anyone else asks); the reads that come while it is out wait and
    /// go together in the next statement, and read what each would read alone.
    @Test func aLoneReadIsSentAtOnceAndTheReadsBehindItGoTogether() async throws {
        try await withTemporaryAudit(.postgresql) { path in
            try await Self.seed(path, Self.records)
            let ledger = try ActivityLedger(path: path)
            let admin = try PostgresConnection(path)
            let lock = try PostgresConnection(path)
            try lock.execute("BEGIN")
            try lock.execute("LOCK TABLE activities IN ACCESS EXCLUSIVE MODE")
            var locked = true
            defer { if locked { _ = try? lock.execute("ROLLBACK") } }

            let lone = Task { try await ledger.record(openPushApp: "op_shared", app: "pw", activityId: "own-0", now: Self.now) }
            let atServer = await firstValue(within: 30) { () -> Bool? in
                // Any statement on `activities`: the lone read joins it, the gathered one selects from it.
                let waiting = try? admin.select("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%activities%'", [])
                return waiting?.first?.first?.integerValue == 1 ? true : nil
            }
            #expect(atServer == true, "the lone read was not sent")
            #expect(ledger.gatheredReads == ActivityReadGather.Statistics(reads: 1, statements: 1, waiting: 0, largestBatch: 1),
                    "the lone read was held for company")

            let ids = ["own-1", "their-0", "never-0", "old-0", Self.oddId]
            let behind = ids.map { id in Task { try await ledger.record(openPushApp: "op_shared", app: "pw", activityId: id, now: Self.now) } }
            let queued = await firstValue(within: 30) { ledger.gatheredReads?.waiting == ids.count ? true : nil }
            #expect(queued == true && ledger.gatheredReads?.statements == 1, "the reads behind the lone one did not wait for it")

            try lock.execute("COMMIT")
            locked = false
            #expect(try await lone.value?.holder == .openpush)
            var answers: [ActivityRecord?] = []
            for task in behind { answers.append(try await task.value) }
            #expect(answers.map { $0?.holder } == [.legacy, .openpush, nil, nil, .legacy])
            #expect(answers[1]?.app == "other", "another tenant's record was not read as its own")
            #expect(answers[4]?.activityId == Self.oddId)
            #expect(ledger.gatheredReads == ActivityReadGather.Statistics(reads: 6, statements: 2, waiting: 0, largestBatch: 5),
                    "the five reads behind the lone one were not carried by one statement")

            // One at a time again: each read a statement of its own, at once.
            for id in ids.prefix(3) { _ = try await ledger.record(openPushApp: "op_shared", app: "pw", activityId: id, now: Self.now) }
            #expect(ledger.gatheredReads == ActivityReadGather.Statistics(reads: 9, statements: 5, waiting: 0, largestBatch: 5))
        }
    }

    /// SQLite keeps its read on the event loop: nothing is gathered there.
    @Test func sqliteReadsAreNotGathered() async throws {
        try await withTemporaryAudit(.sqlite) { path in
            try await Self.seed(path, Self.records)
            let ledger = try ActivityLedger(path: path)
            #expect(try await ledger.record(openPushApp: "op_shared", app: "pw", activityId: Self.oddId, now: Self.now)?.holder == .legacy)
            #expect(ledger.gatheredReads == nil)
        }
    }
}
