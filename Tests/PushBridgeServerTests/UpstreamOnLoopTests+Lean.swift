import Foundation
import Testing
@testable import PushBridgeServer

/// libcurl as a lean client (issue 31, item 2): an app's header lines are built once per loop
/// and shared by its calls (each call's own request id still its own), and curl's timer is a
/// deadline on the loop's own timer heap (no timer descriptor armed per call). Real HTTP
/// against `TestHTTPServer` on 127.0.0.1, on the loop and client of ``UpstreamOnLoopTests``.
extension UpstreamOnLoopTests {
    /// This client's multi on the calling loop (the test's loop holds one client only).
    private static func loopMulti() -> UpstreamLoopMulti? {
        EventLoop.current?.locals.values.lazy.compactMap { $0 as? UpstreamLoopMulti }.first
    }

    @Test func anAppsHeaderLinesAreBuiltOnceAndEveryCallKeepsItsOwnRequestId() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let built = await onLoop { () -> Int in
            for i in 0..<12 {
                let key = i % 3 == 2 ? "key-B" : "key-A"
                _ = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"),
                                                      headers: [("Authorization", "Key \(key)"), ("Content-Type", "application/json")],
                                                      callHeaders: [("X-PushBridge-Request-Id", "req_\(i)")], body: Array("n\(i)".utf8)))
            }
            return Self.loopMulti()?.headerListsBuilt ?? -1
        }
        // Two apps, two lists, however many calls.
        #expect(built == 2)
        let received = server.received
        #expect(received.count == 12)
        for (i, request) in received.enumerated() {
            #expect(request.header("x-pushbridge-request-id") == "req_\(i)")
            #expect(request.header("authorization") == (i % 3 == 2 ? "Key key-B" : "Key key-A"))
            #expect(request.header("content-type") == "application/json" && request.header("user-agent") == "PushBridge")
            #expect(request.header("expect") == nil && request.body == Array("n\(i)".utf8))
        }
    }

    @Test func aCallersOwnUserAgentReplacesTheDefaultAndAnInvalidCallHeaderIsRefusedUnsent() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let (passed, invalid) = await onLoop {
            (await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), callHeaders: [("User-Agent", "OneSignal-Caller/1.0")], body: [1])),
             await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), callHeaders: [("X-Bad", "a\r\nInjected: 1")], body: [1])))
        }
        #expect(passed.reply?.status == 200)
        #expect(server.received.first?.header("user-agent") == "OneSignal-Caller/1.0")
        let refused = try #require(invalid.failure)
        #expect(refused.provablyNotSent && refused.message.contains("X-Bad"))
        #expect(server.received.count == 1)
    }

    @Test func curlsTimerIsADeadlineOnTheLoopsOwnHeap() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let deadline = Duration.milliseconds(1500)
        let sentAt = ContinuousClock.now
        let call = Task(executorPreference: loop) {
            await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1], timeout: deadline))
        }
        try #require(await eventually(10) { !server.received.isEmpty }, "the upstream never received the call")
        // While the call waits on the upstream, what will end it is a timer on the loop's heap.
        let due = try #require(loop.timers.withLock { $0?.nextDue() }, "no timer on the loop's heap while a call waits")
        #expect(due > sentAt && due <= sentAt + deadline + .milliseconds(50))
        // And it is what ends the call, at its deadline.
        let failure = try #require(await call.value.failure)
        #expect(failure.kind == .timedOut && !failure.provablyNotSent)
        #expect(failure.latency >= deadline - .milliseconds(50))
    }

    /// A handle keeps its shared options between calls and is released, not reset, at each
    /// end: no method, body or header of one call reaches the next on the same connection.
    @Test func aHandleKeptBetweenCallsCarriesNoMethodBodyOrHeaderOver() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let calls: [(String, [UInt8])] = [("HEAD", []), ("POST", [1, 2]), ("DELETE", []), ("PUT", [3]), ("GET", []), ("PATCH", [4, 5, 6]), ("GET", [])]
        let replies = await onLoop {
            var replies: [UpstreamResponse] = []
            for (i, (method, body)) in calls.enumerated() {
                replies.append(await client.send(UpstreamRequest(method: method, url: server.url("/echo"), callHeaders: i == 1 ? [("X-Once", "1")] : [], body: body)))
            }
            return replies
        }
        #expect(replies.allSatisfy { $0.reply?.status == 200 })
        let received = server.received
        #expect(received.map(\.method) == calls.map(\.0))
        #expect(received.map(\.body) == calls.map(\.1))
        #expect(received.enumerated().allSatisfy { ($0.element.header("x-once") != nil) == ($0.offset == 1) })
        #expect(server.acceptedConnections == 1)
    }

    /// The connection curl keeps between calls stays in the loop's epoll, parked: each later
    /// call on it watches it again with one `epoll_ctl`, not a removal and an addition.
    @Test func aConnectionKeptBetweenCallsIsWatchedAgainWithOneEpollChangeACall() async throws {
        defer { finish() }
        let (client, server, loop) = (client, server, loop)
        let (changes, replies) = await onLoop { () -> (Int, [Int?]) in
            _ = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), body: [0]))
            let before = loop.watchChanges
            var replies: [Int?] = []
            for i in 1...10 {
                // Answered late, so curl waits on the socket (watches it) every call.
                replies.append(await client.send(UpstreamRequest(method: "POST", url: server.url("/slow?ms=20"), body: [UInt8(i)])).reply?.status)
            }
            return (loop.watchChanges - before, replies)
        }
        #expect(replies == Array(repeating: 200, count: 10))
        #expect(server.acceptedConnections == 1)
        #expect(server.received.map(\.body) == (0...10).map { [UInt8($0)] })
        // Before: an addition and a removal a call (20 for 10 calls).
        #expect(changes <= 10, "\(changes) epoll_ctl calls for 10 calls on one kept connection")
    }
}
