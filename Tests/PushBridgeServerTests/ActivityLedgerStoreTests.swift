import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The activity ledger as a store, on SQLite and PostgreSQL alike: its changes ride on audit
/// completions (same transaction), ``ActivityLedger`` reads them back, and
/// ``ActivityLedgerUpkeep`` forgets entries past their lifetime and over the cap.
@Suite(.serialized) struct ActivityLedgerStoreTests {
    static let t0: Int64 = 1_800_000_000_000
    static let hour: Int64 = 3_600_000

    @Test(arguments: AuditEngine.allCases) func aStartWrittenWithItsCompletionIsVisibleToTheLedger(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.start(store, "S1", app: "rides", activity: "act-1", holder: .openpush, at: Self.t0, cohort: "sha256:abcdef012345")
            // A whole row (a legacy answer recorded after the fact) carries its start too.
            var entry = sampleEntry("S2")
            entry.appName = "rides"
            var completion = sampleCompletion(finishedAt: Self.t0 + 10)
            completion.ledger = [.started(Self.record("rides", "act-2", .legacy, at: Self.t0 + 10, request: "S2"))]
            try await store.record(entry, completion)

            let one = try await store.activities.record(app: "rides", activityId: "act-1", now: Self.t0 + 1000)
            #expect(one == ActivityRecord(app: "rides", activityId: "act-1", dialect: .onesignal, holder: .openpush, startedAt: Self.t0,
                                          cohortKey: "sha256:abcdef012345", requestId: "S1"))
            #expect(try await store.activities.record(app: "rides", activityId: "act-2", now: Self.t0 + 1000)?.holder == .legacy)
            #expect(try await store.activities.record(app: "scores", activityId: "act-1", now: Self.t0 + 1000) == nil, "another app's id is another activity")
            #expect(try await store.activities.record(app: "rides", activityId: "never", now: Self.t0 + 1000) == nil)
            let listed = try await store.activities.inFlight(app: nil, holder: nil, now: Self.t0 + 1000, limit: 10)
            #expect(listed.map(\.activityId) == ["act-2", "act-1"], "newest first")
            #expect(try await store.activities.inFlightCounts(now: Self.t0 + 1000) == [
                ActivityCount(app: "rides", holder: .legacy, count: 1, lastReachableUntil: Self.t0 + 10 + ActivityRecord.lifetimeMs),
                ActivityCount(app: "rides", holder: .openpush, count: 1, lastReachableUntil: Self.t0 + ActivityRecord.lifetimeMs),
            ])
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func anUpdateAndAnEndChangeTheEntryAndARepeatedStartReplacesIt(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.start(store, "S1", app: "rides", activity: "act-1", holder: .openpush, at: Self.t0)
            try await Self.change(store, "U1", .updated(app: "rides", activityId: "act-1", at: Self.t0 + 5000))
            // An update committed later but made earlier does not move the time back.
            try await Self.change(store, "U0", .updated(app: "rides", activityId: "act-1", at: Self.t0 + 4000))
            // A change of an id the ledger never saw changes nothing and is no error.
            try await Self.change(store, "U2", .updated(app: "rides", activityId: "unknown", at: Self.t0 + 5000))
            let updated = try await store.activities.record(app: "rides", activityId: "act-1", now: Self.t0 + 6000)
            #expect(updated?.lastUpdateAt == Self.t0 + 5000)
            #expect(updated?.endedAt == nil)
            #expect(try await store.activities.inFlight(app: "rides", holder: .openpush, now: Self.t0 + 6000, limit: 10).count == 1)

            try await Self.change(store, "E1", .ended(app: "rides", activityId: "act-1", at: Self.t0 + 7000))
            try await Self.change(store, "E2", .ended(app: "rides", activityId: "act-1", at: Self.t0 + 9000))
            let ended = try await store.activities.record(app: "rides", activityId: "act-1", now: Self.t0 + 10_000)
            #expect(ended?.endedAt == Self.t0 + 7000, "the first end stays")
            #expect(try await store.activities.inFlight(app: nil, holder: nil, now: Self.t0 + 10_000, limit: 10).isEmpty, "an ended activity is not in flight")
            #expect(try await store.activities.inFlightCounts(now: Self.t0 + 10_000).isEmpty)
            #expect(try store.reader.query("SELECT count(*) FROM activities") == [[.integer(1)]], "the unknown id was not inserted")

            // The same id started again (on the other side) is a new activity.
            try await Self.start(store, "S3", app: "rides", activity: "act-1", holder: .legacy, at: Self.t0 + 20_000)
            let again = try await store.activities.record(app: "rides", activityId: "act-1", now: Self.t0 + 21_000)
            #expect(again?.holder == .legacy && again?.endedAt == nil && again?.lastUpdateAt == nil && again?.requestId == "S3")
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func aHolderFilterOfOneSideIncludesActivitiesHeldByBoth(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.start(store, "S1", app: "rides", activity: "a-openpush", holder: .openpush, at: Self.t0)
            try await Self.start(store, "S2", app: "rides", activity: "a-legacy", holder: .legacy, at: Self.t0 + 1)
            try await Self.start(store, "S3", app: "rides", activity: "a-both", holder: .both, at: Self.t0 + 2)
            try await Self.start(store, "S4", app: "scores", activity: "b-openpush", holder: .openpush, at: Self.t0 + 3)
            let now = Self.t0 + 100
            #expect(try await store.activities.inFlight(app: "rides", holder: .openpush, now: now, limit: 10).map(\.activityId) == ["a-both", "a-openpush"])
            #expect(try await store.activities.inFlight(app: "rides", holder: .legacy, now: now, limit: 10).map(\.activityId) == ["a-both", "a-legacy"])
            #expect(try await store.activities.inFlight(app: nil, holder: .both, now: now, limit: 10).map(\.activityId) == ["a-both"])
            #expect(try await store.activities.inFlight(app: nil, holder: .openpush, now: now, limit: 10).map(\.activityId) == ["b-openpush", "a-both", "a-openpush"])
            #expect(try await store.activities.inFlight(app: nil, holder: nil, now: now, limit: 2).map(\.activityId) == ["b-openpush", "a-both"])
            await store.close()
        }
    }

    /// Completions carrying starts in the same batches (on PostgreSQL one pipeline each): a
    /// completion of an unknown request and a whole row with a duplicate id each fail alone
    /// and leave no ledger entry, while every neighbour's stays.
    @Test(arguments: AuditEngine.allCases) func aCompletionThatFailsInABatchLeavesNoLedgerChangeAndItsNeighboursKeepTheirs(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await store.begin(sampleEntry("DUP"))
            let results = await withTaskGroup(of: (String, Bool).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let id = "P\(index)"
                        do {
                            try await store.begin(sampleEntry(id))
                            try await Self.finish(store, id, .started(Self.record("rides", "act-\(index)", .openpush, at: Self.t0, request: id)))
                            return (id, true)
                        } catch {
                            return (id, false)
                        }
                    }
                }
                group.addTask {
                    ("NOPE", (try? await Self.finish(store, "NOPE", .started(Self.record("rides", "ghost", .openpush, at: Self.t0, request: "NOPE")))) != nil)
                }
                group.addTask {
                    var completion = sampleCompletion()
                    completion.ledger = [.started(Self.record("rides", "dup-ghost", .legacy, at: Self.t0, request: "DUP"))]
                    return ("DUP", (try? await store.record(sampleEntry("DUP"), completion)) != nil)
                }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results["NOPE"] == false)
            #expect(results["DUP"] == false)
            #expect(results.filter { $0.key.hasPrefix("P") && $0.value }.count == 40)
            #expect(try await store.activities.record(app: "rides", activityId: "ghost", now: Self.t0 + 1) == nil)
            #expect(try await store.activities.record(app: "rides", activityId: "dup-ghost", now: Self.t0 + 1) == nil)
            #expect(try await store.activities.inFlight(app: "rides", holder: nil, now: Self.t0 + 1, limit: 100).count == 40)
            #expect(try store.reader.query("SELECT count(*) FROM activities") == [[.integer(40)]])
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(40)]])
            await store.close()
        }
    }

    /// An entry is in flight until 12 hours after its start and forgotten by the upkeep then;
    /// one started later stays.
    @Test(arguments: AuditEngine.allCases) func theUpkeepForgetsEntriesTwelveHoursAfterTheirStart(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            for index in 0..<7 {
                try await Self.start(store, "OLD\(index)", app: "rides", activity: "old-\(index)", holder: .openpush, at: Self.t0 + Int64(index))
            }
            try await Self.start(store, "NEW", app: "rides", activity: "new", holder: .legacy, at: Self.t0 + 6 * Self.hour)
            let clock = ManualDeliveryClock(startMilliseconds: Self.t0 + 12 * Self.hour - 1)
            var settings = ActivityLedgerUpkeep.Settings()
            settings.batchSize = 3
            let upkeep = try ActivityLedgerUpkeep(store: store, settings: settings, clock: clock)

            #expect(try await upkeep.pruneOnce() == ActivityLedgerUpkeep.Pass(), "nothing is past its lifetime yet")
            #expect(try await store.activities.record(app: "rides", activityId: "old-0", now: clock.nowMilliseconds()) != nil)
            #expect(try await store.activities.inFlight(app: nil, holder: nil, now: clock.nowMilliseconds(), limit: 100).count == 8)

            clock.advance(byMilliseconds: 7)
            let now = clock.nowMilliseconds()
            #expect(try await store.activities.record(app: "rides", activityId: "old-0", now: now) == nil, "past its lifetime it reads as unknown")
            #expect(try await store.activities.inFlightCounts(now: now) == [
                ActivityCount(app: "rides", holder: .legacy, count: 1, lastReachableUntil: Self.t0 + 18 * Self.hour),
            ])
            #expect(try await upkeep.pruneOnce().expired == 7)
            #expect(try store.reader.query("SELECT activity_id FROM activities") == [[.text("new")]])
            await store.close()
        }
    }

    /// Past `limits.max_activities` a pass forgets the oldest starts, down to the cap.
    @Test(arguments: AuditEngine.allCases) func theCapHolds(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            for index in 0..<25 {
                try await Self.start(store, "C\(index)", app: "rides", activity: String(format: "c-%02d", index), holder: .openpush, at: Self.t0 + Int64(index) * 1000)
            }
            var settings = ActivityLedgerUpkeep.Settings()
            settings.maxActivities = 10
            settings.batchSize = 4
            let passes = Mutex<[ActivityLedgerUpkeep.Pass]>([])
            let upkeep = try ActivityLedgerUpkeep(store: store, settings: settings, clock: ManualDeliveryClock(startMilliseconds: Self.t0 + 60_000)) { pass in
                passes.withLock { $0.append(pass) }
            }
            #expect(try await upkeep.pruneOnce() == ActivityLedgerUpkeep.Pass(expired: 0, overCap: 15))
            #expect(passes.withLock { $0 } == [ActivityLedgerUpkeep.Pass(expired: 0, overCap: 15)])
            let kept = try store.reader.query("SELECT activity_id FROM activities ORDER BY activity_id").compactMap(\.first?.textValue)
            #expect(kept == (15..<25).map { String(format: "c-%02d", $0) }, "the newest ten stay")
            #expect(try await upkeep.pruneOnce() == ActivityLedgerUpkeep.Pass(), "at the cap nothing more goes")
            await store.close()
        }
    }

    /// The ledger's ids are stored with their NULs escaped, as the rest of the audit, and found
    /// again by the caller's own spelling.
    @Test(arguments: AuditEngine.allCases) func anIdWithANULIsStoredEscapedAndFoundAgain(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.start(store, "N1", app: "rides", activity: "act\u{0}1", holder: .openpush, at: Self.t0)
            #expect(try await store.activities.record(app: "rides", activityId: "act\u{0}1", now: Self.t0 + 1)?.activityId == "act\u{0}1")
            #expect(try store.reader.query("SELECT activity_id FROM activities") == [[.text("act\\u00001")]])
            await store.close()
        }
    }

    /// What is on disk the moment a start's completion was acknowledged, as a SIGKILL right
    /// after the answer leaves it (the process's memory gone, its files as written): the
    /// ledger entry is there.
    @Test func aLedgerEntryAcknowledgedWithItsAnswerSurvivesTheProcessDyingRightAfter() async throws {
        try await withTemporaryDirectory("pushbridge-ledger-crash") { directory in
            let path = directory.path("audit.sqlite")
            let store = try AuditStore(path: path)
            try await Self.start(store, "K1", app: "rides", activity: "act-k", holder: .openpush, at: Self.t0)
            // Copy the files as they are now, without closing the store (no checkpoint, no
            // final sync): what a kill leaves.
            let copy = directory.path("after-kill.sqlite")
            try LiveDatabaseFiles.copy(path, to: copy)
            let ledger = try ActivityLedger(path: copy)
            #expect(try await ledger.record(app: "rides", activityId: "act-k", now: Self.t0 + 1)?.requestId == "K1")
            await store.close()
        }
    }

    /// Two instances on one PostgreSQL audit: a start written through A is read by B at once
    /// (no cache), and B's end of it is read by A.
    @Test func aStartWrittenThroughOneInstanceIsReadByAnotherOnTheSameDatabase() async throws {
        try await withTemporaryAudit(.postgresql) { uri in
            var configurationA = AuditStoreConfiguration(), configurationB = AuditStoreConfiguration()
            configurationA.instanceName = "instance-a"
            configurationB.instanceName = "instance-b"
            let a = try AuditStore(path: uri, configuration: configurationA)
            let b = try AuditStore(path: uri, configuration: configurationB)
            #expect(try await b.activities.record(app: "rides", activityId: "shared", now: Self.t0 + 1) == nil)
            try await Self.start(a, "A1", app: "rides", activity: "shared", holder: .openpush, at: Self.t0)
            #expect(try await b.activities.record(app: "rides", activityId: "shared", now: Self.t0 + 1)?.holder == .openpush)
            try await Self.change(b, "B1", .ended(app: "rides", activityId: "shared", at: Self.t0 + 500))
            #expect(try await a.activities.record(app: "rides", activityId: "shared", now: Self.t0 + 600)?.endedAt == Self.t0 + 500)
            await a.close()
            await b.close()
        }
    }

    // MARK: Helpers

    static func record(_ app: String, _ activity: String, _ holder: ActivityHolder, at: Int64, request: String, cohort: String? = nil) -> ActivityRecord {
        ActivityRecord(app: app, activityId: activity, dialect: .onesignal, holder: holder, startedAt: at, cohortKey: cohort, requestId: request)
    }

    /// Begins request `id` and finishes it with a start of `activity`.
    static func start(_ store: AuditStore, _ id: String, app: String, activity: String, holder: ActivityHolder, at: Int64, cohort: String? = nil) async throws {
        try await store.begin(sampleEntry(id, receivedAt: at))
        try await finish(store, id, .started(record(app, activity, holder, at: at, request: id, cohort: cohort)))
    }

    /// Begins request `id` and finishes it with `change`.
    static func change(_ store: AuditStore, _ id: String, _ change: ActivityLedgerChange) async throws {
        try await store.begin(sampleEntry(id))
        try await finish(store, id, change)
    }

    static func finish(_ store: AuditStore, _ id: String, _ change: ActivityLedgerChange) async throws {
        var completion = sampleCompletion()
        completion.ledger = [change]
        try await store.finish(id, completion)
    }
}
