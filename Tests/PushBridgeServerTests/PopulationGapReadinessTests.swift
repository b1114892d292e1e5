import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Population gaps (OpenPush cannot reach a phone still on the old app version) are their own
/// figure in readiness, the report and `/metrics`, never an error or a real disagreement;
/// readiness weighs reach, the rate of an app's busiest minute and the losses a team
/// accepted, and ends with next steps that name apps by name.
@Suite(.serialized) struct PopulationGapReadinessTests {
    /// OpenPush's documented 400 to a start whose audience has no push-to-start token (the sandbox's words).
    static let noToken = HTTPResponse(status: 400, headers: [("Content-Type", "application/json")],
                                      body: Array(#"{"errors":["activity_type: no device has registered a push-to-start token for DeliveryAttributes in the target audience"]}"#.utf8))

    /// A real shadow run: the phone behind the marked start is not on OpenPush yet (its 400),
    /// the legacy provider delivers it. Whichever side is primary, that is an expected
    /// disagreement, no OpenPush error, and readiness does not say "shadow disagreed".
    @Test(arguments: ShadowPrimary.allCases) func aShadowComparisonWhoseOpenPushSideIsAPopulationGapIsExpectedNotADisagreement(primary: ShadowPrimary) async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.shadowed, shadow: primary, openPushFault: Self.noToken)
        for i in 0..<3 { try await run.send("fine_\(i)") }
        try await run.send(ReadinessRun.marker + "gap")
        #expect(await run.comparisons(4))
        let readiness = try run.readiness()
        let route = try #require(readiness.apps.first?.routes.first)
        #expect(route.shadowed == 4 && route.disagreements == 0 && route.expectedDisagreements == 1, "\(route)")
        #expect(route.openPushErrors == 0 && route.openPushGaps == 1 && route.openPushCalls == 3, "\(route)")
        #expect(route.reach == 0.75)
        #expect(route.verdict == .ready && route.reasons.isEmpty, "\(route.reasons)")
        #expect(!ReadinessRendering.text(readiness).contains("shadow disagreed"))
        #expect(ReadinessRendering.text(readiness).contains("1 expected (population gaps)"))
        let app = try #require(readiness.apps.first)
        #expect(app.legacy.verdict == .notYet)
        #expect(app.legacy.reasons.contains { $0.hasPrefix("onesignal start: OpenPush reached 75.0% of 4 calls (at least 99.0%); 1 population gap") }, "\(app.legacy.reasons)")

        let report = try AuditReader(path: run.proxy.auditPath).report(ReportFilter(app: "os"), readiness: ReadinessSettings(try run.configuration))
        #expect(report.shadow.comparisons == 4 && report.shadow.disagreements == 0 && report.shadow.expectedDisagreements == 1, "\(report.shadow)")
        #expect(report.shadow.disagreementExamples.isEmpty)
        await run.stop()
    }

    /// A real error on the OpenPush side stays a disagreement and an error beside a gap.
    @Test func aRealRefusalBesideAGapStaysADisagreement() async throws {
        let refused = HTTPResponse(status: 422, headers: [("Content-Type", "application/json")], body: Array(#"{"errors":["name: too long"]}"#.utf8))
        let run = try ReadinessRun(readiness: ReadinessLiveTests.shadowed, shadow: .legacy, openPushFault: refused)
        for i in 0..<2 { try await run.send("fine_\(i)") }
        let id = try await run.send(ReadinessRun.marker + "real")
        #expect(await run.comparisons(3))
        let route = try #require(try run.readiness().apps.first?.routes.first)
        #expect(route.disagreements == 1 && route.expectedDisagreements == 0 && route.openPushErrors == 1 && route.openPushGaps == 0)
        #expect(route.reasons.first == "shadow disagreed on 1 of 3 comparisons (33.3%; at most 0.0%): legacy:onesignal 2xx vs openpush 4xx ×1 (e.g. \(id))", "\(route.reasons)")
        await run.stop()
    }

    /// Rows whose outcome says the audience is not on a provider (`not_on_openpush`,
    /// `not_on_legacy`) are gaps on both engines: not OpenPush errors, counted in reach.
    @Test(arguments: AuditEngine.allCases) func gapOutcomesAreCountedApartFromErrorsOnBothEngines(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let base: Int64 = 1_700_000_000_000
            for index in 0..<6 {
                var entry = sampleEntry("G\(index)", receivedAt: base + Int64(index) * 61_000, findings: 0, app: "app-2")
                entry.appName = "rides"
                let outcome: AuditOutcome = index == 4 ? .notOnOpenPush : index == 5 ? .notOnLegacy : .forwarded
                let status = index == 4 ? 400 : 201
                try await store.record(entry, AuditCompletion(finishedAt: entry.receivedAt + 5, outcome: outcome, upstreamStatus: status,
                                                              upstreamBody: index == 4 ? String(decoding: Self.noToken.body, as: UTF8.self) : "{}",
                                                              attempts: [UpstreamAttempt(startedAt: entry.receivedAt + 1, status: status, latencyMs: 3)], responseStatus: 200))
            }
            await store.close()
            var settings = ReadinessSettings(apps: [.init(name: "rides", dialect: "onesignal", sourceAppId: "app-2")])
            settings.thresholds.minRequests = 6
            settings.thresholds.minShadowed = 0
            let readiness = try AuditReader(path: path).readiness(settings: settings, inFlight: [])
            let app = try #require(readiness.apps.first)
            let route = try #require(app.routes.first)
            #expect(app.app == "rides" && route.requests == 6 && route.openPushGaps == 1 && route.legacyGaps == 1, "\(route)")
            #expect(route.openPushCalls == 4 && route.openPushErrors == 0 && route.verdict == .ready, "\(route)")
            #expect(route.reach == 0.8)
            #expect(app.legacy.verdict == .notYet)
            settings.thresholds.minReach = 0.8
            let lower = try #require(try AuditReader(path: path).readiness(settings: settings, inFlight: []).apps.first)
            #expect(lower.legacy.verdict == .canBeSwitchedOff && lower.legacy.reasons.isEmpty, "\(lower.legacy)")
            #expect(lower.legacy.nextSteps == ["rides: the legacy provider can be switched off for it"])
            // Activities the legacy provider still holds keep it on, with the time the last can be updated.
            let until = base + ActivityRecord.lifetimeMs
            let held = try #require(try AuditReader(path: path).readiness(settings: settings, inFlight: [ActivityCount(app: "rides", holder: .legacy, count: 2, lastReachableUntil: until),
                                                                                                         ActivityCount(app: "rides", holder: .openpush, count: 5, lastReachableUntil: until)]).apps.first)
            #expect(held.legacy.verdict == .notYet && held.legacyInFlight == 2 && held.openPushInFlight == 5)
            #expect(held.legacy.reasons == ["2 activities in flight on the legacy side; the last can be updated until \(RFC3339.format(milliseconds: until))"])
            // Without the ledger, nothing can be promised.
            let unknown = try #require(try AuditReader(path: path).readiness(settings: settings).apps.first)
            #expect(unknown.legacy.verdict == .notYet && unknown.legacy.reasons == ["activities in flight on the legacy side are not known (no activity ledger was read)"])
        }
    }

    /// An app whose busiest minute is above OpenPush's 60 per 60 s is not ready, with the
    /// figure and how far a paced queue falls behind; one at the limit is ready.
    @Test(arguments: AuditEngine.allCases) func anAppAboveOpenPushsRateInItsBusiestMinuteIsNotReady(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let minute: Int64 = 1_700_000_040_000 // 2023-11-14T22:14:00Z, a minute's start
            for index in 0..<75 {
                // 60 in the busy minute for "calm", 75 for "busy"; the rest spread over later minutes.
                for (app, source, busy) in [("busy", "app-b", 75), ("calm", "app-c", 60)] where index < busy {
                    var entry = sampleEntry("\(app)-\(index)", receivedAt: minute + Int64(index) * 700, findings: 0, app: source)
                    entry.appName = app
                    entry.targetApp = "op-\(app)"
                    try await store.record(entry, sampleCompletion(finishedAt: entry.receivedAt + 5))
                }
            }
            // Rejected requests are never sent: they do not count toward the rate.
            for index in 0..<5 {
                var entry = sampleEntry("calm-rejected-\(index)", receivedAt: minute + 100 + Int64(index), findings: 0, app: "app-c")
                entry.appName = "calm"
                try await store.record(entry, AuditCompletion(finishedAt: entry.receivedAt + 1, outcome: .rejected, responseStatus: 400))
            }
            await store.close()
            var settings = ReadinessSettings(apps: [.init(name: "busy", dialect: "onesignal", sourceAppId: "app-b"), .init(name: "calm", dialect: "onesignal", sourceAppId: "app-c")])
            settings.thresholds.minRequests = 1
            settings.thresholds.minShadowed = 0
            let readiness = try AuditReader(path: path).readiness(settings: settings, inFlight: [])
            let busy = try #require(readiness.apps.first { $0.app == "busy" }), calm = try #require(readiness.apps.first { $0.app == "calm" })
            #expect(busy.busiestMinute == BusiestMinute(start: minute, requests: 75, openPushApp: "op-busy", apps: ["busy"]) && busy.verdict == .notReady)
            #expect(busy.reasons == ["busiest minute 2023-11-14T22:14:00.000Z had 75 OpenPush sends to OpenPush app op-busy; OpenPush accepts 60 per 60 s per app: at that rate a paced queue falls 15 sends (15 s) further behind every minute"],
                    "\(busy.reasons)")
            #expect(busy.routes.allSatisfy { $0.verdict == .ready })
            #expect(calm.busiestMinute == BusiestMinute(start: minute, requests: 60, openPushApp: "op-calm", apps: ["calm"]) && calm.verdict == .ready && calm.reasons.isEmpty, "\(calm)")
            let text = ReadinessRendering.text(readiness)
            #expect(text.contains("busy: NOT READY\n    - busiest minute 2023-11-14T22:14:00.000Z had 75 OpenPush sends"), "\(text)")
            #expect(readiness.nextSteps.contains("busy: spread its sends below 60 a minute (its busiest minute had 75), or agree a higher limit with OpenPush and set readiness.openpush_requests_per_minute"))
            #expect(readiness.nextSteps.contains { $0.hasPrefix("calm: ready to cut over") })
        }
    }

    /// `readiness.accepted_losses` names the fields a team accepts to lose per app: shown
    /// with their share, no longer blocking; a bad value is named by `check-config`'s reader.
    @Test func acceptedLossesAreShownWithTheirShareAndNoLongerBlock() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.openPushOnly.with { $0.acceptedLosses = ["os": ["ios_interruption_level"]] })
        for i in 0..<3 { try await run.send("acc_\(i)") }
        let id = try await run.send("acc_3", extra: #""ios_interruption_level":"time-sensitive","#)
        let readiness = try run.readiness()
        let route = try #require(readiness.apps.first?.routes.first)
        #expect(route.verdict == .ready && route.warnings.isEmpty && route.reasons.isEmpty, "\(route)")
        #expect(route.acceptedLosses.map(\.field) == ["ios_interruption_level"] && route.acceptedLosses.first?.share == 0.25 && route.acceptedLosses.first?.exampleRequestId == id)
        #expect(ReadinessRendering.text(readiness).contains("accepted loss: ios_interruption_level dropped on 1 of 4 requests (25.0%)"))
        // Another app's acceptance does not cover this one.
        let other = try #require(try run.readiness(thresholds: { $0.acceptedLosses = ["pw": ["ios_interruption_level"]] }).apps.first?.routes.first)
        #expect(other.verdict == .notReady && other.acceptedLosses.isEmpty)
        #expect(try run.readiness(thresholds: { $0.acceptedLosses = [:] }).apps.first?.nextSteps == [])
        let steps = try run.readiness(thresholds: { $0.acceptedLosses = [:] }).nextSteps
        #expect(steps.first == "os: stop sending ios_interruption_level on onesignal start (OpenPush loses it), or accept its loss: list it under readiness.accepted_losses.os", "\(steps)")
        await run.stop()

        try withTemporaryDirectory { (directory: TemporaryDirectory) throws in
            let file = directory.path("bad.json")
            try Data(#"{"readiness": {"accepted_losses": {"os": ["", 3], "pw": "subtitle"}, "min_reach": 2, "openpush_requests_per_minute": 0}}"#.utf8).write(to: URL(fileURLWithPath: file))
            do throws(ConfigurationError) {
                _ = try ReadinessSettings.load(fileAt: file)
                Issue.record("a bad readiness object loaded")
            } catch {
                let text = error.problems.map { "\($0.path): \($0.message)" }
                for expected in ["readiness.accepted_losses.os[0]: expected a non-empty field path", "readiness.accepted_losses.os[1]: expected a non-empty field path",
                                 "readiness.accepted_losses.pw: expected an array of field paths", "readiness.min_reach: must be a share from 0 to 1 (0.001 is 0.1%)",
                                 "readiness.openpush_requests_per_minute: must be between 1 and 2147483647"] {
                    #expect(text.contains { $0.hasSuffix(expected) }, "\(expected) not in \(text)")
                }
            }
        }
    }

    /// The report names apps by their configured name, in its finding tables and in the
    /// readiness section, which ends with next steps; `--app` takes the name.
    @Test(arguments: AuditEngine.allCases) func theReportNamesAppsByNameAndEndsItsReadinessWithNextSteps(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await fillVariedAudit(store)
            await store.close()
            let settings = ReadinessSettings(apps: [.init(name: "rides", dialect: "onesignal", sourceAppId: "app-2"), .init(name: "scores", dialect: "onesignal", sourceAppId: "app-1")])
            let report = try AuditReader(path: path).report(readiness: settings)
            let apps = Set((report.dropped + report.changes).flatMap(\.apps))
            #expect(apps == ["rides", "scores"], "\(apps)")
            let named = try AuditReader(path: path).report(ReportFilter(app: "rides"), readiness: settings)
            #expect(named.totalRequests == 10 && Set((named.dropped + named.changes).flatMap(\.apps)) == ["rides"])
            let text = ReportRenderer.render(report, as: .text)
            let steps = try #require(text.range(of: "next steps:\n"))
            #expect(text[steps.upperBound...].hasPrefix("    1. rides: "), "\(text)")
            #expect(!text.contains("app-2:") && !text.contains("app-1:"))
            for format in [ReportFormat.md, .html] {
                #expect(ReportRenderer.render(report, as: format).contains("Next steps"), "\(format)")
            }
            let json = try JSONParser.parse(Array(ReportRenderer.render(report, as: .json).utf8)).objectValue
            #expect(json?["readiness"]?.objectValue?["next_steps"]?.arrayValue?.isEmpty == false)
        }
    }

    /// `/metrics` counts OpenPush's population-gap answers apart from 4xx errors, and rows
    /// with a gap outcome in their own family.
    @Test func metricsCountPopulationGapsApartFromErrors() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.openPushOnly, openPushFault: Self.noToken)
        try await run.send("fine_0")
        try await run.send(ReadinessRun.marker + "gap")
        let body = try await run.proxy.get("/metrics").2
        let samples = try #require(PrometheusTextParser.parse(String(decoding: body, as: UTF8.self)))
        let attempts = { (result: String) in samples.first { $0.name == "pushbridge_upstream_attempts_total" && $0.labels == ["result": result] }?.value }
        #expect(attempts("population_gap") == "1", "\(samples)")
        #expect(attempts("4xx") == nil)
        #expect(attempts("2xx") == "1")
        await run.stop()

        let metrics = Metrics()
        metrics.recordPopulationGap(app: "rides", outcome: .notOnOpenPush)
        metrics.recordPopulationGap(app: "rides", outcome: .notOnOpenPush)
        metrics.recordPopulationGap(app: "rides", outcome: .failed)
        let rendered = metrics.render()
        #expect(rendered.contains("pushbridge_population_gaps_total{app=\"rides\",outcome=\"not_on_openpush\"} 2\n"), "\(rendered)")
        #expect(!rendered.contains("outcome=\"failed\""))
    }
}
