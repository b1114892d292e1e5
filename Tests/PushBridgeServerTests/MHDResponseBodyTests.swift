import CMicroHTTPD
import Testing
@testable import PushBridgeServer

/// An answer's body goes to libmicrohttpd without a copy (issue 31's allocations per request):
/// the request's exchange keeps the bytes (``HTTPExchange/keepSentBody(_:)``) and the response
/// keeps the exchange until libmicrohttpd destroys it, then lets it go. What a caller receives
/// is held by the HTTP server's suites (the same bytes over real connections).
struct MHDResponseBodyTests {
    @Test func theExchangeKeepsTheBodyOnceAndHandsOutItsOwnBytes() throws {
        let exchange = HTTPExchange(target: "/v1/notifications")
        let body = Array("{\"id\":\"a-notification-id\",\"recipients\":1}".utf8)
        let bytes = try #require(exchange.keepSentBody(body))
        #expect(Array(bytes) == body)
        #expect(bytes.baseAddress == body.withUnsafeBytes { $0.baseAddress }, "the answer's own storage, not a copy")
        #expect(exchange.keepSentBody(Array("another".utf8)) == nil, "kept once: a second answer is copied")
    }

    @Test func theResponseHoldsTheExchangeUntilLibmicrohttpdDestroysIt() throws {
        weak var released: HTTPExchange?
        var response: OpaquePointer?
        do {
            let exchange = HTTPExchange(target: "/v1/notifications")
            released = exchange
            response = MHDConnection.makeResponse(
                HTTPResponse(status: 201, headers: [(name: "Content-Type", value: "application/json")], body: Array(repeating: 0x61, count: 70_000)),
                keepAlive: "timeout=5", heldBy: exchange)
        }
        let made = try #require(response)
        #expect(released != nil, "the queued bytes' owner stays while the response lives")
        MHD_destroy_response(made)
        #expect(released == nil, "destroying the response lets the exchange go")
    }

    @Test func withoutAnExchangeTheBodyIsCopiedAndNothingIsHeld() throws {
        let made = try #require(MHDConnection.makeResponse(HTTPResponse(status: 200, body: Array("ok".utf8)), keepAlive: nil))
        MHD_destroy_response(made)
    }
}
