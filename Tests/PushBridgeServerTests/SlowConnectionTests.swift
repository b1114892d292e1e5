import Foundation
import Testing
@testable import PushBridgeServer

/// A thousand connections that open at once and stall mid-head must neither starve the callers
/// that send whole requests nor stay open past the idle timeout.
struct SlowConnectionTests {
    @Test(.timeLimit(.minutes(1)))
    func thousandSlowConnectionsDoNotStopNormalRequests() async throws {
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 4, maxConnections: 1100)
        let slow = SlowClients()
        defer { slow.close() }
        let opened = await slow.open(count: 1000, port: proxy.port,
                                     partialHead: "POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        #expect(opened == 1000)

        // Whole requests while the slow ones hold their connections: bounded in count and time.
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(3))
        var sent = 0
        var answered = 0
        while sent < 20, clock.now < end {
            sent += 1
            if let response = try? await proxy.validOneSignalStart(), response.status == 201 { answered += 1 }
        }
        #expect(sent >= 10, "only \(sent) requests fitted in 3 s beside 1000 slow connections")
        #expect(answered == sent, "\(answered) of \(sent) answered 201")

        // The idle timeout (4 s) reaps the stalled connections.
        let closed = await slow.countClosedByPeer(deadline: 10)
        #expect(closed == opened, "\(closed) of \(opened) slow connections closed by the proxy")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }
}
