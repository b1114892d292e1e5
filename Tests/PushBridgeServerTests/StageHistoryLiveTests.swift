import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29, item 12: every stage or percent change, rollback, resume and legacy removal is
/// recorded in the audit's `stage_changes` with its time, instance and configuration
/// fingerprint, logged, printed by `pushbridge stages` and shown on the admin page; a
/// rollback stays visible after its resume; instances sharing a PostgreSQL audit see each
/// other's changes.
@Suite(.serialized) struct StageHistoryLiveTests {
    /// The history the audit at `path` holds now for `app`.
    static func history(_ path: String, app: String = "os") -> [StageChange] {
        (try? AuditReader(path: path).stageChanges(app: app)) ?? []
    }

    @Test func aReloadRecordsWhatItChangedPerAppAndTheCommandPrintsIt() async throws {
        let openPush = try RecordingSandbox(), legacy = try RolloutLiveTests.Legacy()
        let start = RolloutLiveTests.configuration(openPush, legacy, rollout: .init(percent: 5)).with { $0.instanceName = "edge-1" }
        let proxy = try ProxyHarness(.inProcess, configuration: start)
        #expect(await eventually { Self.history(proxy.auditPath).map(\.kind) == [.startUp] })
        let fifty = start.with { c in for i in c.apps.indices { c.apps[i].rollout?.percent = 50 } }
        proxy.runtime.reload(try fifty.load())
        let openPushOnly = start.with { $0.setMode(.openpush); for i in $0.apps.indices { $0.apps[i].rollout = nil } }
        proxy.runtime.reload(try openPushOnly.load())
        let legacyOff = openPushOnly.with { $0.legacy = [:] }
        proxy.runtime.reload(try legacyOff.load())
        try #require(await eventually { Self.history(proxy.auditPath).count == 4 }, "\(Self.history(proxy.auditPath))")
        let rows = Self.history(proxy.auditPath)
        #expect(rows.map(\.kind) == [.startUp, .percent, .mode, .legacyRemoved], "\(rows.map(\.kind))")
        #expect(rows.map(\.stageText) == ["rollout 5%", "rollout 50%", "openpush", "openpush, legacy off"])
        #expect(rows.map(\.previous) == [nil, "rollout 5%", "rollout 50%", "openpush"])
        #expect(rows[1].detail == "rollout.percent 5 → 50" && rows[2].detail == "mode rollout 50% → openpush", "\(rows.map(\.detail))")
        #expect(rows[3].detail.hasPrefix("legacy.onesignal removed"))
        #expect(rows.allSatisfy { $0.instance == "edge-1" })
        let fingerprints = try [start, fifty, openPushOnly, legacyOff].map { try $0.load().stageFingerprint }
        #expect(rows.map(\.fingerprint) == fingerprints && Set(fingerprints).count == 4)
        // The other two apps are recorded as well, and every change is logged.
        await proxy.runtime.rollouts.history.flush()
        #expect(Self.history(proxy.auditPath, app: "pw").count == 4)
        #expect(proxy.log.lines.contains { $0.contains("msg=\"stage change\"") && $0.contains("app=os") && $0.contains("kind=\"legacy removed\"") }, "\(proxy.log.lines)")
        // A reload that changes nothing records nothing.
        proxy.runtime.reload(try legacyOff.load())
        await proxy.runtime.rollouts.history.flush()
        #expect(Self.history(proxy.auditPath).count == 4)
        await proxy.stop()

        // A restart at the same stage records nothing; `pushbridge stages` prints the history.
        let again = try ProxyHarness(.inProcess, configuration: legacyOff.with { $0.auditDatabase = proxy.auditPath })
        await again.runtime.rollouts.history.flush()
        #expect(Self.history(proxy.auditPath).count == 4)
        await again.stop()
        let printed = try await CLIRunner.runAsync(["stages", "--db", proxy.auditPath, "--app", "os"], environment: [:])
        #expect(printed.status == 0, "\(printed.stderr)")
        let lines = printed.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(lines.count == 4 && lines[1].contains("  os  percent: rollout 50% (was rollout 5%)  by edge-1  config \(fingerprints[1])"), "\(printed.stdout)")
        #expect(printed.stdout.contains("    rollout.percent 5 → 50\n"))
    }

    @Test func twoInstancesOnPostgreSQLSeeEachOthersChangesAndARollbackStaysVisibleAfterItsResume() async throws {
        let database = try PostgresTestCluster.start().makeDatabase()
        let broken = { @Sendable (request: HTTPRequest) -> HTTPResponse? in
            request.path.contains("/activities/activity/") ? .json(400, .object(["errors": .array([.string("event_updates: broken on purpose")])])) : nil
        }
        let openPushA = try RecordingSandbox(behaviour: broken), openPushB = try RecordingSandbox(behaviour: broken)
        let legacyA = try RolloutLiveTests.Legacy(), legacyB = try RolloutLiveTests.Legacy()
        let configA = RolloutLiveTests.configuration(openPushA, legacyA, rollout: .init(percent: 100)).with { $0.auditDatabase = database; $0.instanceName = "edge-a" }
        let a = try ProxyHarness(.inProcess, configuration: configA)
        await a.runtime.rollouts.history.flush()
        let b = try ProxyHarness(.inProcess, configuration: RolloutLiveTests.configuration(openPushB, legacyB, rollout: .init(percent: 100))
            .with { $0.auditDatabase = database; $0.instanceName = "edge-b" })
        await b.runtime.rollouts.history.flush()
        // B started at the stage A recorded: nothing new.
        #expect(Self.history(database).map(\.instance) == ["edge-a"])
        // A reload on B is read on A's connection.
        let configB40 = b.configuration.with { c in for i in c.apps.indices { c.apps[i].rollout?.percent = 40 } }
        b.runtime.reload(try configB40.load())
        #expect(await eventually { Self.history(database).last.map { $0.kind == .percent && $0.instance == "edge-b" } == true })
        // A rolls the app back; its row is in the shared history; `rollout resume` adds one and keeps it.
        let c = RolloutLiveTests.cases[0]
        for i in 0..<RolloutWindow.minimum { _ = try await a.send(path: c.path, body: c.body("alice", "hist_\(i)")) }
        #expect(a.runtime.rollouts.rollback(of: "os") != nil)
        #expect(await eventually { Self.history(database).last?.kind == .rollback })
        // The rollback's own row (what `rollout resume` clears) is written apart from its history row.
        #expect(await eventually { (try? AuditReader(path: database).rollbacks().map(\.app)) == ["os"] })
        let resumed = try await CLIRunner.runAsync(["rollout", "resume", "os", "--db", database], environment: [:])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let rows = Self.history(database)
        #expect(rows.map(\.kind) == [.startUp, .percent, .rollback, .resume], "\(rows.map(\.kind))")
        try #require(rows.count == 4, "\(rows.map(\.kind))")
        let rollback = rows[2], resume = rows[3]
        #expect(rollback.instance == "edge-a" && rollback.stageText == "rollout 100% (rolled back)" && rollback.detail.hasPrefix("max_openpush_error_rate: "))
        #expect(resume.stageText == "rollout 100%" && resume.previous == "rollout 100% (rolled back)" && (resume.instance ?? "").hasPrefix("pushbridge rollout resume on "), "\(resume)")
        let printed = try await CLIRunner.runAsync(["stages", "--db", database, "--app", "os", "--format", "json"], environment: [:])
        let listed = try JSONParser.parse(Array(printed.stdout.utf8)).objectValue?["stage_changes"]?.arrayValue ?? []
        #expect(listed.compactMap { $0.objectValue?["kind"]?.stringValue } == ["start-up", "percent", "rollback", "resume"], "\(printed.stdout)\(printed.stderr)")
        // The admin page lists the rollback after the resume.
        let page = try await AdminPageTests.fetch(AdminService(token: Secret(AdminPageTests.token), reader: try AuditReader(path: database))).text
        #expect(page.contains("Stage changes") && page.contains(">rollback</span>") && page.contains("edge-a") && page.contains("resumed by pushbridge rollout resume"))
        await a.stop()
        await b.stop()
    }

    /// What an operator wrote (an app name, a rollback's evidence) is data wherever the history is shown.
    @Test func theHistoryShowsOperatorTextEscapedInEveryFormat() throws {
        let stage = AppStage(mode: .rollout, percent: 5, legacy: true, rolledBack: true)
        let change = StageChange(at: 1_700_000_000_000, app: "rides\u{1B}]0;owned\u{7}", kind: .rollback, stage: stage, previous: "rollout 5%",
                                 detail: "=HYPERLINK(\"x\") <script>", instance: "edge-1", fingerprint: "sha256:0123456789ab")
        let text = StageChangesRendering.render([change], as: .text)
        #expect(!text.contains("\u{1B}") && text.contains("rides\\u{1B}]0;owned\\u{7}") && text.contains("rollback: rollout 5% (rolled back) (was rollout 5%)"), "\(text)")
        let csv = StageChangesRendering.render([change], as: .csv)
        #expect(!csv.contains(",=HYPERLINK") && !csv.contains(",\"=HYPERLINK"), "\(csv)")
        let html = StageChangesRendering.htmlSection([change])
        #expect(!html.contains("<script>") && html.contains("&lt;script&gt;"))
        let json = try JSONParser.parse(Array(StageChangesRendering.render([change], as: .json).utf8)).objectValue?["stage_changes"]?.arrayValue?.first?.objectValue
        #expect(json?["app"] == .string("rides\u{1B}]0;owned\u{7}") && json?["rolled_back"] == .bool(true) && json?["percent"] == .int(5))
        #expect(StageChangesRendering.render([], as: .text) == "no stage change recorded\n")
    }
}
