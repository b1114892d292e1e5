extension AuditStore {
    /// Writes a comparison into `shadow_comparisons`; returns once committed. Its request's
    /// `received_at` and `app_name` are read from the log (a probe by request id); the proxy
    /// passes them instead (``record(_:receivedAt:appName:)``).
    public func record(_ c: ShadowComparison) async throws {
        try await record(c, receivedAt: nil, appName: nil)
    }

    /// Writes a comparison into `shadow_comparisons` with its request's `receivedAt` (Unix
    /// ms) and configured `appName`, which the shadow rollup counts it by
    /// (``AuditRollupShadowSchema``: the request's hour and app, as readiness windows and
    /// groups it); nil `receivedAt`: both read from the request's row. Returns once committed.
    public func record(_ c: ShadowComparison, receivedAt: Int64?, appName: String?) async throws {
        try await submit(.statement(.comparison(c, receivedAt: receivedAt, appName: appName, bodyLimit: configuration.bodyLimit,
                                                instance: configuration.instanceName)))
    }
}

extension AuditStatement {
    /// A shadow comparison's row, replacing an earlier one of the same request (the shadow
    /// rollup's trigger takes the earlier one out first). Without `receivedAt`, the request's
    /// time and app name come from its row in the log.
    static func comparison(_ c: ShadowComparison, receivedAt: Int64? = nil, appName: String? = nil, bodyLimit: Int, instance: String) -> AuditStatement {
        func side(_ prefix: String, _ s: ShadowComparison.Side) -> [(column: String, value: SQLiteValue)] {
            [("\(prefix)_provider", .text(s.provider)), ("\(prefix)_status", s.status.map { .integer(Int64($0)) } ?? .null),
             ("\(prefix)_latency_ms", s.latencyMs.map(SQLiteValue.real) ?? .null), ("\(prefix)_error", s.error.map(SQLiteValue.text) ?? .null),
             ("\(prefix)_body", AuditRowEncoding.truncate(s.body, to: bodyLimit).map(SQLiteValue.text) ?? .null)]
        }
        let columns: [(column: String, value: SQLiteValue)] = [
            ("request_id", .text(c.requestId)), ("compared_at", .integer(c.comparedAt)), ("dialect", .text(c.dialect.rawValue)),
            ("route", .text(c.route.rawValue)), ("source_app", .text(c.sourceApp)), ("verdict", .text(c.verdict.rawValue)),
            ("differences", c.reason.map(SQLiteValue.text) ?? .null), ("instance_name", .text(instance)),
        ] + side("primary", c.primary) + side("shadow", c.shadow)
        guard let receivedAt else {
            let names = columns.map(\.column) + ["received_at", "app_name"]
            let marks = columns.map { _ in "?" } + ["(SELECT r.received_at FROM requests r WHERE r.request_id = ?)", "(SELECT r.app_name FROM requests r WHERE r.request_id = ?)"]
            let updates = names.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            return AuditStatement(name: "record shadow comparison",
                                  sql: "INSERT INTO shadow_comparisons (\(names.joined(separator: ", "))) VALUES (\(marks.joined(separator: ", "))) "
                                      + "ON CONFLICT (request_id) DO UPDATE SET \(updates)",
                                  values: columns.map(\.value) + [.text(c.requestId), .text(c.requestId)], requestId: nil)
        }
        return .insertOrReplace("record shadow comparison", table: "shadow_comparisons", key: ["request_id"],
                                columns + [("received_at", .integer(receivedAt)), ("app_name", appName.map(SQLiteValue.text) ?? .null)])
    }
}
