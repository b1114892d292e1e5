import PushBridgeCore

/// The traffic `report-bench` fills an audit with: three dialects, 20 apps over 30 days,
/// findings drawn from each route's real field names with skewed frequencies, retries, rate
/// limits, rejections and a shadow comparison for every tenth admitted request. Request `i`
/// of `rows` is always the same (no randomness), so two audits of the same size are equal.
///
/// It makes the values the proxy hands the audit (``AuditEntry``, ``AuditCompletion``,
/// ``ShadowComparison``), never SQL rows: ``SyntheticAudit`` writes them through
/// ``AuditStore``, so a column or table the schema gains is filled as the proxy fills it.
enum SyntheticTraffic {
    /// One route of the mix and the findings its requests carry: finding `k` on request `i`
    /// when `(i + 17k)` is a multiple of `every`.
    struct Route {
        var dialect: DialectName
        var route: RouteKind
        var findings: [(field: String, kind: FindingKind, every: Int)]
    }

    /// The mix: OneSignal start/update, Pushwoosh start/update, BuzzKit send.
    static let routes: [Route] = [
        Route(dialect: .onesignal, route: .start, findings: [("ios_interruption_level", .dropped, 3), ("subtitle", .dropped, 5), ("big_picture", .dropped, 40),
              ("include_player_ids", .renamed, 2), ("headings", .synthesized, 4), ("dismissal_date", .dropped, 11), ("custom_data", .dropped, 97)]),
        Route(dialect: .onesignal, route: .update, findings: [("dismissal_date", .converted, 2), ("stale_date", .converted, 6), ("included_segments", .dropped, 13),
              ("priority", .coerced, 29)]),
        Route(dialect: .pushwoosh, route: .start, findings: [("notifications[0].live_activity.title", .dropped, 2), ("notifications[1].live_activity.title", .dropped, 9),
              ("notifications[0].live_activity.attributes", .synthesized, 2), ("notifications[0].send_date", .converted, 7), ("notifications[0].filter", .caveat, 17),
              ("notifications[0].devices", .caveat, 53), ("notifications[0].content", .escaped, 19), ("notifications[0].platforms", .rejected, 211)]),
        Route(dialect: .pushwoosh, route: .update, findings: [("notifications[0].live_activity.title", .dropped, 4), ("notifications[0].ios_sound", .dropped, 31)]),
        Route(dialect: .buzzkit, route: .send, findings: [("dismissalDate", .dropped, 5), ("relevanceScore", .rescaled, 3), ("timestamp", .converted, 2),
              ("alert.sound", .defaulted, 8), ("event", .rejected, 401), ("badge", .dropped, 61)]),
    ]

    /// The first request's time (Unix ms); the others spread over the 30 days after it.
    static let start: Int64 = 1_780_000_000_000
    /// The span the requests cover, milliseconds.
    static let span: Int64 = 30 * 86_400_000

    /// The ~450-byte inbound body every request carries (the report never reads it; it gives
    /// the table its real row size).
    static let body = #"{"event":"update","event_updates":{"stage":"out_for_delivery","etaMinutes":22},"name":"Order 88214","contents":{"en":"Arriving soon"},"padding":""#
        + String(repeating: "x", count: 300) + #""}"#

    /// One request of the mix as the proxy audits it.
    struct Request: Sendable {
        /// What is known before forwarding (its findings included).
        var entry: AuditEntry
        /// How it ended: forwarded (some after a 503 or a 429), or rejected by a finding.
        var completion: AuditCompletion
        /// Its shadow comparison (OpenPush primary, the legacy provider as the shadow), for
        /// every tenth request that was not rejected.
        var comparison: ShadowComparison?
    }

    /// Request `i` of `rows`.
    static func request(_ i: Int, of rows: Int) -> Request {
        let at = start + Int64(i) * span / Int64(max(rows, 1))
        let r = routes[(i * 7 + i / 13) % routes.count]
        let appNumber = (i * i + 3) % 20
        let app = "app-" + (appNumber < 10 ? "0" : "") + String(appNumber)
        let findings = r.findings.enumerated().filter { k, f in (i + k * 17) % f.every == 0 }
            .map { _, f in Finding(field: f.field, kind: f.kind, message: "\(f.field) was \(f.kind.rawValue) (bench)") }
        let rejection = findings.first { $0.kind == .rejected }
        var id: [UInt8] = Array("req_".utf8)
        RequestID.appendHex(UInt64(at), minimumDigits: 12, to: &id)
        RequestID.appendHex(UInt64(i), minimumDigits: 8, to: &id)
        let entry = AuditEntry(requestId: String(decoding: id, as: UTF8.self), receivedAt: at, path: "/p", dialect: r.dialect, route: r.route,
                               sourceApp: app, targetApp: "op-app", event: "update", keyFingerprint: "sha256:0123456789ab", inboundBody: body,
                               translated: #"[{"method":"POST"}]"#, findings: findings)
        let latency = 9.0 + Double(i % 50)
        if let rejection {
            let completion = AuditCompletion(finishedAt: at + 20, outcome: .rejected, responseStatus: 400,
                                             errorMessage: "\(rejection.field): \(rejection.message)")
            return Request(entry: entry, completion: completion, comparison: nil)
        }
        let limited = i % 97 == 0, retried = limited || i % 41 == 0
        let attempts = retried
            ? [UpstreamAttempt(startedAt: at, status: limited ? 429 : 503, latencyMs: 12.5), UpstreamAttempt(startedAt: at + 1012, status: 201, latencyMs: 9.0)]
            : [UpstreamAttempt(startedAt: at, status: 201, latencyMs: 9.0)]
        let completion = AuditCompletion(finishedAt: at + 20, outcome: .forwarded, upstreamStatus: 201, upstreamBody: #"{"id":"n1"}"#,
                                         upstreamLatencyMs: latency, attempts: attempts, responseStatus: 200, responseBody: #"{"id":"n1"}"#)
        guard i % 10 == 0 else { return Request(entry: entry, completion: completion, comparison: nil) }
        let timedOut = i % 170 == 0
        let legacyStatus: Int? = timedOut ? nil : (i % 30 == 0 ? 400 : 201)
        let comparison = ShadowComparison(
            requestId: entry.requestId, comparedAt: at + 30, dialect: r.dialect, route: r.route, sourceApp: app,
            primary: .init(provider: "openpush", status: 201, body: #"{"id":"n1"}"#, latencyMs: latency, error: nil),
            shadow: .init(provider: "legacy", status: legacyStatus, body: legacyStatus == 400 ? #"{"errors":["status differs"]}"# : nil,
                          latencyMs: 14.0 + Double(i % 80), error: timedOut ? "timed out" : nil))
        return Request(entry: entry, completion: completion, comparison: comparison)
    }
}
