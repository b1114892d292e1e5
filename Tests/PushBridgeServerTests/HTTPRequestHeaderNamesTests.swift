import Testing
@testable import PushBridgeServer

/// ``HTTPRequest/init(method:target:headers:body:remoteAddress:ticket:)`` lower-cases header
/// names in place, only those not already in lower case (issue 31: the map into a new array was
/// an allocation a request). Held to the map it replaced, on generated names.
struct HTTPRequestHeaderNamesTests {
    /// The old way: every name lower-cased into a new array.
    private static func oracle(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        headers.map { (name: $0.name.lowercased(), value: $0.value) }
    }

    /// Bytes a header name is made of here: lower and upper ASCII letters, digits, `-`, `_`,
    /// and letters with a case outside ASCII (`É`, `ß`, `İ`, `Σ`, the Kelvin sign).
    private static let pieces = ["a", "z", "A", "Z", "0", "9", "-", "_", "É", "é", "ß", "İ", "Σ", "\u{212A}", "@", "[", "`", "{"]

    @Test func namesAreTheOldMapsOnGeneratedHeaders() {
        var generator = SplitMix(seed: 31)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 6)
            var headers: [(name: String, value: String)] = []
            for index in 0..<count {
                let length = 1 + Int(generator.next() % 20)
                let name = (0..<length).map { _ in Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }.joined()
                headers.append((name: name, value: "Value \(index) É"))
            }
            let request = HTTPRequest(method: "POST", target: "/", headers: headers)
            let expected = Self.oracle(headers)
            #expect(request.headers.map(\.name) == expected.map(\.name), "names of \(headers.map(\.name))")
            #expect(request.headers.map(\.value) == expected.map(\.value))
        }
    }

    @Test func theRuleForANameLeftAsItIsIsTheOldOnesEqualName() {
        // A name told lower-cased is its own lowercased(); the edges of `A`–`Z` and non-ASCII.
        for name in ["content-type", "x-pushbridge-request-id-long-name", "@[`{", "a-z_09", ""] {
            #expect(HTTPRequest.isLowercased(name))
            #expect(name.lowercased() == name)
        }
        for name in ["Content-Type", "A", "Z", "é", "ß", "\u{212A}"] {
            #expect(!HTTPRequest.isLowercased(name), "\(name) would be left as sent")
        }
    }

    @Test func theServersRequestHasItsHeaderNamesLowerCased() async throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration()) { request in
            HTTPResponse(status: 200, body: Array(request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ";").utf8))
        }
        let response = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/h",
                                                    headers: [("X-Trace", "Abc"), ("x-lower", "1"), ("X-PushBridge-Long-Header-Name", "Z")], body: [1])
        #expect(response.text.contains("x-trace=Abc;x-lower=1;x-pushbridge-long-header-name=Z"), "\(response.text)")
        await server.stop()
    }
}
