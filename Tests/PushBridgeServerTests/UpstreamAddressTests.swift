import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// An upstream that cannot be reached: the caller gets its dialect's error with the request id
/// and a generic sentence; the upstream's address and curl's text (which names it) reach the
/// log only, never the answer or the audit.
@Suite(.serialized)
struct UpstreamAddressTests {
    @Test func anUnreachableUpstreamsAddressReachesTheLogOnly() async throws {
        let closedPort = try await ClosedPort.find()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: "http://127.0.0.1:\(closedPort)").with { $0.limits = ProxyFailureTests.failureLimits })
        let bodies = try ProxyFailureTests.validBodies()
        #expect(bodies.count == 3)
        for (path, body) in bodies {
            let reply = try await proxy.send(path: path, body: body)
            let dialect = InboundRoute.match(path: path)!.dialect
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(ProxyFixtureLiveTests.isDialectError(dialect, status: reply.status, body: reply.body), "\(dialect): \(reply.status)")
            #expect(text.contains("OpenPush could not be reached"), "\(dialect): \(text)")
            for leak in ["127.0.0.1", String(closedPort), "port", "Failed to connect"] {
                #expect(!text.contains(leak), "\(dialect) answer names \(leak): \(text)")
            }
            let id = try #require(reply.headers["x-pushbridge-request-id"], "\(dialect): no request id")
            let record = try #require(try await ProxyFailureTests().row(proxy, id), "\(dialect): no audit row")
            let stored = [record.responseBody ?? "", record.errorMessage ?? "", record.attempts ?? "", record.upstreamBody ?? ""].joined(separator: "\n")
            #expect(record.attempts?.contains("connect_failed") == true, "\(dialect): \(record.attempts ?? "-")")
            for leak in ["127.0.0.1", String(closedPort), "Failed to connect"] {
                #expect(!stored.contains(leak), "\(dialect) audit names \(leak): \(stored)")
            }
            let logged = proxy.log.lines.filter { $0.contains(id) && $0.contains("openpush call failed") }
            #expect(logged.contains { $0.contains("127.0.0.1") && $0.contains(String(closedPort)) }, "\(dialect): the log lacks the address: \(logged)")
        }
        await proxy.stop()
    }
}
