import Foundation
import Testing
@testable import PushBridgeServer

/// Real HTTP against `TestHTTPServer` on 127.0.0.1.
@Suite(.timeLimit(.minutes(1)))
struct UpstreamClientTests {
    let server: TestHTTPServer
    let client: UpstreamClient

    init() throws {
        server = try TestHTTPServer()
        client = try UpstreamClient(configuration: UpstreamClientConfiguration(connectTimeout: .seconds(1), timeout: .seconds(5), maxResponseBytes: 64 * 1024))
    }

    private func finish() {
        client.shutdown()
        server.stop()
    }

    @Test func postBodyAndHeadersArriveExactlyAndComeBack() async throws {
        defer { finish() }
        let body: [UInt8] = Array(#"{"event":"update","name":"Zoë ✓"}"#.utf8) + [0x00, 0xFF, 0x0A]
        let response = await client.send(UpstreamRequest(
            method: "POST", url: server.url("/echo"),
            headers: [("Content-Type", "application/json"), ("X-Request-Id", "req 42"), ("Authorization", "Key k")],
            body: body))
        let reply = try #require(response.reply)
        #expect(reply.status == 200)
        #expect(reply.body == body)
        #expect(reply.header("X-Echo-Method") == "POST")
        #expect(reply.header("x-echo-x-request-id") == "req 42")
        #expect(reply.headers.allSatisfy { $0.name == $0.name.lowercased() })

        let received = try #require(server.received.first)
        #expect(received.method == "POST")
        #expect(received.target == "/echo")
        #expect(received.body == body)
        #expect(received.header("content-type") == "application/json")
        #expect(received.header("x-request-id") == "req 42")
        #expect(received.header("authorization") == "Key k")
        #expect(received.header("content-length") == String(body.count))
        #expect(received.header("expect") == nil)
        #expect(received.header("user-agent") == "PushBridge")
    }

    /// A call's own header lines (`CurlCallBlock`, written straight into the block libcurl
    /// reads) arrive as given, an empty value as an empty header, and no `Expect`.
    @Test func aCallsOwnHeadersArriveAnEmptyValueIncluded() async throws {
        defer { finish() }
        let response = await client.send(UpstreamRequest(
            method: "POST", url: server.url("/echo"), headers: [("Content-Type", "application/json")],
            callHeaders: [("X-PushBridge-Request-Id", "req_0123456789abcdef01234567"), ("X-Empty", "")], body: [1]))
        #expect(try #require(response.reply).status == 200)
        let received = try #require(server.received.first)
        #expect(received.header("x-pushbridge-request-id") == "req_0123456789abcdef01234567")
        #expect(received.header("x-empty") == "")
        #expect(received.header("content-type") == "application/json")
        #expect(received.header("expect") == nil)
    }

    /// A call's request id (``UpstreamRequest/requestId``, no array for it) arrives as the
    /// call header of its name did: the same header lines, in the same order, whatever else
    /// the call sends (the old way is the oracle).
    @Test func aRequestIdArrivesAsTheCallHeaderOfItsNameDid() async throws {
        defer { finish() }
        let shared: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Authorization", "Key k")]
        for own in [[], [("X-Empty", "")], [("X-Trace", "t 1"), ("User-Agent", "Caller/2")]] as [[(name: String, value: String)]] {
            let id = "req_0123456789abcdef\(own.count)"
            let new = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), headers: shared, requestId: id, callHeaders: own, body: [1]))
            let old = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), headers: shared,
                                                        callHeaders: [("X-PushBridge-Request-Id", id)] + own, body: [1]))
            #expect(try #require(new.reply).status == 200)
            #expect(try #require(old.reply).status == 200)
            let received = server.received.suffix(2).map { $0.headers.map { "\($0.name): \($0.value)" } }
            #expect(received.count == 2)
            #expect(received.first == received.last, "\(received)")
            #expect(received.first?.contains { $0.lowercased() == "x-pushbridge-request-id: \(id)" } == true)
        }
        // A request id libcurl must not send is refused as a call header of its name is.
        let bad = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), requestId: "a\r\nInjected: 1", body: [1]))
        #expect(bad.reply == nil)
    }

    @Test func statusHeadersAndBodyComeBack() async throws {
        defer { finish() }
        let created = try #require(await client.send(UpstreamRequest(method: "POST", url: server.url("/created"), body: Array("{}".utf8))).reply)
        #expect(created.status == 201)
        #expect(created.header("content-type") == "application/json")
        #expect(String(decoding: created.body, as: UTF8.self) == #"{"id":"msg-1"}"#)
        #expect(created.latency > .zero)

        let limited = try #require(await client.send(UpstreamRequest(method: "POST", url: server.url("/retry-after"))).reply)
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "7")

        let missing = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/nowhere"))).reply)
        #expect(missing.status == 404)
        #expect(server.received.last?.method == "GET")
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        defer { finish() }
        for i in 0..<5 {
            let reply = try #require(await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), body: Array("n\(i)".utf8))).reply)
            #expect(reply.body == Array("n\(i)".utf8))
        }
        #expect(server.received.count == 5)
        #expect(server.acceptedConnections == 1)
    }

    @Test func aReusedEasyHandleCarriesNothingOverFromTheCallBefore() async throws {
        defer { finish() }
        // PATCH with a body, a custom header and a short deadline that expires...
        let stalled = await client.send(UpstreamRequest(method: "PATCH", url: server.url("/stall"), headers: [("X-Once", "1")], body: [1, 2, 3],
                                                        timeout: .milliseconds(300)))
        #expect(stalled.failure?.kind == .timedOut)
        // ...then a refused connection, whose request size must read 0 again...
        let port = try TestHTTPServer.refusedPort()
        let refused = try #require(await client.send(UpstreamRequest(method: "POST", url: "http://127.0.0.1:\(port)/x", body: [1])).failure)
        #expect(refused.kind == .connectFailed && refused.provablyNotSent)
        // ...then a plain GET on the same handle: no body, no method, no header, no deadline left over.
        for _ in 0..<3 {
            let get = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/echo"))).reply)
            #expect(get.status == 200 && get.body.isEmpty)
            let received = try #require(server.received.last)
            #expect(received.method == "GET" && received.body.isEmpty && received.header("x-once") == nil)
        }
    }

    @Test func refusedConnectionIsConnectFailedAndProvablyNotSent() async throws {
        defer { finish() }
        let port = try TestHTTPServer.refusedPort()
        let failure = try #require(await client.send(UpstreamRequest(method: "POST", url: "http://127.0.0.1:\(port)/x", body: [1])).failure)
        #expect(failure.kind == .connectFailed)
        #expect(failure.provablyNotSent)
        #expect(failure.curlCode == 7)
    }

    @Test func stalledServerTimesOutWithinTheDeadline() async throws {
        defer { finish() }
        let deadline = Duration.milliseconds(400)
        let response = await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1], timeout: deadline))
        let failure = try #require(response.failure)
        #expect(failure.kind == .timedOut)
        #expect(!failure.provablyNotSent)
        #expect(failure.latency >= deadline - .milliseconds(50))  // curl caches its clock per perform
        #expect(failure.latency < deadline + .milliseconds(700))
        #expect(server.received.count == 1)  // it did arrive: a retry would not be safe
    }

    @Test func closeMidResponseIsAFailure() async throws {
        defer { finish() }
        let failure = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/close-mid"))).failure)
        #expect(failure.kind == .reset)
        #expect(!failure.provablyNotSent)
    }

    @Test func oversizedAnswersAreAborted() async throws {
        defer { finish() }
        let small = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/big?n=1000"))).reply)
        #expect(small.body.count == 1000)
        let declared = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/big?n=200000"))).failure)
        #expect(declared.kind == .responseTooLarge)
        let chunked = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/big-chunked?n=200000"))).failure)
        #expect(chunked.kind == .responseTooLarge)
    }

    @Test func invalidHeaderIsRejectedBeforeSending() async throws {
        defer { finish() }
        let failure = try #require(await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), headers: [("X-Bad", "a\r\nInjected: 1")])).failure)
        #expect(failure.provablyNotSent)
        #expect(server.received.isEmpty)
    }

    @Test func sixtyFourConcurrentRequestsAllComplete() async throws {
        defer { finish() }
        let results = await withTaskGroup(of: (Int, UpstreamResponse).self) { group in
            for i in 0..<64 {
                group.addTask {
                    (i, await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), headers: [("X-N", "\(i)")], body: Array("body-\(i)".utf8))))
                }
            }
            var all: [(Int, UpstreamResponse)] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 64)
        for (i, response) in results {
            let reply = try #require(response.reply, "request \(i): \(String(describing: response.failure))")
            #expect(reply.status == 200)
            #expect(reply.body == Array("body-\(i)".utf8))
            #expect(reply.header("x-echo-x-n") == "\(i)")
        }
        #expect(server.received.count == 64)
    }

    @Test func shutdownFailsCallsInFlightAndLaterCalls() async throws {
        defer { server.stop() }
        async let stalled = client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1]))
        try #require(await eventually(10) { !server.received.isEmpty }, "the upstream never received the call")
        client.shutdown()
        let failure = try #require(await stalled.failure)
        #expect(failure.kind == .shutDown)
        #expect(!failure.provablyNotSent)
        let later = try #require(await client.send(UpstreamRequest(method: "GET", url: server.url("/created"))).failure)
        #expect(later.kind == .shutDown)
        #expect(later.provablyNotSent)
    }
}
