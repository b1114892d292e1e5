import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The answers the HTTP server makes itself leave by the pipeline's exit: a 413, a refused
/// head, a 503 while draining, the answer at the handler deadline and the 503 to a handler still
/// running when a stop's grace period ends each carry the request id of
/// their audit row, write one access line (with the time since the request line) and count in
/// `pushbridge_requests_total`; `/healthz` and `/metrics` get their access line and metric too.
@Suite(.serialized)
struct ServerAnswerExitTests {
    static let osStart = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"

    /// The access lines of `requestId`, parsed.
    static func accessLines(_ proxy: ProxyHarness, requestId: String) -> [[String: String]] {
        proxy.log.lines.filter { $0.contains("msg=request") && $0.contains("request_id=\(requestId)") }.compactMap { line in
            LogfmtParser.parse(line).map { Dictionary($0.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }) }
        }
    }

    /// `pushbridge_requests_total` for `dialect`, `route`, `status` as the proxy's metrics render it (0 when absent).
    static func requestsCounted(_ proxy: ProxyHarness, dialect: String, route: String, status: Int) -> Int {
        let line = proxy.runtime.metrics.render().split(separator: "\n")
            .first { $0.hasPrefix(#"pushbridge_requests_total{dialect="\#(dialect)",route="\#(route)",status="\#(status)"}"#) }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
    }

    /// What every refusal the server makes must have: the id of a complete audit row with its
    /// status, one access line with that status, and one count in the request metric.
    static func expectOneExit(_ proxy: ProxyHarness, status: Int, id: String?, path: String, outcome: String = "rejected",
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let id = try #require(id, "the \(status) names no audit row", sourceLocation: sourceLocation)
        let row = try await firstValue(within: 5) { try AuditReader(path: proxy.auditPath).show(requestId: id) }
        #expect(row?.outcome == outcome && row?.responseStatus == status, "row: \(String(describing: row))", sourceLocation: sourceLocation)
        let lines = accessLines(proxy, requestId: id)
        #expect(lines.count == 1 && lines.first?["status"] == String(status), "access lines: \(lines)", sourceLocation: sourceLocation)
        let route = try #require(InboundRoute.match(path: path), sourceLocation: sourceLocation)
        #expect(requestsCounted(proxy, dialect: route.dialect.rawValue, route: route.kind.rawValue, status: status) == 1,
                "pushbridge_requests_total has no \(status) for \(path)", sourceLocation: sourceLocation)
    }

    /// Refusals made before the body is read, as raw bytes: a body over `max_body_bytes`
    /// (4096) and a head with a space before a header's colon.
    static let headRefusals: [(name: String, bytes: [UInt8], status: Int)] = {
        let head = "POST \(osStart) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Key \(ProxyHarness.oneSignalKey)\r\nContent-Type: application/json\r\n"
        let large = Array(#"{"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000) + Array(#""}"#.utf8)
        return [("a body over the limit", Array((head + "Content-Length: \(large.count)\r\n\r\n").utf8) + large, 413),
                ("a malformed head", Array((head + "Content-Length : 2\r\n\r\n{}").utf8), 400)]
    }()

    @Test(arguments: [0, 1])
    func aRefusalOfTheHeadHasItsRowIdAccessLineAndMetric(_ index: Int) async throws {
        #expect(Self.headRefusals.count == 2)
        let refusal = Self.headRefusals[index]
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.limits.maxBodyBytes = 4096 })
        let reply = try await RawHTTPClient.exchange(port: proxy.port, bytes: refusal.bytes)
        #expect(reply.status == refusal.status, "\(refusal.name): \(reply.status) \(reply.text)")
        try await Self.expectOneExit(proxy, status: refusal.status, id: reply.header("X-PushBridge-Request-Id"), path: Self.osStart)
        #expect(upstream.all.isEmpty, "\(refusal.name)")
        await proxy.stop()
    }

    @Test func aRequestThatArrivesWhileDrainingIs503WithItsRowIdTimedAccessLineAndMetric() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        let sentHead = Date()
        let held = try ShutdownRefusalTests.HeldRequest(port: proxy.port, path: ProxyModesLiveTests.startPath,
                                                        headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)")], body: ProxyModesLiveTests.startBody)
        #expect(await eventually { proxy.server.core.openRequests == 1 }, "the held request never reached the server")
        // At least 5 ms between the request line and the answer, for the access line to show.
        #expect(await eventually { Date().timeIntervalSince(sentHead) >= 0.005 })
        let stopping = Task { await proxy.stop() }
        #expect(await eventually { proxy.server.core.registry.withLock { $0.draining } }, "the server never began draining")
        let reply = try await held.finish()
        await stopping.value

        #expect(reply.status == 503)
        try await Self.expectOneExit(proxy, status: 503, id: reply.header("X-PushBridge-Request-Id"), path: ProxyModesLiveTests.startPath)
        let id = try #require(reply.header("X-PushBridge-Request-Id"))
        let duration = Self.accessLines(proxy, requestId: id).first?["duration_ms"].flatMap(Double.init) ?? 0
        #expect(duration >= 5, "the access line says the 503 took \(duration) ms since its request line")
        #expect(upstream.all.isEmpty)
    }

    @Test func aHandlerPastItsDeadlineIsAnsweredWithItsRowIdAccessLineAndMetricAndTheRowLearnsHowItEnded() async throws {
        let upstream = try RecordingSandbox()
        let (_, sendAt, clock) = ProxySchedulerLiveTests.twoDaysAhead()
        // Deadline 1 ms + 300 ms + 2 s; the scheduler's file, locked below, waits 5 s for its lock.
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.limits = .init(upstreamConnectTimeoutMs: 200, upstreamTimeoutMs: 300)
            $0.delivery = .init(maxWaitMs: 1, maxAttempts: 1)
        }, clock: clock)
        let handlerDeadline = try proxy.configuration.load().handlerDeadline
        #expect(handlerDeadline < .seconds(4))
        let locker = try SQLiteDatabase(path: proxy.directory.appendingPathComponent("audit-scheduled.sqlite").path)
        // The proxy's scheduler may hold the file for a moment (its start-up, a claim pass): wait it out.
        try locker.execute("PRAGMA busy_timeout = 10000")
        try locker.execute("BEGIN EXCLUSIVE")

        let path = ProxySchedulerLiveTests.path
        let started = ContinuousClock.now
        let reply = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: path, headers: [("Content-Type", "application/json")],
                                                 body: ProxySchedulerLiveTests.body(sendAt: sendAt))
        let elapsed = ContinuousClock.now - started
        // Pushwoosh's shape for a failure: HTTP 500, status_code 500.
        #expect(reply.status == 500 && reply.text.contains("did not finish within"), "\(reply.status) \(reply.text)")
        #expect(elapsed >= handlerDeadline, "answered after \(elapsed)")
        #expect(ProxyFixtureLiveTests.isDialectError(.pushwoosh, status: reply.status, body: reply.body), "\(reply.text)")
        try await Self.expectOneExit(proxy, status: 500, id: reply.header("X-PushBridge-Request-Id"), path: path, outcome: "failed")
        let id = try #require(reply.header("X-PushBridge-Request-Id"))

        // The handler gives up on the locked file and reaches its exit: the row keeps the 500
        // the caller got and adds how the handler ended; no second access line or count.
        let ended = try await firstValue(within: 15) {
            try AuditReader(path: proxy.auditPath).show(requestId: id).flatMap { $0.errorMessage?.contains("the handler then ended") == true ? $0 : nil }
        }
        try locker.execute("COMMIT")
        #expect(ended?.responseStatus == 500 && ended?.errorMessage?.contains("did not finish within") == true, "\(String(describing: ended))")
        #expect(ended?.outcome == "failed" && ended?.responseBody?.contains("did not finish within") == true, "\(String(describing: ended))")
        #expect(Self.accessLines(proxy, requestId: id).count == 1)
        #expect(Self.requestsCounted(proxy, dialect: "pushwoosh", route: InboundRoute.match(path: path)!.kind.rawValue, status: 500) == 1)
        await proxy.stop()
    }

    @Test func aHandlerStillRunningWhenTheStopsGraceEndsIs503WithItsRowIdAccessLineAndMetric() async throws {
        let upstream = try FaultyUpstream(.stall)
        defer { upstream.stop() }
        // The upstream never answers and is waited for 20 s: the handler outlives the grace.
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.limits.upstreamTimeoutMs = 20000
            $0.delivery.maxAttempts = 1
        })
        let path = ProxyModesLiveTests.startPath
        let sending = Task {
            try await RawHTTPClient.send(port: proxy.port, method: "POST", target: path,
                                         headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")],
                                         body: ProxyPacingLiveTests.startBody(FaultyUpstream.marker))
        }
        #expect(await eventually { upstream.faulted.count == 1 }, "the start never reached the upstream")
        await proxy.runtime.stop(gracePeriod: .milliseconds(200))
        let reply = try await sending.value

        // OneSignal's shape for trouble upstream: 503 {"errors": [...]}.
        #expect(reply.status == 503 && reply.text.contains("stopped before the answer was ready"), "\(reply.status) \(reply.text)")
        try await Self.expectOneExit(proxy, status: 503, id: reply.header("X-PushBridge-Request-Id"), path: path, outcome: "failed")
        let id = try #require(reply.header("X-PushBridge-Request-Id"))
        let row = try AuditReader(path: proxy.auditPath).show(requestId: id)
        #expect(row?.responseBody?.contains("stopped before the answer was ready") == true, "the row does not hold the answer sent: \(String(describing: row))")
        #expect(Self.accessLines(proxy, requestId: id).first?["outcome"] == "failed")
    }

    @Test func healthAndMetricsAnswersHaveTheirAccessLineAndCountInTheMetric() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        for path in ["/healthz", "/metrics"] {
            let reply = try await RawHTTPClient.send(port: proxy.port, target: path)
            #expect(reply.status == 200, "\(path): \(reply.status)")
            let id = try #require(reply.header("X-PushBridge-Request-Id"), "\(path): no request id")
            let lines = Self.accessLines(proxy, requestId: id)
            #expect(lines.count == 1 && lines.first?["path"] == path && lines.first?["status"] == "200", "\(path): \(lines)")
        }
        #expect(Self.requestsCounted(proxy, dialect: "none", route: "unknown", status: 200) == 2)
        await proxy.stop()
    }
}
