import PushBridgeCore

extension EventLog {
    /// One line per finding of a translation, at the finding's own severity (info, warning,
    /// error): `request_id`, `dialect`, `app`, `route`, `field`, `kind`, `severity` and
    /// `reason`. The lines go out together (one write), in the findings' order.
    public func findings(_ findings: [Finding], requestId: String, dialect: DialectName, app: String?, route: RouteKind) {
        guard findings.contains(where: { isEnabled(Self.level(of: $0.severity)) }) else { return }
        log("translation finding", leveled: findings.map { finding in (Self.level(of: finding.severity), [
                LogField("request_id", .string(requestId)),
                LogField("dialect", .string(dialect.rawValue)),
                LogField("app", .string(app ?? "-")),
                LogField("route", .string(route.rawValue)),
                LogField("field", .string(finding.field)),
                LogField("kind", .string(finding.kind.rawValue)),
                LogField("severity", .string(finding.severity.rawValue)),
                LogField("reason", .string(finding.message)),
            ])
        })
    }

    /// The log level of a finding's severity.
    static func level(of severity: Severity) -> LogLevel {
        switch severity {
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }

    /// One info line for a finished request. The query string is never logged (it may carry
    /// a key); `dialect` and `app` are `-` when the request never reached one.
    public func access(requestId: String, method: String, path: String, status: Int, durationMs: Double,
                       dialect: DialectName?, app: String?, outcome: String, remote: String?) {
        guard isEnabled(.info) else { return }
        let bare = path.utf8.contains(UInt8(ascii: "?")) ? path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" : path
        log(.info, "request", [
            LogField("request_id", .string(requestId)),
            LogField("method", .string(method)),
            LogField("path", .string(bare)),
            LogField("status", .int(Int64(status))),
            LogField("duration_ms", .double((durationMs * 1000).rounded() / 1000)),
            LogField("dialect", .string(dialect?.rawValue ?? "-")),
            LogField("app", .string(app ?? "-")),
            LogField("outcome", .string(outcome)),
            LogField("remote", .string(remote ?? "-")),
        ])
    }
}
