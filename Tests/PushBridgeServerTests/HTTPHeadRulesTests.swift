import Testing
@testable import PushBridgeServer

/// ``HTTPHeadRules`` on its own: what passes, and the status each broken rule is answered with.
struct HTTPHeadRulesTests {
    @Test func headRulesNameTheRuleAndItsStatus() {
        let ok: [(name: String, value: String)] = [("Host", "127.0.0.1:8080")]
        let limits = HTTPHeadRules.Limits(headBytes: nil, targetBytes: nil)
        #expect(HTTPHeadRules.problem(method: "POST", target: "/a?b=c", version: "HTTP/1.1", headBytes: 100, headers: ok, limits: limits) == nil)
        #expect(HTTPHeadRules.problem(method: "POST", target: "/", version: "HTTP/1.1", headBytes: 100, headers: ok + [("Transfer-Encoding", "Chunked")],
                                      limits: limits) == nil)
        #expect(HTTPHeadRules.problem(in: [("Content-Encoding", "identity")]) == nil)
        #expect(HTTPHeadRules.problem(method: "POST", target: "/", version: "HTTP/1.0", headBytes: 100, headers: [("Transfer-Encoding", "chunked")],
                                      limits: limits)?.field == "header Transfer-Encoding")
        #expect(HTTPHeadRules.problem(method: "GET", target: "/", version: "HTTP/1.0", headBytes: 100, headers: [], limits: limits) == nil)
        #expect(HTTPHeadRules.problem(method: "GET", target: "/", version: "HTTP/1.1", headBytes: 100, headers: [], limits: limits)?.field == "header Host")
        #expect(HTTPHeadRules.problem(method: "GET", target: "/", version: "HTTP/1.1", headBytes: 100, headers: ok + ok, limits: limits)?.field == "header Host")
        #expect(HTTPHeadRules.problem(in: [("X Y", "1")])?.field == "header X Y")
        #expect(HTTPHeadRules.problem(in: [("X:Y", "1")])?.field == "header X:Y")
        #expect(HTTPHeadRules.problem(in: [("Transfer-Encoding", "chunked,")])?.status == 400)
        #expect(HTTPHeadRules.problem(in: [("Content-Encoding", "br")])?.status == 415)
        let tight = HTTPHeadRules.Limits(headBytes: 500, targetBytes: 20)
        #expect(HTTPHeadRules.problem(method: "GET", target: "/" + String(repeating: "a", count: 20), version: "HTTP/1.1", headBytes: 100,
                                      headers: ok, limits: tight)?.status == 414)
        #expect(HTTPHeadRules.problem(method: "GET", target: "/", version: "HTTP/1.1", headBytes: 501, headers: ok, limits: tight)?.status == 431)
    }
}
