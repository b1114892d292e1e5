import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 31, ninth pass: a dialect's answer keeps room for the header the exit adds (the
/// request id), so the exit's append, into headers it now owns, needs no new array.
struct ExitHeaderRoomTests {
    @Test(arguments: [0, 1, 2, 3, 5])
    func aDialectsAnswerHasRoomForTheRequestIdHeader(extra: Int) {
        let headers = (0..<extra).map { ("X-Extra-\($0)", "value \($0)") }
        var response = HTTPResponse(dialect: DialectResponse(status: 200, body: .object(["ok": .bool(true)]), headers: headers))
        #expect(response.headers.count == 1 + extra)
        #expect(response.headers.capacity >= response.headers.count + 1)
        // The headers are the same as before, in the same order, and the append keeps them.
        #expect(response.headers.map(\.name) == ["Content-Type"] + headers.map(\.0))
        let storage = response.headers.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        response.headers.append((name: "X-PushBridge-Request-Id", value: "req_1"))
        #expect(response.headers.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == storage)
    }
}
