import Foundation
import Testing
@testable import PushBridgeServer

/// Nothing wakes a proxy's loop per request but the request's own audit acknowledgements
/// (issue 31, item 3): a OneSignal start forwarded to OpenPush wakes its loop from another
/// thread for its intent's commit and its completion's, and for nothing else; its activity
/// ledger read runs on the loop (it was handed to a dispatch queue, whose answer woke the loop
/// a third time).
@Suite(.serialized)
struct RequestWakeLiveTests {
    @Test func aForwardedStartWakesItsLoopOnlyForItsTwoAuditAcknowledgements() async throws {
        let sandbox = try RecordingSandbox()
        let proxy = try ProxyHarness(.live, configuration: TestConfiguration(upstream: sandbox.baseURL))
        let loops = try #require(proxy.runtime.server).loops
        let headers = [("Content-Type", "application/json"), ("Authorization", "Key \(ProxyHarness.oneSignalKey)")]
        func start(_ activity: String) async throws -> RawHTTPResponse {
            try await RawHTTPClient.send(port: proxy.port, method: "POST", target: ProxyModesLiveTests.startPath, headers: headers,
                                         body: ProxyPacingLiveTests.startBody(activity))
        }
        #expect(try await start("wake_warm_up").status == 201)
        let before = loops.map { $0.wakes.load(ordering: .relaxed) }
        let requests = 20
        for index in 0..<requests {
            let reply = try await start("wake_\(index)")
            #expect(reply.status == 201, "start \(index): \(reply.text)")
        }
        let wakes = zip(loops, before).reduce(0) { $0 + $1.0.wakes.load(ordering: .relaxed) - $1.1 }
        #expect(wakes <= 2 * requests, "\(requests) forwarded starts woke their loops \(wakes) times from other threads (2 each expected)")
        #expect(sandbox.all.count == requests + 1, "not every start reached OpenPush")
        await proxy.stop()
    }
}
