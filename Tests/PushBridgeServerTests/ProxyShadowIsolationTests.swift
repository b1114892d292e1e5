import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A shadow that stalls or fails must leave the primary's answer alone: same status, same
/// body, same latency. Measured: the same requests through three proxies whose OpenPush
/// shadow is healthy, stalled past its deadline, or failing.
@Suite(.serialized) struct ProxyShadowIsolationTests {
    /// A Pushwoosh answer that never changes, so bodies can be compared byte for byte.
    static let fixedAnswer = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")],
                                          body: Array(#"{"status_code":200,"status_message":"OK","response":{"Messages":["FIXED-MESSAGE-ID"]}}"#.utf8))

    struct Run {
        var statuses: Set<Int>
        var bodies: Set<[UInt8]>
        var medianMs: Double
        var p90Ms: Double
    }

    static func measure(shadow: RecordingSandbox, requests: Int, queue: TestConfiguration.ShadowQueue) async throws -> (Run, ProxyHarness) {
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh) { _ in fixedAnswer }
        let configuration = TestConfiguration(upstream: "http://127.0.0.1:9").with {
            $0.legacy = [.onesignal: os.baseURL, .pushwoosh: pw.baseURL]
            $0.shadowQueue = queue
            $0.app("pw") { $0.mode = .shadow; $0.shadow = .init(primary: .legacy, openPushBaseURL: shadow.baseURL) }
        }
        let proxy = try ProxyHarness(.inProcess, configuration: configuration)
        var statuses = Set<Int>(), bodies = Set<[UInt8]>(), latencies: [Double] = []
        for _ in 0..<requests {
            let started = ContinuousClock.now
            let reply = try await proxy.send(path: "/json/1.3/startLiveActivity", body: ProxyModesLiveTests.pushwooshBody)
            let c = (ContinuousClock.now - started).components
            latencies.append(Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
            statuses.insert(reply.status)
            bodies.insert(reply.body)
        }
        latencies.sort()
        return (Run(statuses: statuses, bodies: bodies, medianMs: latencies[latencies.count / 2], p90Ms: latencies[latencies.count * 9 / 10]), proxy)
    }

    @Test func aStallingOrFailingShadowLeavesThePrimaryUnchanged() async throws {
        let healthy = try RecordingSandbox()
        let stalling = try RecordingSandbox { _ in
            try? await Task.sleep(for: .seconds(3))
            return nil
        }
        let failing = try RecordingSandbox { _ in HTTPResponse(status: 500, body: Array(#"{"errors":["internal"]}"#.utf8)) }
        let queue = TestConfiguration.ShadowQueue(limit: 4, workers: 2, timeoutMs: 1000)
        let n = 40
        let (base, p1) = try await Self.measure(shadow: healthy, requests: n, queue: queue)
        let (stalled, p2) = try await Self.measure(shadow: stalling, requests: n, queue: queue)
        let (failed, p3) = try await Self.measure(shadow: failing, requests: n, queue: queue)
        print("MEASURED primary latency over \(n) requests, median/p90 ms: healthy shadow \(base.medianMs)/\(base.p90Ms), stalled shadow \(stalled.medianMs)/\(stalled.p90Ms), failing shadow \(failed.medianMs)/\(failed.p90Ms)")

        for run in [base, stalled, failed] {
            #expect(run.statuses == [200])
            #expect(run.bodies == [Self.fixedAnswer.body])
        }
        // Latency: within noise of the healthy run (a generous bound on a shared 2-core machine,
        // far below the stalled shadow's 3 s or its 1 s deadline).
        #expect(stalled.medianMs < base.medianMs * 2 + 20, "stalled \(stalled.medianMs) vs healthy \(base.medianMs)")
        #expect(failed.medianMs < base.medianMs * 2 + 20, "failed \(failed.medianMs) vs healthy \(base.medianMs)")
        #expect(stalled.p90Ms < 500)

        // The stalled shadow's queue filled: drops were counted, and what ran timed out.
        #expect(await eventually(10) { p2.runtime.metrics.render().contains("pushbridge_shadow_dropped_total") })
        let dropped = p2.runtime.metrics.render().split(separator: "\n").first { $0.hasPrefix("pushbridge_shadow_dropped_total") }
        #expect(dropped.map { !$0.hasSuffix(" 0") } == true, "\(dropped ?? "no metric")")
        #expect(await eventually(10) { ((try? ProxyModesLiveTests.comparisons(p2.auditPath)) ?? []).count >= 2 })
        let timedOut = try ProxyModesLiveTests.comparisons(p2.auditPath)
        #expect(timedOut.allSatisfy { $0["verdict"] == .text("only_primary") && ($0["shadow_error"]?.textValue ?? "").contains("timed_out") })
        // The failing shadow's comparisons say why.
        #expect(await eventually(10) { ((try? ProxyModesLiveTests.comparisons(p3.auditPath)) ?? []).count >= 1 })
        let refused = try ProxyModesLiveTests.comparisons(p3.auditPath)
        #expect(refused.allSatisfy { $0["verdict"] == .text("only_primary") && $0["shadow_status"] == .integer(500) && ($0["differences"]?.textValue ?? "").contains("500") })
        for p in [p1, p2, p3] { await p.stop() }
    }
}
