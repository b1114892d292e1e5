import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29, item 11: the verdicts know the stage and the window. Each app is judged by
/// default on its traffic since its current stage began (the stage history; the whole audit
/// before any, saying so), reach counts only delivered calls, the next steps are for the
/// stage the app is in, every printed command runs as printed, and after a drain the default
/// and `--since` agree.
@Suite(.serialized) struct StageAwareReadinessLiveTests {
    /// The `pushbridge …` commands a next step prints (after its last `: ` and any `, e.g. `).
    static func commands(in step: String) -> [String] {
        step.components(separatedBy: ", e.g. ").compactMap { part in part.range(of: "pushbridge ").map { String(part[$0.lowerBound...]) } }
    }

    /// Runs a printed command as printed, through the shell, with this build's binary.
    static func runAsPrinted(_ command: String) async throws -> CLIRunner.Output {
        try await CLIRunner.shellAsync(["bash", "-c", ProcessShellQuote.word(CLIRunner.binary.path) + command.dropFirst("pushbridge".count)])
    }

    static let refused = HTTPResponse(status: 403, headers: [("Content-Type", "application/json")], body: Array(#"{"errors":["forbidden: wrong REST key"]}"#.utf8))

    @Test func anIncidentBeforeTheCurrentStageIsNotJudgedByDefaultAndEachVerdictSaysItsWindow() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.openPushOnly, shadow: .openpush, openPushFault: Self.refused)
        for i in 0..<3 { try await run.send(ReadinessRun.marker + "old_\(i)") }
        #expect(await run.comparisons(3))
        let before = try #require(try run.readiness().apps.first)
        #expect(before.verdict == .notReady && before.window.basis == .currentStage, "\(before.window)")
        // The operator fixes the key and moves on to openpush: the incident is the shadow stage's.
        let reloadedAt = AuditClock.nowMilliseconds()
        run.proxy.runtime.reload(try run.proxy.configuration.with { $0.app("os") { $0.mode = .openpush; $0.shadow = nil } }.load())
        #expect(await eventually { (try? AuditReader(path: run.proxy.auditPath).stageChanges(app: "os").last?.kind) == .mode })
        for i in 0..<3 { try await run.send("new_\(i)") }
        let readiness = try run.readiness()
        let app = try #require(readiness.apps.first)
        #expect(app.verdict == .ready && app.routes.first?.requests == 3 && app.routes.first?.openPushErrors == 0, "\(app)")
        #expect(app.window.basis == .currentStage && (app.window.since ?? 0) >= reloadedAt && app.window.began?.kind == .mode)
        let text = ReadinessRendering.text(readiness)
        #expect(text.contains("    judged: since ") && text.contains(", when its stage became openpush (mode by "), "\(text)")
        let json = try JSONParser.parse(Array(ReadinessRendering.render(readiness, as: .json).utf8)).objectValue?["apps"]?.arrayValue?.first?.objectValue
        #expect(json?["window"]?.objectValue?["basis"] == .string("current stage") && json?["stage"] == .string("openpush"))
        // Asked for the whole audit, the incident is there again, and the window says "as asked".
        let asked = try #require(try AuditReader(path: run.proxy.auditPath).readiness(ReportFilter(since: 0, app: "os"), settings: ReadinessSettings(try run.configuration)).apps.first)
        #expect(asked.verdict == .notReady && asked.window.basis == .asked && asked.window.description.hasSuffix("(as asked)"))
        await run.stop()

        // An audit without a stage change: the whole audit, saying so.
        try await withTemporaryAudit(.sqlite) { path in
            let store = try AuditStore(path: path)
            var entry = sampleEntry("W0", receivedAt: 1_700_000_000_000, findings: 0, app: "app-2")
            entry.appName = "rides"
            try await store.record(entry, sampleCompletion(finishedAt: entry.receivedAt + 5))
            await store.close()
            let whole = try AuditReader(path: path).readiness(settings: ReadinessSettings(apps: [.init(name: "rides", dialect: "onesignal", sourceAppId: "app-2")]))
            #expect(whole.apps.first?.window.basis == .wholeAudit)
            #expect(ReadinessRendering.text(whole).contains("    judged: the whole audit (no stage change recorded for it)\n"))
        }
    }

    @Test func reachCountsOnlyWhatOpenPushDelivered() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.openPushOnly, shadow: .openpush, openPushFault: Self.refused)
        try await run.send("fine_0")
        for i in 0..<5 { try await run.send(ReadinessRun.marker + "refused_\(i)") }
        #expect(await run.comparisons(6))
        let app = try #require(try run.readiness().apps.first)
        let route = try #require(app.routes.first)
        #expect(route.openPushCalls == 6 && route.openPushErrors == 5)
        #expect(route.reach == 1.0 / 6.0, "\(String(describing: route.reach))")
        #expect(app.legacy.verdict == .notYet)
        #expect(app.legacy.reasons.contains { $0.hasPrefix("onesignal start: OpenPush reached 16.7% of 6 calls") && $0.hasSuffix("; 5 refused by OpenPush (not delivered)") },
                "\(app.legacy.reasons)")
        await run.stop()
    }

    @Test func nextStepsAreForTheStageTheAppIsInAndEveryPrintedCommandRunsAsPrinted() async throws {
        let broken = { @Sendable (request: HTTPRequest) -> HTTPResponse? in
            request.path.contains("/activities/activity/") && String(decoding: request.body, as: UTF8.self).contains("broken_") ? .json(500, .object(["errors": .array([.string("down")])])) : nil
        }
        let openPush = try RecordingSandbox(behaviour: broken), legacy = try RolloutLiveTests.Legacy()
        // Without fallback, OpenPush's refusals stay on their rows (with it they go to the legacy side).
        let configuration = RolloutLiveTests.configuration(openPush, legacy, rollout: .init(percent: 100, fallbackToLegacy: false)).with {
            $0.readiness = .init(minRequests: 2, minShadowed: 3)
            $0.delivery.maxAttempts = 1
        }
        let folder = try TemporaryDirectory("pushbridge readiness steps")
        let proxy = try ProxyHarness(.inProcess, configuration: configuration.with { $0.auditDatabase = folder.url("audit's file.sqlite").path })
        let c = RolloutLiveTests.cases[0]
        for i in 0..<2 { _ = try await proxy.send(path: c.path, body: c.body("alice", "fine_\(i)")) }
        let settings = ReadinessSettings(try proxy.configuration.load())
        let ready = try AuditReader(path: proxy.auditPath).readiness(ReportFilter(app: "os"), settings: settings)
        let app = try #require(ready.apps.first)
        // In rollout, shadow comparisons were a stage ago: not asked for, not suggested.
        #expect(app.verdict == .ready, "\(app)")
        #expect(ready.nextSteps.contains("os: ready at rollout 100%: set its mode to openpush"), "\(ready.nextSteps)")
        #expect(!ready.nextSteps.contains { $0.contains("shadow mode") || $0.contains("ready to cut over") || $0.contains("small percent") }, "\(ready.nextSteps)")
        // OpenPush fails; the window rolls the app back: the steps say so and print the resume and audit commands.
        for i in 0..<RolloutWindow.minimum { _ = try await proxy.send(path: c.path, body: c.body("alice", "broken_\(i)")) }
        #expect(proxy.runtime.rollouts.rollback(of: "os") != nil)
        #expect(await eventually { (try? AuditReader(path: proxy.auditPath).stageChanges(app: "os").last?.kind) == .rollback })
        let failing = try AuditReader(path: proxy.auditPath).readiness(ReportFilter(app: "os"), settings: settings)
        let steps = failing.nextSteps
        let resume = try #require(steps.first { $0.contains("rollout resume") }, "\(steps)")
        #expect(resume.hasPrefix("os: its rollout was rolled back at ") && resume.contains("max_openpush_error_rate"), "\(resume)")
        let audit = try #require(steps.first { $0.contains("audit list") }, "\(steps)")
        let printed = Self.commands(in: audit) + Self.commands(in: resume)
        #expect(printed.count == 3 && printed.allSatisfy { $0.contains("--db '\(proxy.auditPath.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''"))'") }, "\(printed)")
        for command in printed {
            let result = try await Self.runAsPrinted(command)
            #expect(result.status == 0, "\(command)\n\(result.stdout)\(result.stderr)")
            if command.contains("audit show") { #expect(result.stdout.contains("500"), "\(result.stdout)") }
            if command.contains("audit list") { #expect(result.stdout.contains("broken") || result.stdout.contains("os"), "\(result.stdout)") }
        }
        #expect(await eventually { proxy.runtime.rollouts.rollback(of: "os") == nil })
        await proxy.stop()
    }

    @Test func afterADrainTheDefaultAndSinceAgreeThatLegacyCanBeSwitchedOff() async throws {
        let affinity = ActivityAffinityTests.cases[0]
        let openPush = try RecordingSandbox(), legacy = try RolloutLiveTests.Legacy()
        let configuration = RolloutLiveTests.configuration(openPush, legacy, rollout: .init(percent: 100)).with { $0.readiness = .init(minRequests: 2, minShadowed: 1) }
        let proxy = try ProxyHarness(.inProcess, configuration: configuration)
        let c = RolloutLiveTests.cases[0]
        // carol is on the old app: her start falls back to the legacy provider (a population gap).
        _ = try await proxy.send(path: c.path, body: c.body("carol", "carol_1"))
        _ = try await proxy.send(path: c.path, body: c.body("alice", "alice_1"))
        let openPushOnly = configuration.with { $0.setMode(.openpush); for i in $0.apps.indices { $0.apps[i].rollout = nil } }
        proxy.runtime.reload(try openPushOnly.load())
        #expect(await eventually { (try? AuditReader(path: proxy.auditPath).stageChanges(app: "os").last?.kind) == .mode })
        let stageBegan = try #require(try AuditReader(path: proxy.auditPath).stageChanges(app: "os").last?.at)
        _ = try await proxy.send(path: c.path, body: c.body("alice", "alice_2"))
        // The drain: carol's activity ends on the legacy side; nothing is left in flight there.
        let end = try await proxy.send(path: affinity.updatePath("carol_1"), body: affinity.update("carol_1", "end"))
        #expect(end.status == 200 && legacy.os.all.count == 2)
        let config = proxy.directory.appendingPathComponent("openpush.json").path
        _ = try openPushOnly.with { $0.auditDatabase = proxy.auditPath }.write(to: config)
        let byDefault = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "os"], environment: [:])
        let since = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "os", "--since", String(stageBegan)], environment: [:])
        for (name, out) in [("default", byDefault), ("--since", since)] {
            #expect(out.status == 0, "\(name): \(out.stdout)\(out.stderr)")
            #expect(out.stdout.contains("\n  os: READY\n") && out.stdout.contains("legacy provider: LEGACY CAN BE SWITCHED OFF"), "\(name): \(out.stdout)")
            #expect(!out.stdout.contains("NOT ENOUGH TRAFFIC") && !out.stdout.contains("KEEP LEGACY"), "\(name): \(out.stdout)")
        }
        #expect(byDefault.stdout.contains("judged: since \(RFC3339.format(milliseconds: stageBegan)), when its stage became openpush"), "\(byDefault.stdout)")
        await proxy.stop()
    }
}

/// One shell word for a path (single quotes, a quote inside escaped).
enum ProcessShellQuote {
    static func word(_ text: String) -> String { "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'" }
}
