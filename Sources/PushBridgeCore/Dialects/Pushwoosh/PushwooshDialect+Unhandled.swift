extension PushwooshDialect {
    /// The answer for a `/json/…` call PushBridge does not proxy: Pushwoosh's envelope with
    /// HTTP status and `status_code` 404 and the reason in `status_message` (``render(failure:route:)``
    /// answers a not-found app as "access denied", which would hide the reason here).
    public func render(unhandledRoute message: String) -> DialectResponse {
        DialectResponse(status: 404, body: .object(["status_code": .int(404), "status_message": .string(message), "response": .null]))
    }
}
