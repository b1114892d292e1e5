import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 20, items 10 and 11: the cut-over gate judges an app on the requests PushBridge
/// admitted for it, never on what anyone could send; and an app asked for by name gets its own
/// verdict even without traffic. Audits written by a real (in-process) proxy run.
@Suite(.serialized) struct ReadinessAdmissionLiveTests {
    static let buzzKit = "/v1/live-activities/send"

    @Test func requestsRefusedBeforeAdmissionAreReportedApartAndNeverChangeTheVerdictOrTheExitStatus() async throws {
        let run = try ReadinessRun(readiness: .init(minRequests: 2, minShadowed: 0))
        for i in 0..<2 { try await run.send("real_\(i)") }
        // The issue's noise: a wrong key on the real app's route, and `Authorization: Bearer wrong` on BuzzKit's.
        let wrongKey = try await run.proxy.send(path: ReadinessRun.path, body: ReadinessRun.start("noise"), headers: [("Authorization", "Key wrong")])
        let bearer = try await run.proxy.send(path: Self.buzzKit, body: Array(#"{"event":"start"}"#.utf8), headers: [("Authorization", "Bearer wrong")])
        #expect(wrongKey.status == 403 && bearer.status == 401, "\(wrongKey.status) \(bearer.status)")
        #expect(try AuditReader(path: run.proxy.auditPath).list().count == 4, "every request has its audit row")

        let readiness = try run.readiness(app: nil)
        #expect(readiness.apps.map(\.app) == ["os", "os-mapped", "pw", "bk"], "an app named by no configuration appeared: \(readiness.apps.map(\.app))")
        let os = try #require(readiness.apps.first?.routes.first)
        #expect(readiness.apps.first?.verdict == .ready && os.requests == 2, "\(os)")
        #expect(readiness.refusedBeforeAdmission == 2)
        #expect(try run.readiness(app: "os").refusedBeforeAdmission == 1, "the wrong key on os's route is os's noise")

        let db = run.proxy.auditPath, config = try run.configFile()
        // A deployment whose configuration has the one app: the gate opens on its two real starts.
        let single = run.proxy.directory.appendingPathComponent("single.json").path
        try Data(#"{"audit_db": "\#(db)", "readiness": {"min_requests": 2, "min_shadowed": 0}, "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "app_3f9c2b"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: single))
        let gate = try await CLIRunner.runAsync(["readiness", "--config", single])
        #expect(gate.status == 0, "the refused requests changed the exit status: \(gate.stdout)\(gate.stderr)")
        #expect(gate.stdout.contains("os: READY") && gate.stdout.contains("onesignal start: READY — 2 requests"), "\(gate.stdout)")
        #expect(!gate.stdout.contains("NOT ENOUGH TRAFFIC"), "an app without a name: \(gate.stdout)")
        #expect(gate.stdout.contains("refused before admission (missing or wrong credentials, an app not configured, …): 2 requests, not counted in any verdict"),
                "\(gate.stdout)")
        let named = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "os"])
        #expect(named.status == 0 && named.stdout.contains("onesignal start: READY — 2 requests") && named.stdout.contains(": 1 request, not counted"),
                "\(named.stdout)\(named.stderr)")
        let json = try await CLIRunner.runAsync(["readiness", "--config", single, "--format", "json"])
        let object = try JSONParser.parse(Array(json.stdout.utf8)).objectValue
        #expect(json.status == 0 && object?["all_ready"] == .bool(true) && object?["refused_before_admission"] == .int(2), "\(json.stdout)")
        // Judged from the audit alone, the apps are those it admitted requests for.
        let csv = parseCSV(try await CLIRunner.runAsync(["readiness", "--db", db, "--format", "csv"]).stdout)
        #expect(csv.contains { $0.first == "readiness_refused" && $0[6] == "2" } && csv.filter { $0.first == "readiness" }.map { $0[5] } == ["os"], "\(csv)")
        await run.stop()
    }

    @Test func anAppAskedForWithoutTrafficGetsItsOwnVerdictUnderItsNameAndExitsNonZero() async throws {
        let run = try ReadinessRun(readiness: .init(minRequests: 3, minShadowed: 0))
        for i in 0..<3 { try await run.send("os_\(i)") }
        let db = run.proxy.auditPath, config = try run.configFile()
        let cases: [(arguments: [String], line: String, needed: Int)] = [
            (["--config", config, "--app", "pw"], "pw: NOT ENOUGH TRAFFIC", 3),
            (["--config", config, "--app", "XXXXX-XXXXX"], "pw: NOT ENOUGH TRAFFIC", 3),
            (["--db", db, "--app", "pw"], "pw: NOT ENOUGH TRAFFIC", 500),
            (["--db", db, "--app", "os", "--since", "2999-01-01"], "os: NOT ENOUGH TRAFFIC", 500),
        ]
        for c in cases {
            let out = try await CLIRunner.runAsync(["readiness"] + c.arguments)
            #expect(out.status == 1, "\(c.arguments): \(out.status) \(out.stderr)")
            #expect(out.stdout.contains("\n  \(c.line)\n    - 0 requests seen; \(c.needed) needed\n"), "\(c.arguments): \(out.stdout)")
            #expect(!out.stdout.contains("no app has traffic in the window"), "\(c.arguments): \(out.stdout)")
        }
        // The source app id selects the configured app's rows, named as the configuration names them.
        let bySource = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "app_3f9c2b"])
        #expect(bySource.status == 0 && bySource.stdout.contains("\n  os: READY\n    onesignal start: READY — 3 requests"), "\(bySource.stdout)\(bySource.stderr)")
        let admin = AdminService(token: Secret("t"), reader: try AuditReader(path: db), readiness: ReadinessSettings(try run.configuration))
        let served = admin.handle(HTTPRequest(method: "GET", target: "/admin/readiness?app=pw&format=text", headers: [("Authorization", "Bearer t")]))
        #expect(String(decoding: served.body, as: UTF8.self).contains("pw: NOT ENOUGH TRAFFIC\n    - 0 requests seen; 3 needed"))
        await run.stop()
    }
}
