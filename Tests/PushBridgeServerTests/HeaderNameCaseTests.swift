import Testing
@testable import PushBridgeServer

/// Header names are compared without lower-cased copies (``Swift/String/isASCIICaseInsensitive(_:)``,
/// on every request's answer and upstream reply): the same verdicts as comparing
/// `lowercased()` copies for every name HTTP allows, and the lookups that use it find the same
/// header.
struct HeaderNameCaseTests {
    static let pairs: [(String, String)] = [
        ("X-PushBridge-Request-Id", "x-pushbridge-request-id"), ("CONTENT-LENGTH", "content-length"),
        ("Content-Length", "content-lengt"), ("Transfer-Encoding", "transfer-encodinG"), ("a", "A"), ("", ""),
        ("Idempotent-Replayed", "idempotent-replayed"), ("X-A", "X-B"), ("[", "{"), ("@", "`"), ("Ä", "ä"),
    ]

    @Test(arguments: pairs)
    func agreesWithComparingLowerCasedCopies(_ a: String, _ b: String) {
        let ascii = a.utf8.allSatisfy { $0 < 0x80 } && b.utf8.allSatisfy { $0 < 0x80 }
        // For the ASCII names HTTP allows, exactly the old verdict; beyond ASCII, byte equality.
        #expect(a.isASCIICaseInsensitive(b) == (ascii ? a.lowercased() == b.lowercased() : a == b), "\(a) vs \(b)")
        #expect(a.isASCIICaseInsensitive(b) == b.isASCIICaseInsensitive(a))
    }

    @Test func aResponseAndAnUpstreamReplyFindTheirHeaderWhateverItsCase() {
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("X-PushBridge-Request-Id", "req_1")])
        #expect(response.header("x-pushbridge-request-id") == "req_1")
        #expect(response.header("X-PUSHBRIDGE-REQUEST-ID") == "req_1")
        #expect(response.header("x-pushbridge-request") == nil)
        let reply = UpstreamReply(status: 201, headers: [(name: "Idempotent-Replayed", value: "true"), (name: "x-b", value: "2")], body: [], latency: .zero)
        #expect(reply.headers.map(\.name) == ["idempotent-replayed", "x-b"], "names are still stored lower-cased")
        #expect(reply.header("Idempotent-Replayed") == "true")
        let lowered = UpstreamReply(status: 201, headers: [(name: "idempotent-replayed", value: "true")], body: [], latency: .zero)
        #expect(lowered.header("IDEMPOTENT-REPLAYED") == "true")
    }
}
