import Foundation
import PushBridgeCore
import PushBridgeServer

/// Fills an audit with `rows` translations over 30 days: three dialects, 20 apps, findings
/// drawn from each route's real field names with skewed frequencies.
enum ReportBenchAudit {
    struct Route { var dialect: String; var route: String; var findings: [(field: String, kind: String, every: Int)] }

    static let routes: [Route] = [
        Route(dialect: "onesignal", route: "start", findings: [("ios_interruption_level", "dropped", 3), ("subtitle", "dropped", 5), ("big_picture", "dropped", 40),
              ("include_player_ids", "renamed", 2), ("headings", "synthesized", 4), ("dismissal_date", "dropped", 11), ("custom_data", "dropped", 97)]),
        Route(dialect: "onesignal", route: "update", findings: [("dismissal_date", "converted", 2), ("stale_date", "converted", 6), ("included_segments", "dropped", 13),
              ("priority", "coerced", 29)]),
        Route(dialect: "pushwoosh", route: "start", findings: [("notifications[0].live_activity.title", "dropped", 2), ("notifications[1].live_activity.title", "dropped", 9),
              ("notifications[0].live_activity.attributes", "synthesized", 2), ("notifications[0].send_date", "converted", 7), ("notifications[0].filter", "caveat", 17),
              ("notifications[0].devices", "caveat", 53), ("notifications[0].content", "escaped", 19), ("notifications[0].platforms", "rejected", 211)]),
        Route(dialect: "pushwoosh", route: "update", findings: [("notifications[0].live_activity.title", "dropped", 4), ("notifications[0].ios_sound", "dropped", 31)]),
        Route(dialect: "buzzkit", route: "send", findings: [("dismissalDate", "dropped", 5), ("relevanceScore", "rescaled", 3), ("timestamp", "converted", 2),
              ("alert.sound", "defaulted", 8), ("event", "rejected", 401), ("badge", "dropped", 61)]),
    ]

    static func build(path: String, rows: Int) throws {
        let store = try AuditStore(path: path)  // creates and migrates
        let semaphore = DispatchSemaphore(value: 0)
        Task { await store.close(); semaphore.signal() }
        semaphore.wait()
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA synchronous = OFF")
        let start: Int64 = 1_780_000_000_000, span: Int64 = 30 * 86_400_000
        let body = #"{"event":"update","event_updates":{"stage":"out_for_delivery","etaMinutes":22},"name":"Order 88214","contents":{"en":"Arriving soon"},"padding":""# + String(repeating: "x", count: 300) + #""}"#
        try db.transaction {
            let request = try db.prepare("""
                INSERT INTO requests (request_id, received_at, finished_at, path, dialect, route, source_app, target_app, event, inbound_body, translated,
                    finding_count, upstream_status, upstream_latency_ms, attempts, response_status, outcome, error_message)
                VALUES (?, ?, ?, '/p', ?, ?, ?, 'op-app', 'update', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let finding = try db.prepare("INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            let shadow = try db.prepare("""
                INSERT INTO shadow_comparisons VALUES (?, ?, ?, ?, ?, ?, 'openpush', ?, ?, NULL, 'legacy', ?, ?, ?, ?, NULL, NULL)
                """)
            for i in 0..<rows {
                let at = start + Int64(i) * span / Int64(rows)
                let id = RequestID.make(nowMs: at) + String(i % 10)
                let r = routes[(i * 7 + i / 13) % routes.count]
                let app = "app-" + String(format: "%02d", (i * i + 3) % 20)
                var findings: [(String, String)] = []
                for (k, f) in r.findings.enumerated() where (i + k * 17) % f.every == 0 { findings.append((f.field, f.kind)) }
                let rejected = findings.contains { $0.1 == "rejected" }
                let limited = i % 97 == 0, retried = limited || i % 41 == 0
                let attempts = rejected ? nil : retried
                    ? "[{\"at\":\(at),\"status\":\(limited ? 429 : 503),\"latency_ms\":12.5},{\"at\":\(at + 1012),\"status\":201,\"latency_ms\":9.0}]"
                    : "[{\"at\":\(at),\"status\":201,\"latency_ms\":9.0}]"
                try request.bind([.text(id), .integer(at), .integer(at + 20), .text(r.dialect), .text(r.route), .text(app), .text(body),
                                  rejected ? .null : .text("[{\"method\":\"POST\"}]"), .integer(Int64(findings.count)),
                                  rejected ? .null : .integer(201), rejected ? .null : .real(9.0 + Double(i % 50)), attempts.map { .text($0) } ?? .null,
                                  .integer(rejected ? 400 : 200), .text(rejected ? "rejected" : "forwarded"), rejected ? .text("rejected") : .null])
                try request.run()
                try request.reset()
                for (ordinal, f) in findings.enumerated() {
                    try finding.bind([.text(id), .integer(Int64(ordinal)), .text(r.dialect), .text(r.route), .text(app), .integer(at), .text(f.0), .text(f.1),
                                      .text(FindingKind(rawValue: f.1)?.defaultSeverity.rawValue ?? "warning"), .text("\(f.0) was \(f.1) (bench)")])
                    try finding.run()
                    try finding.reset()
                }
                if i % 10 == 0 && !rejected {
                    let shadowStatus: Int64? = i % 170 == 0 ? nil : (i % 30 == 0 ? 400 : 201)
                    let verdict = shadowStatus == 201 ? "both_accepted" : "only_primary_accepted"
                    try shadow.bind([.text(id), .integer(at + 30), .text(r.dialect), .text(r.route), .text(app), .text(verdict), .integer(201),
                                     .real(9.0 + Double(i % 50)), shadowStatus.map { .integer($0) } ?? .null, .real(14.0 + Double(i % 80)),
                                     shadowStatus == nil ? .text("timed out") : .null, verdict == "both_accepted" ? .null : .text("status differs")])
                    try shadow.run()
                    try shadow.reset()
                }
            }
        }
    }
}
