import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// A request passed through to the legacy provider (observe, shadow with the legacy side
/// answering) loses its hop-by-hop fields both ways: the standard set and every field the
/// `Connection` header names; the caller gets PushBridge's `X-PushBridge-Request-Id` only.
@Suite(.serialized)
struct HopByHopLiveTests {
    /// Fields the caller sends that belong to its hop to PushBridge.
    static let callerHop: [(String, String)] = [
        ("Connection", "close, X-Hop-Secret, HTTP2-Settings"), ("X-Hop-Secret", "caller-hop-secret"),
        ("HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"), ("Keep-Alive", "timeout=5"), ("Proxy-Authorization", "Basic cHJveHk6cHc="),
        ("TE", "trailers"), ("Proxy-Connection", "keep-alive"), ("Trailer", "X-Checksum"),
    ]
    /// Lower-cased names of `callerHop` that must not reach the provider.
    static let callerHopNames: Set<String> = ["x-hop-secret", "http2-settings", "keep-alive", "proxy-authorization", "te", "proxy-connection", "trailer"]

    /// A legacy OneSignal that answers with hop-by-hop fields of its own and its own request id.
    static func provider() throws -> RawSocketServer {
        try RawSocketServer { _, fd, _ in
            RawSocketServer.write(fd, status: "200 OK", headers: [
                "Content-Type: application/json", "Connection: X-Provider-Hop, Keep-Alive", "X-Provider-Hop: provider-hop-secret",
                "Keep-Alive: timeout=9", "Proxy-Authenticate: Basic realm=\"legacy\"", "Upgrade: h2c", "Trailer: X-Checksum",
                "X-PushBridge-Request-Id: req_from_the_provider", "X-Legacy-Provider: onesignal",
            ], body: Array(#"{"id":"legacy-1","errors":[]}"#.utf8))
        }
    }

    static func request(_ port: UInt16) -> [UInt8] {
        let body = ProxyModesLiveTests.startBody
        var head = "POST \(ProxyModesLiveTests.startPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Authorization: Key \(ProxyHarness.oneSignalKey)\r\nX-Caller-Field: kept\r\n"
        for (name, value) in callerHop { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    @Test(arguments: [MigrationMode.observe, .shadow])
    func hopByHopFieldsCrossNeitherWayAndTheRequestIdIsPushBridgesOnly(mode: MigrationMode) async throws {
        let legacy = try Self.provider()
        defer { legacy.stop() }
        let shadowSandbox = try RecordingSandbox()
        let configuration = TestConfiguration(upstream: shadowSandbox.baseURL).with {
            $0.legacy[.onesignal] = "http://127.0.0.1:\(legacy.port)"
            $0.app("os") {
                $0.mode = mode
                if mode == .shadow { $0.shadow = .init(primary: .legacy, openPushBaseURL: shadowSandbox.baseURL) }
            }
        }
        let proxy = try ProxyHarness(.live, configuration: configuration)
        let reply = try await RawHTTPClient.exchange(port: proxy.port, bytes: Self.request(proxy.port))
        #expect(reply.status == 200, "\(mode): \(reply.text)")
        let arrived = try #require(legacy.received.first, "\(mode): the legacy provider was not called")
        let sent = Set(arrived.headers.map { $0.name.lowercased() })
        #expect(sent.isDisjoint(with: Self.callerHopNames), "\(mode): hop-by-hop fields reached the provider: \(arrived.headers)")
        #expect(!arrived.headers.contains { $0.value.contains("caller-hop-secret") }, "\(mode): the field Connection names reached the provider")
        #expect(arrived.header("x-caller-field") == "kept" && arrived.header("authorization") == "Key \(ProxyHarness.oneSignalKey)",
                "\(mode): an end-to-end field was dropped: \(arrived.headers)")
        #expect(arrived.body == ProxyModesLiveTests.startBody)

        let back = reply.headers.map { $0.name.lowercased() }
        for name in ["x-provider-hop", "keep-alive", "proxy-authenticate", "upgrade", "trailer"] {
            #expect(!back.contains(name), "\(mode): the provider's \(name) reached the caller: \(reply.headers)")
        }
        #expect(!(reply.header("connection") ?? "").lowercased().contains("x-provider-hop"), "\(mode): the provider's Connection reached the caller")
        let ids = reply.headers.filter { $0.name.lowercased() == "x-pushbridge-request-id" }.map(\.value)
        #expect(ids.count == 1 && ids.first?.hasPrefix("req_") == true && ids.first != "req_from_the_provider", "\(mode): request ids \(ids)")
        let id = try #require(ids.first)
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: id) != nil, "\(mode): the request id names no audit row")
        #expect(reply.header("x-legacy-provider") == "onesignal" && reply.text == #"{"id":"legacy-1","errors":[]}"#,
                "\(mode): the provider's own answer was changed")
        await proxy.stop()
    }
}
