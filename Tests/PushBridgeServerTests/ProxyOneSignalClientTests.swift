import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// The official OneSignal Python client, with only its host changed to PushBridge, starts,
/// updates and ends a Live Activity through the proxy (installed by `make test`).
@Suite(.serialized)
struct ProxyOneSignalClientTests {
    @Test func officialClientStartsUpdatesAndEndsThroughTheProxy() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        let script = CLIRunner.repoRoot.appendingPathComponent("Tests/python/onesignal_live_activity.py").path
        let env = ProcessInfo.processInfo.environment.merging(
            ["PB_HOST": "http://127.0.0.1:\(proxy.port)", "PB_KEY": ProxyHarness.oneSignalKey, "PB_APP": "app_3f9c2b"]) { $1 }
        let output = try await offPool { try PythonRunner.run(script: script, environment: env) }
        await proxy.stop()
        #expect(output.status == 0, "python: \(output.stdout) \(output.stderr)")
        let lines = output.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)).objectValue }
        #expect(lines.map { $0["call"]?.stringValue } == ["start", "update", "end"])
        #expect(lines.first?["notification_id"]?.stringValue?.hasPrefix("msg_") == true)
        // OpenPush received the three requests, the start and update with OneSignal's priority 10 made explicit.
        let sent = upstream.all
        #expect(sent.map(\.path) == [
            "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
            "/apps/app_3f9c2b/live_activities/py_order_1/notifications",
            "/apps/app_3f9c2b/live_activities/py_order_1/notifications",
        ])
        #expect(sent.allSatisfy { $0.response.status == 201 })
        let bodies = try sent.map { try JSONParser.parse($0.body).objectValue }
        #expect(bodies.map { $0?["priority"] } == [.int(10), .int(10), .int(10)])
        #expect(bodies.last??["dismissal_date"] == .int(1_781_053_200))
    }
}

/// Runs a Python script and captures its output.
enum PythonRunner {
    static func run(script: String, environment: [String: String]) throws -> CLIRunner.Output {
        try CLIRunner.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script], environment: environment)
    }
}
