import PushBridgeCore

extension HTTPResponse {
    /// A dialect's answer as an HTTP response (the exit adds the request id).
    init(dialect r: DialectResponse) {
        self.init(status: r.status, headers: [("Content-Type", "application/json")] + r.headers.map { (name: $0.0, value: $0.1) }, body: r.body)
    }
}
