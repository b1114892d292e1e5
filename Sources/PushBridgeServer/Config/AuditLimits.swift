import PushBridgeCore

/// How long the audit keeps rows, how many activities its ledger keeps, and when its disk use
/// is worth a warning. Every value has a documented default; `audit_retention_days`,
/// `audit_max_mib` and `audit_min_free_mib` at the top level of the configuration,
/// `max_activities` in `limits`.
public struct AuditLimits: Sendable, Equatable {
    /// Rows received more than this many days ago are deleted by the running proxy, in small
    /// batches (`audit_retention_days`); `0` keeps every row. Default 30.
    public var retentionDays: Int = 30
    /// Past this size (the database file and its WAL) `/healthz` and `/metrics` warn and the
    /// log says so (`audit_max_mib`, MiB). Default 10,240 (10 GiB).
    public var maxBytes: Int64 = 10_240 << 20
    /// Under this much free space on the audit's filesystem `/healthz` and `/metrics` warn and
    /// the log says so (`audit_min_free_mib`, MiB). Default 1,024 (1 GiB).
    public var minFreeBytes: Int64 = 1_024 << 20
    /// Rows the activity ledger keeps at most per source app (`limits.max_activities`): past
    /// it that app's oldest starts are forgotten at the next upkeep pass (every minute) and
    /// the log says so.
    /// Default 1,000,000.
    public var maxActivities = 1_000_000

    /// The defaults.
    public init() {}
}

extension ProxyConfiguration {
    static func decodeAuditLimits(_ top: JSONObject, _ r: ConfigReader) -> AuditLimits {
        var limits = AuditLimits()
        limits.retentionDays = r.nonNegativeInt(top, "audit_retention_days", at: "", default: limits.retentionDays)
        limits.maxBytes = Int64(r.positiveInt(top, "audit_max_mib", at: "", default: Int(limits.maxBytes >> 20))) << 20
        limits.minFreeBytes = Int64(r.nonNegativeInt(top, "audit_min_free_mib", at: "", default: Int(limits.minFreeBytes >> 20))) << 20
        // Read here beside the audit's other bounds; `decodeLimits` admits the key in `limits`.
        if case .object(let server)? = top["limits"] {
            limits.maxActivities = r.positiveInt(server, "max_activities", at: "limits", default: limits.maxActivities)
        }
        return limits
    }
}
