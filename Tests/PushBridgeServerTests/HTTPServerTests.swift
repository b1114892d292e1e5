import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

struct HTTPServerTests {
    /// A server on 127.0.0.1 and an ephemeral port.
    private func makeServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }, handler: @escaping HTTPHandler) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        return try HTTPServer(configuration: configuration, handler: handler)
    }

    @Test func echoRoundTripCarriesMethodTargetHeadersBodyAndResponseHeaders() async throws {
        let server = try makeServer { request in
            HTTPResponse(
                status: 201,
                headers: [("X-Method", request.method), ("X-Target", request.target),
                          ("X-Trace", request.header("X-Trace") ?? "none"), ("X-Peer", request.remoteAddress)],
                body: request.body)
        }
        #expect(server.port != 0)
        let body = Array("{\"name\":\"Zoë 🚀\"}".utf8)
        let response = try await RawHTTPClient.send(
            port: server.port, method: "PUT", target: "/apps/a1/activities?x=1&y=%20z",
            headers: [("X-Trace", "abc-123")], body: body)
        #expect(response.status == 201)
        #expect(response.header("X-Method") == "PUT")
        #expect(response.header("X-Target") == "/apps/a1/activities?x=1&y=%20z")
        #expect(response.header("X-Trace") == "abc-123")
        #expect(response.header("X-Peer") == "127.0.0.1")
        #expect(response.header("Content-Length") == "\(body.count)")
        #expect(response.body == body)
        await server.stop()
    }

    @Test func oversizedDeclaredBodyIsAnswered413WithoutRunningTheHandler() async throws {
        let calls = Atomic(0)
        let server = try makeServer({ $0.maxBodyBytes = 1000 }) { _ in
            calls.add(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
        let response = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/big", body: Array(repeating: 65, count: 5000))
        #expect(response.status == 413)
        #expect(response.text == #"{"errors":["request body is larger than the limit of 1000 bytes"]}"#)
        #expect(calls.load(ordering: .relaxed) == 0)
        // A body exactly at the limit still reaches the handler.
        let atLimit = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/ok", body: Array(repeating: 65, count: 1000))
        #expect(atLimit.status == 200)
        #expect(calls.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func oversizedChunkedBodyIsRefusedWithoutRunningTheHandler() async throws {
        let calls = Atomic(0)
        let server = try makeServer({ $0.maxBodyBytes = 1000 }) { _ in
            calls.add(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
        var request = "POST /chunked HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { request += "258\r\n" + String(repeating: "B", count: 600) + "\r\n" }
        request += "0\r\n\r\n"
        let response = try await RawHTTPClient.exchange(port: server.port, bytes: Array(request.utf8))
        #expect(response.status == 413)
        #expect(response.text.contains("limit of 1000 bytes"))
        #expect(calls.load(ordering: .relaxed) == 0)
        await server.stop()
    }

    @Test func failureResponderAnswersInTheCallersDialect() async throws {
        let server = try makeServer({
            $0.maxBodyBytes = 10
            $0.failureResponder = { failure, request in
                HTTPResponse(status: failure.status, headers: [("X-Dialect", "pushwoosh")], body: Array("\(request.path): \(failure.message)".utf8))
            }
        }) { _ in HTTPResponse(status: 200) }
        let response = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/json/1.3/startLiveActivity", body: Array(repeating: 1, count: 11))
        #expect(response.status == 413)
        #expect(response.header("X-Dialect") == "pushwoosh")
        #expect(response.text == "/json/1.3/startLiveActivity: request body is larger than the limit of 10 bytes")
        await server.stop()
    }

    @Test func slowHandlerGets504AtTheDeadlineWhileOtherRequestsAreServed() async throws {
        let slowStarted = Mutex(false)
        let server = try makeServer({ $0.handlerDeadline = .milliseconds(300) }) { request in
            if request.path == "/slow" {
                slowStarted.withLock { $0 = true }
                // Ignores cancellation on purpose: the connection must not wait for it. (It
                // waits without spinning: a handler runs on its event loop, which it must not
                // hold.)
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 3) { done.resume() }
                }
            }
            return HTTPResponse(status: 200, body: Array(request.path.utf8))
        }
        let clock = ContinuousClock()
        let start = clock.now
        async let slow = RawHTTPClient.send(port: server.port, target: "/slow")
        #expect(await eventually(5) { slowStarted.withLock { $0 } }, "the slow request never reached its handler")
        for index in 0..<5 {
            let fast = try await RawHTTPClient.send(port: server.port, target: "/fast\(index)")
            #expect(fast.status == 200)
            #expect(fast.text == "/fast\(index)")
        }
        let slowResponse = try await slow
        let elapsed = clock.now - start
        #expect(slowResponse.status == 504)
        #expect(slowResponse.text.contains("did not finish"))
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(2))
        await server.stop(gracePeriod: .milliseconds(100))
    }

    @Test func fiftyConcurrentRequestsAreAllAnsweredCorrectly() async throws {
        let server = try makeServer { request in
            try? await Task.sleep(for: .milliseconds(20))
            return HTTPResponse(status: 200, body: request.body + Array(request.target.utf8))
        }
        try await withThrowingTaskGroup(of: (Int, RawHTTPResponse).self) { group in
            for index in 0..<50 {
                group.addTask {
                    (index, try await RawHTTPClient.send(port: server.port, method: "POST", target: "/n/\(index)", body: Array("body-\(index)|".utf8)))
                }
            }
            var seen = Set<Int>()
            for try await (index, response) in group {
                #expect(response.status == 200)
                #expect(response.text == "body-\(index)|/n/\(index)")
                seen.insert(index)
            }
            #expect(seen.count == 50)
        }
        await server.stop()
    }

    @Test func stopWhileIdleReturnsPromptlyAndClosesThePort() async throws {
        let server = try makeServer { _ in HTTPResponse(status: 204) }
        let first = try await RawHTTPClient.send(port: server.port)
        #expect(first.status == 204)
        let clock = ContinuousClock()
        let start = clock.now
        await server.stop()
        #expect(clock.now - start < .milliseconds(500))
        await #expect(throws: (any Error).self) { try await RawHTTPClient.send(port: server.port) }
    }

    @Test func stopWaitsForARequestInFlight() async throws {
        let entered = Mutex(false)
        let server = try makeServer { _ in
            entered.withLock { $0 = true }
            try? await Task.sleep(for: .milliseconds(300))
            return HTTPResponse(status: 200, body: Array("done".utf8))
        }
        async let response = RawHTTPClient.send(port: server.port, target: "/in-flight")
        #expect(await eventually(5) { entered.withLock { $0 } }, "the request never reached its handler")
        await server.stop(gracePeriod: .seconds(3))
        let answered = try await response
        #expect(answered.status == 200)
        #expect(answered.text == "done")
    }

    @Test func headersPastTheMemoryLimitAreRefusedAndDoNotHoldUpStop() async throws {
        let calls = Atomic(0)
        let server = try makeServer({ $0.headerMemoryBytes = 4096 }) { _ in
            calls.add(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
        let response = try? await RawHTTPClient.send(port: server.port, headers: [("X-Big", String(repeating: "h", count: 8000))])
        if let response { #expect(response.status == 431 || response.status == 413) }
        #expect(calls.load(ordering: .relaxed) == 0)
        let small = try await RawHTTPClient.send(port: server.port)
        #expect(small.status == 200)
        let clock = ContinuousClock()
        let start = clock.now
        await server.stop(gracePeriod: .seconds(3))
        #expect(clock.now - start < .milliseconds(500))
    }

    @Test func invalidHostIsRejectedAtStart() {
        #expect(throws: HTTPServerError.self) {
            _ = try makeServer({ $0.host = "localhost" }) { _ in HTTPResponse(status: 200) }
        }
    }
}
