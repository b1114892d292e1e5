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
        let config = try TestConfiguration.demo(audit: dir.appendingPathComponent("audit.sqlite").path).with {
            $0.sandbox?.rateWindowSeconds = 2
            $0.delivery.windowMs = 2000
        }.write(to: dir.appendingPathComponent("config.json").path)
        let serve = try await ServeProcess.start(config: config, environment: TestConfiguration.demoEnvironment,
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
