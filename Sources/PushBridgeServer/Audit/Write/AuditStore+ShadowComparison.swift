extension AuditStore {
    /// Writes a comparison into `shadow_comparisons`; returns once committed.
    public func record(_ c: ShadowComparison) async throws {
        try await submit(.statement(.comparison(c, bodyLimit: configuration.bodyLimit, instance: configuration.instanceName)))
    }
}

extension AuditStatement {
    /// A shadow comparison's row, replacing an earlier one of the same request.
    static func comparison(_ c: ShadowComparison, bodyLimit: Int, instance: String) -> AuditStatement {
        func side(_ prefix: String, _ s: ShadowComparison.Side) -> [(column: String, value: SQLiteValue)] {
            [("\(prefix)_provider", .text(s.provider)), ("\(prefix)_status", s.status.map { .integer(Int64($0)) } ?? .null),
             ("\(prefix)_latency_ms", s.latencyMs.map(SQLiteValue.real) ?? .null), ("\(prefix)_error", s.error.map(SQLiteValue.text) ?? .null),
             ("\(prefix)_body", AuditRowEncoding.truncate(s.body, to: bodyLimit).map(SQLiteValue.text) ?? .null)]
        }
        return .insertOrReplace("record shadow comparison", table: "shadow_comparisons", key: ["request_id"], [
            ("request_id", .text(c.requestId)), ("compared_at", .integer(c.comparedAt)), ("dialect", .text(c.dialect.rawValue)),
            ("route", .text(c.route.rawValue)), ("source_app", .text(c.sourceApp)), ("verdict", .text(c.verdict.rawValue)),
            ("differences", c.reason.map(SQLiteValue.text) ?? .null), ("instance_name", .text(instance)),
        ] + side("primary", c.primary) + side("shadow", c.shadow))
    }
}
