import Foundation
import Synchronization
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// `pushbridge serve` as a process: SIGTERM lets the request in flight finish, flushes the
/// audit and exits 0; SIGHUP reloads the apps' modes without a restart.
@Suite(.serialized)
struct ServeCommandTests {
    @Test func sigtermFinishesTheRequestInFlightAndFlushesTheAudit() async throws {
        let arrived = Mutex(false)
        let upstream = try RecordingSandbox { request in
            arrived.withLock { $0 = true }
            try? await Task.sleep(for: .milliseconds(800))
            return nil
        }
        let folder = try TemporaryDirectory("pushbridge-serve")
        let dir = folder.url
        let audit = dir.appendingPathComponent("audit.sqlite").path
        let config = dir.appendingPathComponent("config.json")
        try Data("""
        {"listen": "127.0.0.1:0", "audit_db": "\(audit)", "openpush": {"base_url": "\(upstream.baseURL)"},
         "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "app_3f9c2b",
                   "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "OS_KEY"}]}]}
        """.utf8).write(to: config)

        let serve = try await ServeProcess.start(config: config.path, environment: ["OP_KEY": RecordingSandbox.restKey, "OS_KEY": ProxyHarness.oneSignalKey],
                                                 logPath: dir.appendingPathComponent("serve.log").path)
        let port = String(serve.port)

        let body = Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/onesignal-start-reference/body.json")))
        async let reply = try RawHTTPClient.send(port: UInt16(port)!, method: "POST", target: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
                                                 headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")], body: body)
        #expect(await eventually(10) { arrived.withLock { $0 } }, "the request never reached the upstream")
        async let exited = serve.terminate() // SIGTERM while the upstream is still answering
        let answered = try await reply
        #expect(answered.status == 201, "the request in flight was cut: \(answered.status)")
        let exit = try await exited
        #expect(exit == 0)
        let rows = try AuditReader(path: audit).list(limit: 10)
        #expect(rows.count == 1)
        #expect(rows.first?.outcome == "forwarded")
        #expect(rows.first?.responseStatus == 201)
    }

    @Test func sighupSwitchesAnAppsModeWithoutARestart() async throws {
        let upstream = try RecordingSandbox()
        let legacy = try FakeLegacyProvider(.onesignal)
        let folder = try TemporaryDirectory("pushbridge-hup")
        let dir = folder.url
        let config = dir.appendingPathComponent("config.json")
        func write(mode: String) throws {
            try Data("""
            {"listen": "127.0.0.1:0", "audit_db": "\(dir.appendingPathComponent("audit.sqlite").path)", "openpush": {"base_url": "\(upstream.baseURL)"},
             "legacy": {"onesignal": "\(legacy.baseURL)"},
             "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "app_3f9c2b", "mode": "\(mode)",
                       "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "OS_KEY"}]}]}
            """.utf8).write(to: config)
        }
        try write(mode: "openpush")
        let serve = try await ServeProcess.start(config: config.path, environment: ["OP_KEY": RecordingSandbox.restKey, "OS_KEY": ProxyHarness.oneSignalKey],
                                                 logPath: dir.appendingPathComponent("serve.log").path)
        let port = serve.port
        func start(_ id: String) async throws -> Int {
            try await RawHTTPClient.send(port: port, method: "POST", target: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
                                         headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")],
                                         body: ProxyPacingLiveTests.startBody(id)).status
        }
        #expect(try await start("hup_1") == 201)
        #expect(upstream.all.count == 1 && legacy.all.isEmpty)
        try write(mode: "observe")
        kill(serve.process.processIdentifier, SIGHUP)
        // Once the reload lands, the next start goes to the legacy provider.
        var reachedLegacy = false
        for i in 0..<50 where !reachedLegacy {
            _ = try await start("hup_\(i + 2)")
            reachedLegacy = !legacy.all.isEmpty
            if !reachedLegacy { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(reachedLegacy, "SIGHUP did not switch the app to observe")
        #expect(serve.process.isRunning, "SIGHUP stopped the process")
        let exit = try await serve.terminate()
        #expect(exit == 0)
    }
}
