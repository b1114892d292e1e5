import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// `readiness` over audits written by real proxy runs (``ReadinessRun``): ready, not ready for
/// each reason, not enough traffic, and the exit status a deploy pipeline gates on.
@Suite(.serialized) struct ReadinessLiveTests {
    static let openPushOnly = TestConfiguration.Readiness(minRequests: 3, minShadowed: 0)
    static let shadowed = TestConfiguration.Readiness(minRequests: 3, minShadowed: 3)

    @Test func shadowedCleanTrafficIsReadyAndTheCommandExitsZeroOnlyForReadyApps() async throws {
        let run = try ReadinessRun(readiness: Self.shadowed, shadow: .openpush)
        for i in 0..<3 { try await run.send("ready_\(i)") }
        #expect(await run.comparisons(3))
        let readiness = try run.readiness()
        let app = try #require(readiness.apps.first)
        #expect(readiness.apps.count == 1 && app.app == "os" && app.verdict == .ready, "\(readiness.apps)")
        let route = try #require(app.routes.first)
        #expect(route.dialect == "onesignal" && route.route == "start" && route.reasons.isEmpty)
        #expect(route.requests == 3 && route.shadowed == 3 && route.disagreements == 0 && route.openPushCalls == 3 && route.openPushErrors == 0)
        #expect(readiness.allReady && readiness.notes == [Readiness.unhandledRoutesNote])

        let config = try run.configFile()
        let ready = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "os"])
        #expect(ready.status == 0, "\(ready.stdout)\(ready.stderr)")
        #expect(ready.stdout.contains("os: READY") && ready.stdout.contains("onesignal start: READY — 3 requests, 3 shadowed, 0 disagreements"), "\(ready.stdout)")
        // The other configured apps had no traffic: the whole configuration is not ready.
        let all = try await CLIRunner.runAsync(["readiness", "--config", config, "--format", "json"])
        #expect(all.status == 1, "\(all.stderr)")
        let json = try JSONParser.parse(Array(all.stdout.utf8)).objectValue
        #expect(json?["all_ready"] == .bool(false))
        let verdicts = (json?["apps"]?.arrayValue ?? []).map { ($0.objectValue?["app"]?.stringValue ?? "", $0.objectValue?["verdict"]?.stringValue ?? "") }
        #expect(verdicts.map(\.0) == ["os", "os-mapped", "pw", "bk"] && verdicts.map(\.1) == ["ready", "not enough traffic", "not enough traffic", "not enough traffic"])
        let usage = try await CLIRunner.runAsync(["readiness", "--since", "yesterday"])
        #expect(usage.status == 2 && usage.stderr.contains("--since takes an ISO 8601 date"))
        await run.stop()
    }

    @Test func tooFewRequestsIsNotEnoughTrafficUntilTheMinimumIsSeen() async throws {
        let run = try ReadinessRun(readiness: Self.openPushOnly)
        for i in 0..<2 { try await run.send("short_\(i)") }
        let short = try #require(try run.readiness().apps.first)
        #expect(short.verdict == .notEnoughTraffic && short.routes.first?.reasons == ["2 requests seen; 3 needed"], "\(short)")
        try await run.send("short_2")
        #expect(try run.readiness().apps.first?.verdict == .ready)
        let shadowWanted = try #require(try run.readiness(thresholds: { $0.minShadowed = 1 }).apps.first?.routes.first)
        #expect(shadowWanted.verdict == .notEnoughTraffic && shadowWanted.reasons.first?.hasPrefix("0 shadow comparisons; 1 needed") == true)
        await run.stop()
    }

    @Test func aWarningFieldOnMoreThanItsShareIsNotReadyWithTheFieldAndAnExample() async throws {
        let run = try ReadinessRun(readiness: Self.openPushOnly)
        for i in 0..<3 { try await run.send("warn_\(i)") }
        let id = try await run.send("warn_3", extra: #""ios_interruption_level":"time-sensitive","#)
        let route = try #require(try run.readiness().apps.first?.routes.first)
        #expect(route.verdict == .notReady)
        let warning = try #require(route.warnings.first)
        #expect(route.warnings.count == 1 && warning.field == "ios_interruption_level" && warning.kind == "dropped")
        #expect(warning.requests == 1 && warning.share == 0.25 && warning.exampleRequestId == id)
        #expect(route.reasons.count == 1 && route.reasons[0].hasPrefix("ios_interruption_level dropped on 1 of 4 requests (25.0%; at most 0.1%), e.g. \(id): "), "\(route.reasons)")
        #expect(try run.readiness(thresholds: { $0.maxWarningShare = 0.25 }).apps.first?.verdict == .ready)
        await run.stop()
    }

    @Test func aRejectionRuleIsNotReadyWithTheRuleAndAnExample() async throws {
        let run = try ReadinessRun(readiness: Self.openPushOnly)
        for i in 0..<3 { try await run.send("reject_\(i)") }
        let id = try await run.send("reject_3", extra: #""priority":7,"#)
        let route = try #require(try run.readiness().apps.first?.routes.first)
        let rejection = try #require(route.rejections.first)
        #expect(route.verdict == .notReady && rejection.field == "priority" && rejection.kind == "rejected" && rejection.exampleRequestId == id)
        #expect(route.warnings.isEmpty && route.openPushCalls == 3, "a rejected request reached OpenPush")
        #expect(route.reasons == ["PushBridge rejected 1 of 4 requests on priority (25.0%; at most 0.1%), e.g. \(id): \(rejection.exampleMessage)"])
        #expect(rejection.exampleMessage.contains("must be exactly 5 or 10"))
        await run.stop()
    }

    @Test func aShadowDisagreementIsNotReadyWithBothSidesStatusClasses() async throws {
        let refused = HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: Array(#"{"errors":["bad"]}"#.utf8))
        let run = try ReadinessRun(readiness: Self.shadowed, shadow: .openpush, legacyFault: refused)
        for i in 0..<2 { try await run.send("agree_\(i)") }
        let id = try await run.send(ReadinessRun.marker + "0")
        #expect(await run.comparisons(3))
        let route = try #require(try run.readiness().apps.first?.routes.first)
        #expect(route.verdict == .notReady && route.shadowed == 3 && route.disagreements == 1)
        #expect(route.disagreementCells == [ReadinessDisagreement(primary: "openpush 2xx", shadow: "legacy:onesignal 4xx", count: 1, exampleRequestId: id)])
        #expect(route.reasons == ["shadow disagreed on 1 of 3 comparisons (33.3%; at most 0.0%): openpush 2xx vs legacy:onesignal 4xx ×1 (e.g. \(id))"])
        await run.stop()
    }

    @Test func openPushErrorsAboveTheirRateAreNotReady() async throws {
        let failing = HTTPResponse(status: 500, headers: [("Content-Type", "application/json")], body: Array(#"{"errors":["internal"]}"#.utf8))
        let run = try ReadinessRun(readiness: Self.openPushOnly.with { $0.maxRateLimitedRate = 1 }, openPushFault: failing)
        for i in 0..<3 { try await run.send("ok_\(i)") }
        try await run.send(ReadinessRun.marker + "1")
        let route = try #require(try run.readiness().apps.first?.routes.first)
        #expect(route.verdict == .notReady && route.openPushCalls == 4 && route.openPushErrors == 1 && route.rateLimited == 0)
        #expect(route.reasons == ["OpenPush answered 1 of 4 calls without a 2xx (25.0%; at most 1.0%)"])
        await run.stop()
    }

    @Test func openPush429sAboveTheirRateAreNotReady() async throws {
        let limited = HTTPResponse(status: 429, headers: [("Retry-After", "1"), ("Content-Type", "application/json")], body: Array(#"{"errors":["rate_limit"]}"#.utf8))
        let run = try ReadinessRun(readiness: Self.openPushOnly.with { $0.maxOpenPushErrorRate = 1 }, openPushFault: limited)
        for i in 0..<3 { try await run.send("fine_\(i)") }
        try await run.send(ReadinessRun.marker + "2")
        let route = try #require(try run.readiness().apps.first?.routes.first)
        #expect(route.verdict == .notReady && route.openPushCalls == 4 && route.rateLimited == 1)
        #expect(route.reasons == ["OpenPush answered 429 to 1 of 4 calls (25.0%; at most 5.0%)"])
        await run.stop()
    }
}
