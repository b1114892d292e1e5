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
        try TestConfiguration(upstream: upstream.baseURL, apps: [.os]).with { $0.auditDatabase = audit }.write(to: config.path)

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

    @Test func aCleanStopLeavesTheWholeAuditAndTheScheduledStartsInTheFilesAlone() async throws {
        let upstream = try RecordingSandbox()
        let folder = try TemporaryDirectory("pushbridge-checkpoint")
        let dir = folder.url
        let audit = dir.appendingPathComponent("audit.sqlite").path, starts = dir.appendingPathComponent("starts.sqlite").path
        let config = dir.appendingPathComponent("config.json")
        try TestConfiguration(upstream: upstream.baseURL).with {
            $0.auditDatabase = audit
            $0.schedulerDatabase = starts
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
        }.write(to: config.path)
        let serve = try await ServeProcess.start(config: config.path, environment: ProxyHarness.environment, logPath: dir.appendingPathComponent("serve.log").path)
        for i in 0..<5 {
            let reply = try await RawHTTPClient.send(port: serve.port, method: "POST", target: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
                                                     headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")],
                                                     body: ProxyPacingLiveTests.startBody("wal_\(i)"))
            #expect(reply.status == 201)
        }
        // A start for tomorrow: pending in the scheduler's file when the process stops.
        let scheduled = try await RawHTTPClient.send(port: serve.port, method: "POST", target: "/json/1.3/startLiveActivity", headers: [("Content-Type", "application/json")],
                                                     body: CrashSafetyTests.scheduledBody(sendAt: Int64(Date().timeIntervalSince1970) + 86_400))
        #expect(scheduled.status == 200, "\(scheduled.text)")
        serve.process.interrupt() // SIGINT, as Ctrl-C in `make run`
        let exit = try await offPool { [process = serve.process] in process.waitUntilExit(); return process.terminationStatus }
        #expect(exit == 0)
        #expect(try String(contentsOfFile: serve.logPath, encoding: .utf8).contains("msg=stopped"))
        for file in [audit, starts] {
            let size = (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0
            #expect(size == 0, "\(file)-wal still holds \(size) bytes after a clean stop")
        }
        // Only the .sqlite files, copied elsewhere, as someone moving the audit would.
        let elsewhere = try TemporaryDirectory("pushbridge-checkpoint-copy")
        let copiedAudit = elsewhere.url.appendingPathComponent("audit.sqlite").path, copiedStarts = elsewhere.url.appendingPathComponent("starts.sqlite").path
        try FileManager.default.copyItem(atPath: audit, toPath: copiedAudit)
        try FileManager.default.copyItem(atPath: starts, toPath: copiedStarts)
        let rows = try AuditReader(path: copiedAudit).list(limit: 20)
        #expect(rows.count == 6, "the copied file alone holds \(rows.count) of the 6 rows")
        #expect(rows.filter { $0.outcome == "forwarded" }.count == 5)
        let pending = try await ScheduledStartStore(path: copiedStarts, recover: false).list(states: [.pending])
        #expect(pending.count == 1, "the copied scheduler file alone holds \(pending.count) pending starts")
    }

    @Test func sighupSwitchesAnAppsModeWithoutARestart() async throws {
        let upstream = try RecordingSandbox()
        let legacy = try FakeLegacyProvider(.onesignal)
        let folder = try TemporaryDirectory("pushbridge-hup")
        let dir = folder.url
        let config = dir.appendingPathComponent("config.json")
        func write(mode: MigrationMode) throws {
            try TestConfiguration(upstream: upstream.baseURL, apps: [TestApp.os.with { $0.mode = mode }]).with {
                $0.auditDatabase = dir.appendingPathComponent("audit.sqlite").path
                $0.legacy[.onesignal] = legacy.baseURL
            }.write(to: config.path)
        }
        try write(mode: .openpush)
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
        try write(mode: .observe)
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
