import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// ``ActivityRules``, the event rules of a Live Activity over its record: every row of both
/// tables, each a case of its own.
struct ActivityRulesTests {
    static let now: Int64 = 1_781_049_600_000

    /// One row of the decision table: a record (or none) as `app` asks, the event, the decision.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var record: ActivityRecord?
        var waited = false
        var start: ActivityRules.Decision
        var updateOrEnd: ActivityRules.Decision
        var testDescription: String { name }
    }

    /// A record of `app`, started `ago` ms before ``now``, in `state`, ended when `ended`.
    static func record(_ app: String = "a", _ state: ActivityStartState = .accepted, holder: ActivityHolder = .legacy, ago: Int64 = 1000,
                       ended: Bool = false) -> ActivityRecord {
        ActivityRecord(app: app, activityId: "act", dialect: .onesignal, holder: holder, startedAt: now - ago, endedAt: ended ? now - 10 : nil,
                       requestId: "R", openPushApp: "op", startState: state)
    }

    static let rows: [Row] = [
        Row(name: "no record", record: nil, start: .newPlacement, updateOrEnd: .newPlacement),
        Row(name: "refused start", record: record("a", .refused), start: .newPlacement, updateOrEnd: .newPlacement),
        Row(name: "past its lifetime", record: record(ago: ActivityRecord.lifetimeMs + 1), start: .newPlacement, updateOrEnd: .newPlacement),
        Row(name: "another app's, accepted", record: record("b"), start: .refuseCrossTenant(owner: "b"), updateOrEnd: .refuseCrossTenant(owner: "b")),
        Row(name: "another app's, in flight", record: record("b", .inFlight), start: .refuseCrossTenant(owner: "b"), updateOrEnd: .refuseCrossTenant(owner: "b")),
        Row(name: "another app's, ended", record: record("b", ended: true), start: .newPlacement, updateOrEnd: .refuseCrossTenant(owner: "b")),
        Row(name: "another app's, refused", record: record("b", .refused), start: .newPlacement, updateOrEnd: .newPlacement),
        Row(name: "in flight, fresh", record: record("a", .inFlight, holder: .openpush), start: .waitForStart, updateOrEnd: .waitForStart),
        Row(name: "in flight, waited", record: record("a", .inFlight, holder: .openpush), waited: true, start: .onHolder(.openpush), updateOrEnd: .onHolder(.openpush)),
        Row(name: "in flight, stale", record: record("a", .inFlight, holder: .openpush, ago: ActivityRules.staleInFlightMs + 1),
            start: .onHolder(.openpush), updateOrEnd: .onHolder(.openpush)),
        Row(name: "accepted", record: record(holder: .legacy), start: .onHolder(.legacy), updateOrEnd: .onHolder(.legacy)),
        Row(name: "accepted on both", record: record(holder: .both), start: .onHolder(.both), updateOrEnd: .onHolder(.both)),
        Row(name: "ended", record: record(ended: true), start: .newPlacement, updateOrEnd: .onHolder(.legacy)),
    ]

    @Test(arguments: rows) func everyRowOfTheDecisionTable(_ row: Row) {
        #expect(ActivityRules.decide(row.record, event: .start, app: "a", now: Self.now, waited: row.waited) == row.start)
        for event in [ActivityRules.Event.update, .end] {
            #expect(ActivityRules.decide(row.record, event: event, app: "a", now: Self.now, waited: row.waited) == row.updateOrEnd, "\(event)")
        }
    }

    @Test func theDecisionTableCoversEveryStartStateForBothTenants() {
        let covered = Set(Self.rows.compactMap { $0.record.map { "\($0.app) \($0.startState.rawValue)" } })
        for app in ["a", "b"] {
            for state in ActivityStartState.allCases { #expect(covered.contains("\(app) \(state.rawValue)"), "\(app) \(state)") }
        }
    }

    /// One row of the effect table.
    struct EffectRow: Sendable, CustomTestStringConvertible {
        var decision: ActivityRules.Decision
        var event: ActivityRules.Event
        var accepted: ActivityRules.Effect
        var notAccepted: ActivityRules.Effect
        var testDescription: String { "\(decision) \(event)" }
    }

    static let effects: [EffectRow] = [
        EffectRow(decision: .newPlacement, event: .start, accepted: .place, notAccepted: .place),
        EffectRow(decision: .newPlacement, event: .update, accepted: .learn, notAccepted: .none),
        EffectRow(decision: .newPlacement, event: .end, accepted: .none, notAccepted: .none),
        EffectRow(decision: .onHolder(.openpush), event: .start, accepted: .none, notAccepted: .none),
        EffectRow(decision: .onHolder(.legacy), event: .update, accepted: .update, notAccepted: .none),
        EffectRow(decision: .onHolder(.both), event: .end, accepted: .end, notAccepted: .none),
    ] + ActivityRules.Event.allCases.flatMap { event in
        [EffectRow(decision: .refuseCrossTenant(owner: "b"), event: event, accepted: .none, notAccepted: .none),
         EffectRow(decision: .waitForStart, event: event, accepted: .none, notAccepted: .none)]
    }

    @Test(arguments: effects) func everyRowOfTheEffectTable(_ row: EffectRow) {
        #expect(ActivityRules.effect(of: row.decision, event: row.event, accepted: true) == row.accepted)
        #expect(ActivityRules.effect(of: row.decision, event: row.event, accepted: false) == row.notAccepted)
    }
}
