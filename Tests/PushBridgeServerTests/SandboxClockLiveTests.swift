import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// `make run`'s configuration (config/demo.json, its embedded sandbox) as a real `pushbridge
/// serve` process: the sandbox's clock follows real time, so more than 60 starts spread over
/// more than one rate window are all accepted (the window is shortened to 2 s, and the proxy's
/// pacer to match, so the test crosses windows in seconds rather than minutes).
struct SandboxClockLiveTests {
    @Test(.timeLimit(.minutes(1)))
    func moreThanSixtyStartsOverSeveralWindowsAreAllAccepted() async throws {
        let folder = try TemporaryDirectory("pushbridge-clock")
        let dir = folder.url
        let demo = try JSONParser.parse(Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("config/demo.json"))))
        var root = try #require(demo.objectValue)
        var sandbox = try #require(root["sandbox"]?.objectValue)
        #expect(sandbox["embedded"]?.boolValue == true)
        sandbox["seed"] = .string(CLIRunner.repoRoot.appendingPathComponent("config/demo-seed.json").path)
        sandbox["rate_window_seconds"] = .int(2)
        sandbox["listen"] = .string("127.0.0.1:0")
        root["sandbox"] = .object(sandbox)
        root["delivery"] = .object(["window_ms": .int(2000)])
        root["listen"] = .string("127.0.0.1:0")
        root["audit_db"] = .string(dir.appendingPathComponent("audit.sqlite").path)
        let config = dir.appendingPathComponent("config.json")
        try Data(JSONWriter.bytes(.object(root))).write(to: config)
        let serve = try await ServeProcess.start(config: config.path, environment: ["PUSHBRIDGE_DEMO_OPENPUSH_KEY": "op_sandbox_demo_rest_key"],
                                                 logPath: dir.appendingPathComponent("serve.log").path)

        let template = try #require(JSONParser.parse(HostileProxyHarness.oneSignalBody).objectValue)
        let clock = ContinuousClock()
        let started = clock.now
        var statuses: [Int: Int] = [:]
        for i in 0..<100 {
            var body = template
            body["activity_id"] = .string("order_clock_\(i)")
            body["idempotency_key"] = .string(UUID().uuidString)
            let response = try await RawHTTPClient.send(port: serve.port, method: "POST", target: HostileProxyHarness.oneSignalPath,
                                                        headers: [HostileProxyHarness.oneSignalAuth, ("Content-Type", "application/json")],
                                                        body: JSONWriter.bytes(.object(body)))
            statuses[response.status, default: 0] += 1
        }
        let elapsed = clock.now - started
        _ = try await serve.terminate()
        #expect(statuses == [201: 100], "statuses \(statuses) over \(elapsed)")
        #expect(elapsed > .seconds(2), "100 starts took \(elapsed), not more than one 2 s window")
    }
}
