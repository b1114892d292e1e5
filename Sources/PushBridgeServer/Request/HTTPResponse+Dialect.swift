import PushBridgeCore

extension HTTPResponse {
    /// A dialect's answer as an HTTP response (the exit adds the request id). Its headers are
    /// made in one array of their size (a literal, a mapped copy and their concatenation were
    /// up to three allocations per answer).
    init(dialect r: DialectResponse) {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(1 + r.headers.count)
        headers.append((name: "Content-Type", value: "application/json"))
        for header in r.headers { headers.append((name: header.0, value: header.1)) }
        self.init(status: r.status, headers: headers, body: r.body)
    }
}
