import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The activity's one record as a store, on SQLite and PostgreSQL alike (issue 29): keyed by
/// (OpenPush app, activity id), a start's record in flight from its begun row, a learned record
/// that never overwrites a start's placement, the cap per source app and what it forgot.
@Suite(.serialized) struct ActivityRecordStoreTests {
    static let t0: Int64 = 1_800_000_000_000

    static func record(_ app: String, _ id: String, _ holder: ActivityHolder, at: Int64, request: String, state: ActivityStartState = .accepted) -> ActivityRecord {
        ActivityRecord(app: app, activityId: id, dialect: .pushwoosh, holder: holder, startedAt: at, requestId: request, openPushApp: "op_shared", startState: state)
    }

    static func finish(_ store: AuditStore, _ id: String, _ changes: [ActivityLedgerChange], at: Int64) async throws {
        var completion = sampleCompletion(finishedAt: at)
        completion.ledger = changes
        try await store.finish(id, completion)
    }

    /// An app whose one route OpenPush reached fully, with the counts of `inFlight` that are its own.
    static func reached(_ app: String, inFlight: [ActivityCount]) -> AppReadiness {
        var readiness = AppReadiness(app: app, verdict: .ready, routes: [], reasons: [])
        var route = RouteReadiness(dialect: "pushwoosh", route: "start", verdict: .ready)
        route.openPushCalls = 100
        readiness.routes = [route]
        readiness.inFlight = inFlight.filter { $0.app == app }
        return readiness
    }

    /// Item 3: the start's record is in flight from its begun row (another reader sees it
    /// before any answer); an update's learned record, from a fallback's answer, changes
    /// nothing while it is in flight or once accepted; only the start's own completion places it.
    @Test(arguments: AuditEngine.allCases) func aLearnedRecordNeverOverwritesAStartsPlacement(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let other = try ActivityLedger(path: path)
            try await store.begin(sampleEntry("S", receivedAt: Self.t0), ledger: [.starting(Self.record("pw", "race", .openpush, at: Self.t0, request: "S", state: .inFlight))])
            let inFlight = try await other.record(openPushApp: "op_shared", app: "pw", activityId: "race", now: Self.t0 + 1)
            #expect(inFlight?.startState == .inFlight && inFlight?.holder == .openpush, "the start's record is not visible before its answer")

            try await store.begin(sampleEntry("U", receivedAt: Self.t0 + 5))
            try await Self.finish(store, "U", [.learned(Self.record("pw", "race", .legacy, at: Self.t0 + 10, request: "U"))], at: Self.t0 + 10)
            #expect(try await other.record(openPushApp: "op_shared", app: "pw", activityId: "race", now: Self.t0 + 20) == inFlight,
                    "a fallback's answer overwrote the start in flight")

            try await Self.finish(store, "S", [.started(Self.record("pw", "race", .openpush, at: Self.t0 + 30, request: "S"))], at: Self.t0 + 30)
            let accepted = try await other.record(openPushApp: "op_shared", app: "pw", activityId: "race", now: Self.t0 + 40)
            #expect(accepted?.startState == .accepted && accepted?.holder == .openpush)

            try await store.begin(sampleEntry("V", receivedAt: Self.t0 + 50))
            try await Self.finish(store, "V", [.learned(Self.record("pw", "race", .legacy, at: Self.t0 + 60, request: "V"))], at: Self.t0 + 60)
            #expect(try await other.record(openPushApp: "op_shared", app: "pw", activityId: "race", now: Self.t0 + 70)?.holder == .openpush,
                    "a fallback's answer moved an accepted activity to the legacy side")

            // A start nobody accepted places nothing: its record says refused.
            try await store.begin(sampleEntry("R", receivedAt: Self.t0), ledger: [.starting(Self.record("pw", "lost", .openpush, at: Self.t0, request: "R", state: .inFlight))])
            try await Self.finish(store, "R", [.started(Self.record("pw", "lost", .openpush, at: Self.t0 + 1, request: "R", state: .refused))], at: Self.t0 + 1)
            #expect(try await other.record(openPushApp: "op_shared", app: "pw", activityId: "lost", now: Self.t0 + 2)?.startState == .refused)
            #expect(try await other.inFlightCounts(now: Self.t0 + 2) == [ActivityCount(app: "pw", holder: .openpush, count: 1, lastReachableUntil: Self.t0 + 30 + ActivityRecord.lifetimeMs)])
            await store.close()
        }
    }

    /// Item 2: with `max_activities` 10, app `flood`'s 30 starts evict only its own oldest 20;
    /// app `quiet`'s 3 legacy activities stay. The 20 forgotten in flight are remembered until
    /// the last of them is past its lifetime, and readiness refuses "legacy can be switched
    /// off" for `flood` until then, saying so; not for `quiet`.
    @Test(arguments: AuditEngine.allCases) func theCapIsPerSourceAppAndWhatItForgotKeepsLegacyOn(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            var changes: [(String, ActivityRecord)] = (0..<3).map { ("Q\($0)", Self.record("quiet", "quiet-\($0)", .legacy, at: Self.t0 + Int64($0), request: "Q\($0)")) }
            changes += (0..<30).map { ("F\($0)", Self.record("flood", String(format: "flood-%02d", $0), .legacy, at: Self.t0 + 1000 + Int64($0), request: "F\($0)")) }
            for (request, record) in changes {
                try await store.begin(sampleEntry(request, receivedAt: record.startedAt))
                try await Self.finish(store, request, [.started(record)], at: record.startedAt)
            }
            var settings = ActivityLedgerUpkeep.Settings()
            settings.maxActivities = 10
            settings.batchSize = 7
            let now = Self.t0 + 60_000
            let upkeep = try ActivityLedgerUpkeep(store: store, settings: settings, clock: ManualDeliveryClock(startMilliseconds: now))
            #expect(try await upkeep.pruneOnce() == ActivityLedgerUpkeep.Pass(expired: 0, overCap: 20))
            let counts = try await store.activities.inFlightCounts(now: now)
            #expect(counts.first { $0.app == "quiet" }?.count == 3, "another app's flood evicted quiet's activities in flight")
            #expect(counts.first { $0.app == "flood" }?.count == 10)
            let until = Self.t0 + 1000 + 19 + ActivityRecord.lifetimeMs
            #expect(try await store.activities.forgottenInFlight(now: now) == [ForgottenActivities(app: "flood", inFlightUntil: until, count: 20)])
            #expect(try await store.activities.forgottenInFlight(now: until).isEmpty, "the memory outlives the forgotten rows' 12 hours")

            let all = try #require(await ActivityLedger.inFlightCounts(ofAuditAt: path, now: now))
            for app in ["quiet", "flood"] {
                let verdict = ReadinessJudge.legacy(Self.reached(app, inFlight: all), ReadinessThresholds())
                #expect(verdict.verdict == .notYet)
                let said = verdict.reasons.contains { $0.contains("forgot 20 activities in flight") && $0.contains(RFC3339.format(milliseconds: until)) }
                #expect(said == (app == "flood"), "\(app): \(verdict.reasons)")
            }
            // Once its own rows are ended, flood is still kept on legacy by what was forgotten.
            for index in 20..<30 {
                try await store.begin(sampleEntry("E\(index)", receivedAt: now))
                try await Self.finish(store, "E\(index)", [.ended(app: "flood", activityId: String(format: "flood-%02d", index), at: now, openPushApp: "op_shared")], at: now)
            }
            let during = try #require(await ActivityLedger.inFlightCounts(ofAuditAt: path, now: now))
            #expect(ReadinessJudge.legacy(Self.reached("flood", inFlight: during), ReadinessThresholds()).verdict == .notYet,
                    "legacy off offered while forgotten activities may be in flight")
            let after = try #require(await ActivityLedger.inFlightCounts(ofAuditAt: path, now: until))
            #expect(ReadinessJudge.legacy(Self.reached("flood", inFlight: after), ReadinessThresholds()).verdict == .canBeSwitchedOff)
            await store.close()
        }
    }

    /// An SQLite audit written before the ledger was keyed by OpenPush app (migrations 1–9)
    /// keeps routing: its rows are read under the source app's key beside the OpenPush key.
    @Test func anAuditFromBeforeMigrationTenKeepsItsRecords() async throws {
        try await withTemporaryAudit { path in
            do {
                let database = try SQLiteDatabase(path: path)
                var old = SQLiteMigrator()
                old.register(1, "requests and findings", sql: AuditSchema.requestsAndFindings)
                old.register(2, "shadow comparisons and scheduled sends", sql: AuditSchema.shadowAndScheduled)
                old.register(3, "report indexes", sql: AuditSchema.reportIndexes)
                old.register(4, "shadow comparison bodies", sql: AuditSchema.shadowBodies)
                old.register(5, "app names", sql: AuditSchema.appNames)
                old.register(6, "instance names", sql: AuditSchema.instanceNames)
                old.register(7, "activity ledger", sql: ActivityLedgerSQL.schema(sqlite: true))
                old.register(9, "rollout rollbacks", sql: AuditSchema.rolloutRollbacks)
                _ = try old.migrate(database)
                try database.execute("""
                    INSERT INTO activities (app, activity_id, dialect, holder, started_at, request_id)
                    VALUES ('pw', 'before', 'pushwoosh', 'legacy', \(Self.t0), 'OLD')
                    """)
            }

            let store = try AuditStore(path: path)
            let found = try await store.activities.record(openPushApp: "op_shared", app: "pw", activityId: "before", now: Self.t0 + 1)
            #expect(found?.holder == .legacy && found?.startState == .accepted && found?.openPushApp == nil && found?.app == "pw")
            #expect(try await store.activities.record(openPushApp: "op_shared", app: "other", activityId: "before", now: Self.t0 + 1) == nil)
            // Its end, keyed as the router read it, closes it.
            try await store.begin(sampleEntry("E", receivedAt: Self.t0 + 2))
            try await Self.finish(store, "E", [.ended(app: "pw", activityId: "before", at: Self.t0 + 2)], at: Self.t0 + 2)
            #expect(try await store.activities.record(app: "pw", activityId: "before", now: Self.t0 + 3)?.endedAt == Self.t0 + 2)
            await store.close()
        }
    }
}
