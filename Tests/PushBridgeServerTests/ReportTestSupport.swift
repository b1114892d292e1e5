import Foundation
import PushBridgeCore
@testable import PushBridgeServer

/// An audit with known contents for the report tests (T0 = 2026-06-10T00:00:00Z):
/// - r1 onesignal/start app-a T0: dropped subtitle, renamed include_player_ids; 429 then 201 (1 s wait)
/// - r2 onesignal/start app-b T0+1m: dropped subtitle, caveat include_aliases; 201
/// - r3 onesignal/update app-a T0+2m: no findings; 503 then 500
/// - r4 pushwoosh/start app-p T0+3m: dropped notifications[0|1].live_activity.title, rejected platforms; rejected
/// - r5 pushwoosh/start app-p T0+4m: dropped notifications[1].live_activity.title, converted send_date; translated
/// plus four shadow comparisons and two scheduled sends.
enum KnownAudit {
    static let t0: Int64 = 1_781_049_600_000

    static func build(_ path: String, shadow: Bool = true) async throws {
        let store = try AuditStore(path: path)
        func entry(_ id: String, _ at: Int64, _ dialect: DialectName, _ route: RouteKind, _ app: String, _ findings: [(String, FindingKind)]) -> AuditEntry {
            AuditEntry(requestId: id, receivedAt: t0 + at, path: "/p", dialect: dialect, route: route, sourceApp: app,
                       findings: findings.map { Finding(field: $0.0, kind: $0.1, message: "\($0.0) \($0.1.rawValue)") })
        }
        func forwarded(_ at: Int64, _ attempts: [UpstreamAttempt]) -> AuditCompletion {
            AuditCompletion(finishedAt: t0 + at + 2000, outcome: .forwarded, upstreamStatus: attempts.last?.status, upstreamLatencyMs: 15,
                            attempts: attempts, responseStatus: 200)
        }
        try await store.record(entry("r1", 0, .onesignal, .start, "app-a", [("subtitle", .dropped), ("include_player_ids", .renamed)]),
                               forwarded(0, [UpstreamAttempt(startedAt: t0, status: 429, latencyMs: 10), UpstreamAttempt(startedAt: t0 + 1010, status: 201, latencyMs: 5)]))
        try await store.record(entry("r2", 60_000, .onesignal, .start, "app-b", [("subtitle", .dropped), ("include_aliases", .caveat)]),
                               forwarded(60_000, [UpstreamAttempt(startedAt: t0 + 60_000, status: 201, latencyMs: 8)]))
        try await store.record(entry("r3", 120_000, .onesignal, .update, "app-a", []),
                               forwarded(120_000, [UpstreamAttempt(startedAt: t0 + 120_000, status: 503, latencyMs: 4), UpstreamAttempt(startedAt: t0 + 120_500, status: 500, latencyMs: 4)]))
        try await store.record(entry("r4", 180_000, .pushwoosh, .start, "app-p", [("notifications[0].live_activity.title", .dropped),
                                     ("notifications[1].live_activity.title", .dropped), ("notifications[0].platforms", .rejected)]),
                               AuditCompletion(finishedAt: t0 + 180_001, outcome: .rejected, responseStatus: 400, errorMessage: "rejected"))
        try await store.record(entry("r5", 240_000, .pushwoosh, .start, "app-p", [("notifications[1].live_activity.title", .dropped),
                                     ("notifications[0].send_date", .converted)]),
                               AuditCompletion(finishedAt: t0 + 240_001, outcome: .translated))
        await store.close()
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA busy_timeout = 5000")
        if shadow {
            let rows: [[SQLiteValue]] = [
                ["r1", .integer(t0 + 1), "onesignal", "start", "app-a", "both_accepted", 201, 10.0, 201, 20.0, .null, .null],
                ["r2", .integer(t0 + 2), "onesignal", "start", "app-b", "only_primary_accepted", 201, 30.0, 400, 40.0, .null, "shadow 400: bad"],
                ["r3", .integer(t0 + 3), "onesignal", "update", "app-a", "both_rejected", 500, 50.0, 500, 60.0, .null, .null],
                ["r5", .integer(t0 + 4), "pushwoosh", "start", "app-p", "only_primary_accepted", 201, 70.0, .null, .null, "timed out", .null],
            ]
            for row in rows {
                try db.execute("""
                    INSERT INTO shadow_comparisons (request_id, compared_at, dialect, route, source_app, verdict, primary_provider, primary_status,
                        primary_latency_ms, shadow_provider, shadow_status, shadow_latency_ms, shadow_error, differences)
                    VALUES (?, ?, ?, ?, ?, ?, 'openpush', ?, ?, 'onesignal', ?, ?, ?, ?)
                    """, row)
            }
        }
        for (ordinal, state) in ["pending", "sent"].enumerated() {
            try db.execute("INSERT INTO scheduled_sends (request_id, ordinal, send_at, state, request, created_at) VALUES ('r5', ?, ?, ?, '{}', ?)",
                           [.integer(Int64(ordinal)), .integer(t0 + 900_000), .text(state), .integer(t0 + 240_000)])
        }
    }
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
}

/// Parses RFC 4180 CSV (quoted fields, doubled quotes, `\n` line ends).
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
    var iterator = Array(text).makeIterator()
    var pending: Character? = nil
    while let c = pending ?? iterator.next() {
        pending = nil
        if quoted {
            if c == "\"" {
                if let next = iterator.next() {
                    if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" { quoted = true }
        else if c == "," { row.append(field); field = "" }
        else if c == "\n" { row.append(field); rows.append(row); row = []; field = "" }
        else { field.append(c) }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}
