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

        // Whole requests while the slow ones hold their connections: every one answered. How
        // many fit in a given time measures the machine, not the proxy, so none is counted.
        var answered = 0
        for _ in 0..<10 {
            if let response = try? await proxy.validOneSignalStart(), response.status == 201 { answered += 1 }
        }
        #expect(answered == 10, "\(answered) of 10 answered 201 beside 1000 slow connections")

        // The idle timeout (4 s), or at the latest the request timeout (10 s) the watch holds
        // each head to, reaps the stalled connections; the wait is long enough for a loaded
        // machine to have accepted them all first.
        let closed = await slow.countClosedByPeer(deadline: 30)
        #expect(closed == opened, "\(closed) of \(opened) slow connections closed by the proxy")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    /// The slowloris pattern: connections that send one header line every half second never
    /// go idle. With a 2 s request timeout and room for 40 connections per address, 45 of
    /// them neither keep `/healthz` waiting (the oldest are closed to keep the last tenth free)
    /// nor stay open past the timeout; the idle timeout (30 s) plays no part.
    @Test(.timeLimit(.minutes(1)))
    func dribblingConnectionsAreClosedAfterTheRequestTimeoutAndHealthStaysPrompt() async throws {
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 30, maxConnections: 200, perIPConnections: 40, requestTimeoutSeconds: 2)
        let slow = SlowClients()
        defer { slow.close() }
        let clock = ContinuousClock()
        let opened = await slow.open(count: 45, port: proxy.port,
                                     partialHead: "POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let openedAt = clock.now
        slow.dribble("X-Slow: 1\r\n", every: .milliseconds(500))
        #expect(opened == 45)

        var slowest = Duration.zero
        for _ in 0..<5 {
            let started = clock.now
            let health = try await RawHTTPClient.send(port: proxy.port, target: "/healthz")
            slowest = max(slowest, clock.now - started)
            #expect(health.status == 200)
        }
        #expect(slowest < .seconds(1), "/healthz took \(slowest) beside 45 dribbling connections")

        let closed = await slow.countClosedByPeer(deadline: 8)
        let closedAfter = clock.now - openedAt
        #expect(closed == opened, "\(closed) of \(opened) dribbling connections closed by the proxy")
        #expect(closedAfter < .seconds(6), "the dribbling connections took \(closedAfter) to close with a 2 s request timeout")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }
}
