import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A legacy provider that does not answer at all (nothing listens on its port): the caller
/// gets its own dialect's answer for upstream trouble (OneSignal 503, BuzzKit 502, Pushwoosh's envelope) naming the legacy provider, never a plain body
/// its client cannot parse; the row says failed.
@Suite(.serialized) struct LegacyUnreachableTests {
    /// A loopback port nothing listens on (bound once to learn a free one, then closed).
    static func closedPort() async throws -> UInt16 {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(), handler: { _ in HTTPResponse(status: 200) })
        let port = server.port
        await server.stop(gracePeriod: .zero)
        return port
    }

    @Test(arguments: ActivityAffinityTests.cases) func anUnreachableLegacyProviderIsAnsweredInTheCallersDialect(_ c: ActivityAffinityTests.Case) async throws {
        let sandbox = try RecordingSandbox()
        let base = "http://127.0.0.1:\(try await Self.closedPort())"
        let proxy = try ProxyHarness(.inProcess, configuration: ActivityAffinityTests.configuration(TestConfiguration(upstream: sandbox.baseURL), legacy: base, mode: .observe))
        let reply = try await proxy.send(path: c.startPath, body: c.start("unreachable_\(c.dialect.rawValue)"))
        await proxy.stop()
        let text = String(decoding: reply.body, as: UTF8.self)
        let body = try #require(try JSONParser.parse(reply.body).objectValue, "\(text)")
        #expect(text.contains("the legacy provider did not answer"), "\(text)")
        switch c.dialect {
        case .pushwoosh:
            // Pushwoosh's envelope: its client reads status_code and status_message.
            #expect(body["status_code"] != nil && body["status_message"] != nil, "\(text)")
        case .onesignal:
            // OneSignal's own status for trouble behind it is 503.
            #expect(reply.status == 503 && body["errors"]?.arrayValue?.isEmpty == false, "\(reply.status) \(text)")
        case .buzzkit:
            #expect(reply.status == 502 && body["errors"] == nil, "\(reply.status) \(text)")
        }
        #expect(reply.headers.first { $0.key.lowercased() == "content-type" }?.value.hasPrefix("application/json") == true, "\(reply.headers)")
        #expect(sandbox.all.isEmpty, "observe sent something to OpenPush")
        let row = try #require(try ActivityAffinityTests.newest(proxy))
        #expect(row.outcome == "failed" && row.upstreamStatus == nil, "\(row.outcome)")
    }
}
