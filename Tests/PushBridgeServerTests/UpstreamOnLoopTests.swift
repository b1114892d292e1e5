import Foundation
import Testing
@testable import PushBridgeServer

/// A call made on an event loop (a request's task) is driven by that loop through libcurl's
/// multi socket API: it completes on the loop's thread without the upstream I/O thread, keeps
/// its deadlines and limits, and a loop that stops fails what it still carries at once.
/// Real HTTP against `TestHTTPServer` on 127.0.0.1.
@Suite(.timeLimit(.minutes(1)))
struct UpstreamOnLoopTests {
    let server: TestHTTPServer
    let client: UpstreamClient
    let loop = EventLoop(name: "test-loop")

    init() throws {
        server = try TestHTTPServer()
        client = try UpstreamClient(configuration: UpstreamClientConfiguration(connectTimeout: .seconds(1), timeout: .seconds(5), maxResponseBytes: 64 * 1024))
    }

    func finish() {
        loop.shutdown()
        client.shutdown()
        server.stop()
    }

    /// Runs `body` as a task on the loop, as a request's task runs.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        await Task(executorPreference: loop, operation: body).value
    }

    @Test func callsMadeOnALoopCompleteOnItsThreadWithoutTheIOThreadAndReuseOneConnection() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let results = await onLoop { () -> [(UpstreamResponse, String?)] in
            var results: [(UpstreamResponse, String?)] = []
            for i in 0..<5 {
                let response = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), headers: [("X-N", "\(i)")], body: Array("n\(i)".utf8)))
                results.append((response, EventLoop.current?.name))
            }
            return results
        }
        for (i, (response, thread)) in results.enumerated() {
            let reply = try #require(response.reply, "call \(i): \(String(describing: response.failure))")
            #expect(reply.status == 200 && reply.body == Array("n\(i)".utf8) && reply.header("x-echo-x-n") == "\(i)")
            #expect(thread == "test-loop")
        }
        #expect(client.callsCarried == (onLoops: 5, onIOThread: 0))
        #expect(server.received.count == 5)
        #expect(server.acceptedConnections == 1)
        #expect(server.received.allSatisfy { $0.header("expect") == nil && $0.header("user-agent") == "PushBridge" })
    }

    @Test func concurrentCallsOnALoopAllComplete() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let results = await onLoop {
            await withTaskGroup(of: (Int, UpstreamResponse).self) { group in
                for i in 0..<32 {
                    group.addTask { (i, await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), body: Array("body-\(i)".utf8)))) }
                }
                var all: [(Int, UpstreamResponse)] = []
                for await r in group { all.append(r) }
                return all
            }
        }
        #expect(results.count == 32)
        for (i, response) in results {
            let reply = try #require(response.reply, "call \(i): \(String(describing: response.failure))")
            #expect(reply.body == Array("body-\(i)".utf8))
        }
        #expect(client.callsCarried == (onLoops: 32, onIOThread: 0))
    }

    @Test func aCallOnNoLoopStillGoesToTheIOThread() async throws {
        defer { finish() }
        let reply = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/created"))).reply)
        #expect(reply.status == 201)
        #expect(client.callsCarried == (onLoops: 0, onIOThread: 1))
    }

    @Test func deadlinesRefusalsAndSizeLimitsHoldOnALoop() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let deadline = Duration.milliseconds(400)
        let port = try TestHTTPServer.refusedPort()
        let (stalled, refused, oversized) = await onLoop {
            (await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1], timeout: deadline)),
             await client.send(UpstreamRequest(method: "POST", url: "http://127.0.0.1:\(port)/x", body: [1])),
             await client.send(UpstreamRequest(method: "GET", url: server.url("/big-chunked?n=200000"))))
        }
        let timedOut = try #require(stalled.failure)
        #expect(timedOut.kind == .timedOut && !timedOut.provablyNotSent)
        #expect(timedOut.latency >= deadline - .milliseconds(50))
        #expect(timedOut.latency < deadline + .milliseconds(700))
        let notConnected = try #require(refused.failure)
        #expect(notConnected.kind == .connectFailed && notConnected.provablyNotSent)
        #expect(oversized.failure?.kind == .responseTooLarge)
        #expect(client.callsCarried.onIOThread == 0)
    }

    @Test func aLoopStoppedWithACallInFlightFailsItAtOnce() async throws {
        defer { client.shutdown(); server.stop() }
        let (client, server) = (client, server)
        let call = Task(executorPreference: loop) {
            await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1]))
        }
        try #require(await eventually(10) { !server.received.isEmpty }, "the upstream never received the call")
        let stoppedAt = ContinuousClock.now
        loop.shutdown()
        let failure = try #require(await call.value.failure)
        #expect(failure.kind == .shutDown)
        #expect(!failure.provablyNotSent)
        // Long before the call's own deadline (5 s).
        #expect(ContinuousClock.now - stoppedAt < .seconds(1))
    }

    @Test func theClientsShutdownFailsCallsInFlightOnALoopAndLaterOnes() async throws {
        defer { loop.shutdown(); server.stop() }
        let (client, server) = (client, server)
        let call = Task(executorPreference: loop) {
            await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1]))
        }
        try #require(await eventually(10) { !server.received.isEmpty }, "the upstream never received the call")
        client.shutdown()
        let failure = try #require(await call.value.failure)
        #expect(failure.kind == .shutDown && !failure.provablyNotSent)
        let later = try #require(await onLoop { await client.send(UpstreamRequest(method: "GET", url: server.url("/created"))) }.failure)
        #expect(later.kind == .shutDown && later.provablyNotSent)
    }
}
