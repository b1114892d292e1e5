import PushBridgeCore

extension EventLog {
    /// What ``findings(_:requestId:dialect:app:route:)`` held back.
    public struct HeldBack: Sendable, Equatable {
        /// Findings past the per-request cap (summed up in one "and N more" line).
        public var overCap = 0
        /// Identical lines past the per-app rate.
        public var rateLimited = 0
    }

    /// One line per finding of a translation, at the finding's own severity (info, warning,
    /// error): `request_id`, `dialect`, `app`, `route`, `field`, `kind`, `severity` and
    /// `reason`, within the bounds of ``findingLimiter``: past its per-request cap one warning
    /// line says how many more there are, and identical lines past its per-app rate are
    /// dropped. The lines go out together (one write), in the findings' order. Returns what
    /// was held back.
    @discardableResult
    public func findings(_ findings: [Finding], requestId: String, dialect: DialectName, app: String?, route: RouteKind) -> HeldBack {
        var held = HeldBack()
        guard findings.contains(where: { isEnabled(Self.level(of: $0.severity)) }) else { return held }
        let appName = app ?? "-", now = clock()
        // Each admitted line encoded as it is admitted, into the request's one text (issue 31).
        var lines = FindingLogLines(log: self, requestId: requestId, dialect: dialect.rawValue, app: appName, route: route.rawValue)
        var admitted = 0
        for finding in findings {
            if admitted >= findingLimiter.maxLinesPerRequest { held.overCap += 1; continue }
            let identity = FindingLogLimiter.Line(app: appName, dialect: dialect.rawValue, route: route.rawValue, field: finding.field,
                                                  kind: finding.kind.rawValue, reason: finding.message)
            guard findingLimiter.admit(identity, nowMs: now) else { held.rateLimited += 1; continue }
            admitted += 1
            lines.add(Self.level(of: finding.severity), field: finding.field, kind: finding.kind.rawValue, severity: finding.severity.rawValue, reason: finding.message)
        }
        if held.overCap > 0 {
            lines.add(.warning, field: "-", kind: "-", severity: "warning",
                      reason: "and \(held.overCap) more findings of this request, not logged (all are in the audit)")
        }
        lines.flush()
        return held
    }

    /// The keys of a finding's line, checked once (``LogLineKeys``).
    static let findingKeys = LogLineKeys(["request_id", "dialect", "app", "route", "field", "kind", "severity", "reason"])

    /// The keys of the access line, checked once (``LogLineKeys``).
    static let accessKeys = LogLineKeys(["request_id", "method", "path", "status", "duration_ms", "dialect", "app", "outcome", "remote"])

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
        let bare = path.containsUTF8(UInt8(ascii: "?")) ? path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" : path
        // The fields on the stack, not in an array of their own (one allocation per request).
        withUnsafeTemporaryAllocation(of: LogField.self, capacity: 9) { room in
            guard let base = room.baseAddress else { return }
            base.initialize(to: LogField("request_id", .string(requestId)))
            (base + 1).initialize(to: LogField("method", .string(method)))
            (base + 2).initialize(to: LogField("path", .string(bare)))
            (base + 3).initialize(to: LogField("status", .int(Int64(status))))
            (base + 4).initialize(to: LogField("duration_ms", .double((durationMs * 1000).rounded() / 1000)))
            (base + 5).initialize(to: LogField("dialect", .string(dialect?.rawValue ?? "-")))
            (base + 6).initialize(to: LogField("app", .string(app ?? "-")))
            (base + 7).initialize(to: LogField("outcome", .string(outcome)))
            (base + 8).initialize(to: LogField("remote", .string(remote ?? "-")))
            defer { base.deinitialize(count: 9) }
            log(.info, "request", UnsafeBufferPointer(room), keys: Self.accessKeys)
        }
    }
}
