import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Bad input, bad credentials and bad upstreams: each gets the caller's dialect error within the
/// deadline and an audit row, nothing half-translated leaves, and the proxy keeps serving.
@Suite(.serialized)
struct ProxyFailureTests {
    /// A 4 KiB body limit and short upstream deadlines.
    static let failureLimits = TestConfiguration.Limits(maxBodyBytes: 4096, upstreamConnectTimeoutMs: 300, upstreamTimeoutMs: 800)
    /// ``failureLimits`` and ``segmentMap`` as JSON text, for the older string-fragment harness
    /// initialiser (new tests use ``failureLimits`` and ``TestApp/pushwooshSegmentMap``).
    static let limits = #"{"max_body_bytes": 4096, "upstream_timeout_ms": 800, "upstream_connect_timeout_ms": 300}"#
    static let segmentMap = #", "segment_map": {"FILTER_NAME_1": "seg_01hq8n4t2v"}"#
    static let osStart = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    static let pwStart = "/json/1.3/startLiveActivity"
    static let bkSend = "/v1/live-activities/send"

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/\(name)/body.json")))
    }

    /// Requests the seeded sandbox accepts, one per dialect.
    static func validBodies() throws -> [(String, [UInt8])] {
        [(osStart, try fixture("onesignal-start-reference")), (pwStart, try fixture("pushwoosh-start-filter-reference")),
         (bkSend, Array(#"{"to":"alice","event":"start","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"There"}}"#.utf8))]
    }

    /// The audit row for a request id, waiting briefly for rows written after the answer (413).
    func row(_ proxy: ProxyHarness, _ id: String?) async throws -> AuditRecord? {
        guard let id else { return nil }
        return try await firstValue(within: 2) { try AuditReader(path: proxy.auditPath).show(requestId: id).flatMap { $0.outcome != "pending" ? $0 : nil } }
    }

    @Test func badInputAndBadCredentialsAreRefusedInEachDialect() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.limits = Self.failureLimits
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
        })
        let oversized = Array(#"{"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000) + Array(#""}"#.utf8)
        let cases: [(String, String, [UInt8], [(String, String)]?, String)] = [
            ("malformed JSON", Self.osStart, Array(#"{"event": "start","#.utf8), nil, "malformed JSON"),
            ("malformed JSON", Self.pwStart, Array(#"{"request": {"#.utf8), nil, "malformed JSON"),
            ("malformed JSON", Self.bkSend, Array("[1,".utf8), nil, "malformed JSON"),
            ("too large", Self.osStart, oversized, nil, "larger than the limit of 4096 bytes"),
            ("too large", Self.pwStart, oversized, nil, "larger than the limit of 4096 bytes"),
            ("too large", Self.bkSend, oversized, nil, "larger than the limit of 4096 bytes"),
            ("unknown app", "/apps/no_such_app/activities/activity/DeliveryAttributes", try Self.fixture("onesignal-start-reference"), nil, "not configured"),
            ("wrong key", Self.osStart, try Self.fixture("onesignal-start-reference"), [("Authorization", "Key wrong")], "invalid credentials"),
            ("no key", Self.osStart, try Self.fixture("onesignal-start-reference"), [], "missing credentials"),
            ("wrong auth", Self.pwStart, Array(String(decoding: try Self.fixture("pushwoosh-start-filter-reference"), as: UTF8.self)
                .replacingOccurrences(of: "SECRET_API_TOKEN", with: "WRONG").utf8), nil, "Access denied"),
            ("wrong bearer", Self.bkSend, try Self.fixture("buzzkit-reference-start"), [("Authorization", "Bearer nope")], "invalid credentials"),
        ]
        for (what, path, body, headers, message) in cases {
            let reply = try await proxy.send(path: path, body: body, headers: headers)
            let dialect = InboundRoute.match(path: path)!.dialect
            #expect(ProxyFixtureLiveTests.isDialectError(dialect, status: reply.status, body: reply.body), "\(what) \(dialect): \(reply.status)")
            #expect(String(decoding: reply.body, as: UTF8.self).contains(message), "\(what) \(dialect): \(String(decoding: reply.body, as: UTF8.self))")
            let record = try await row(proxy, reply.headers["x-pushbridge-request-id"])
            #expect(record?.outcome == "rejected", "\(what) \(dialect): no rejected audit row")
            #expect(record?.responseStatus == reply.status)
        }
        #expect(upstream.all.isEmpty, "nothing reaches OpenPush")
        // Still serving.
        for (path, body) in try Self.validBodies() {
            let reply = try await proxy.send(path: path, body: body)
            #expect(reply.status < 300, "\(path) after the failures: \(reply.status)")
            #expect(!ProxyFixtureLiveTests.isDialectError(InboundRoute.match(path: path)!.dialect, status: reply.status, body: reply.body),
                    "\(path) after the failures: \(String(decoding: reply.body, as: UTF8.self))")
        }
        await proxy.stop()
    }

    @Test func anUpstreamThatRefusesConnectionsGetsEachDialectsErrorFast() async throws {
        let closedPort = try await ClosedPort.find()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: "http://127.0.0.1:\(closedPort)").with { $0.limits = Self.failureLimits })
        for (path, body) in try Self.validBodies() {
            let started = ContinuousClock.now
            let reply = try await proxy.send(path: path, body: body)
            #expect(ContinuousClock.now - started < .seconds(2))
            let dialect = InboundRoute.match(path: path)!.dialect
            #expect(ProxyFixtureLiveTests.isDialectError(dialect, status: reply.status, body: reply.body), "\(dialect): \(reply.status)")
            #expect([503, 500, 502].contains(reply.status), "\(dialect): \(reply.status)")
            let record = try await row(proxy, reply.headers["x-pushbridge-request-id"])
            #expect(record?.outcome == "failed")
            #expect(record?.attempts?.contains("connect") == true, "attempts: \(record?.attempts ?? "-")")
        }
        await proxy.stop()
    }

    @Test func anUpstreamThatNeverAnswersIsCutAtTheDeadline() async throws {
        let upstream = try RecordingSandbox { _ in
            try? await Task.sleep(for: .seconds(5))
            return HTTPResponse(status: 201, body: Array(#"{"id":"late"}"#.utf8))
        }
        // One attempt: the deadline of a single call is what this checks (retries of starts
        // after a timeout are ProxyPacingLiveTests').
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.limits = Self.failureLimits
            $0.delivery.maxAttempts = 1
        })
        for (path, body) in try Self.validBodies() {
            let started = ContinuousClock.now
            let reply = try await proxy.send(path: path, body: body)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(3), "answered after \(elapsed)")
            let dialect = InboundRoute.match(path: path)!.dialect
            #expect(ProxyFixtureLiveTests.isDialectError(dialect, status: reply.status, body: reply.body), "\(dialect): \(reply.status)")
            let record = try await row(proxy, reply.headers["x-pushbridge-request-id"])
            #expect(record?.outcome == "failed")
            #expect(record?.errorMessage?.contains("did not answer") == true, "\(record?.errorMessage ?? "-")")
        }
        await proxy.stop()
    }
}

/// A loopback port that nothing listens on.
enum ClosedPort {
    static func find() async throws -> UInt16 {
        let server = try HTTPServer(configuration: HTTPServerConfiguration()) { _ in HTTPResponse(status: 200) }
        let port = server.port
        await server.stop(gracePeriod: .zero)
        return port
    }
}
