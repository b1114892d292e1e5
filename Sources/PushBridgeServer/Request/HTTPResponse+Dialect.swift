import PushBridgeCore

extension HTTPResponse {
    /// A dialect's answer as an HTTP response (the exit adds the request id). Its headers are
    /// made in one array of their size and one more, the request id's (a literal, a mapped copy
    /// and their concatenation were up to three allocations per answer; the exit's append into
    /// a full array one more).
    init(dialect r: DialectResponse) {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(Self.exitHeaderRoom + 1 + r.headers.count)
        headers.append((name: "Content-Type", value: "application/json"))
        for header in r.headers { headers.append((name: header.0, value: header.1)) }
        self.init(status: r.status, headers: headers, body: r.body)
    }

    /// The headers the exit adds to every answer (``ProxyService/leave(_:_:)``: the request id).
    static let exitHeaderRoom = 1
}
