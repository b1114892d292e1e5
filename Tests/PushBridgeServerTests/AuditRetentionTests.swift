import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// The running proxy deletes audit rows past `audit_retention_days` in the background (on a
/// clock the test moves), keeps the rows inside the window, and warns on `/healthz`,
/// `/metrics` and in the log when the audit grows past its ceiling or its disk under its floor.
@Suite(.serialized)
struct AuditRetentionTests {
    static let day: Int64 = 86_400_000

    @Test func rowsPastTheWindowGoWhileTheProxyServesAndRowsInsideStay() async throws {
        let now = AuditClock.nowMilliseconds()
        let folder = try TemporaryDirectory("pushbridge-retention")
        let directory = folder.url
        let auditPath = directory.appendingPathComponent("audit.sqlite").path
        // 450 rows 40 days old (more than two retention batches), 120 rows 10 days old, and one
        // 40-day-old row whose scheduled start is not sent yet; each row has a shadow comparison
        // and a scheduled send.
        let old = (0..<450).map { "old-\($0)" }, recent = (0..<120).map { "recent-\($0)" }
        try await Self.seed(auditPath, ids: old, receivedAt: now - 40 * Self.day)
        try await Self.seed(auditPath, ids: recent, receivedAt: now - 10 * Self.day)
        try await Self.seed(auditPath, ids: ["old-scheduled"], receivedAt: now - 40 * Self.day)
        try SQLiteDatabase(path: auditPath).execute("UPDATE requests SET outcome = 'scheduled' WHERE request_id = 'old-scheduled'")

        let clock = ManualDeliveryClock(startMilliseconds: now)
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.auditRetentionDays = 30 }, folder: folder, auditClock: clock)
        let start = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
        // Requests go through while the first pass (run at start) deletes the old rows.
        async let during = proxy.send(path: start, body: Self.startBody("during"))
        let reader = try AuditReader(path: auditPath)
        let oldGone = try await Self.waitUntil { try Self.count(reader, "SELECT count(*) FROM requests WHERE request_id LIKE 'old-%'") == 1 }
        let duringStatus = try await during.status
        let afterFirst = try await proxy.send(path: start, body: Self.startBody("after"))

        #expect(oldGone, "rows 40 days old must go on the first pass")
        #expect(duringStatus == 201 && afterFirst.status == 201, "the proxy keeps serving: \(duringStatus) \(afterFirst.status)")
        #expect(try Self.count(reader, "SELECT count(*) FROM requests WHERE request_id LIKE 'recent-%'") == 120, "rows inside the window stay")
        #expect(try Self.count(reader, "SELECT count(*) FROM requests WHERE request_id = 'old-scheduled'") == 1, "a row still scheduled stays")
        #expect(try Self.count(reader, "SELECT count(*) FROM findings WHERE request_id LIKE 'old-%'") == 2)
        #expect(try Self.count(reader, "SELECT count(*) FROM shadow_comparisons WHERE request_id LIKE 'old-%'") == 1)
        #expect(try Self.count(reader, "SELECT count(*) FROM scheduled_sends WHERE request_id LIKE 'old-%'") == 1)
        #expect(try Self.count(reader, "SELECT count(*) FROM findings WHERE request_id LIKE 'recent-%'") == 240)

        // 25 days later the 10-day-old rows are 35 days old; the proxy's own rows are 25.
        clock.advance(byMilliseconds: 25 * Self.day)
        let recentGone = try await Self.waitUntil { try Self.count(reader, "SELECT count(*) FROM requests WHERE request_id LIKE 'recent-%'") == 0 }
        let live = try Self.count(reader, "SELECT count(*) FROM requests WHERE request_id NOT LIKE 'old-%' AND request_id NOT LIKE 'recent-%'")
        let afterSecond = try await proxy.send(path: start, body: Self.startBody("later"))
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        await proxy.stop()

        #expect(recentGone, "rows past the window after the clock moved must go")
        #expect(live == 2, "the proxy's own rows are inside the window")
        #expect(afterSecond.status == 201)
        #expect(metrics.contains("pushbridge_audit_pruned_rows_total 570"), "\(metrics.split(separator: "\n").filter { $0.contains("pruned") })")
    }

    @Test func pastTheCeilingOrUnderTheFloorHealthzMetricsAndTheLogWarnAndPruneStillWorks() async throws {
        let folder = try TemporaryDirectory("pushbridge-guard")
        let directory = folder.url
        let auditPath = directory.appendingPathComponent("audit.sqlite").path
        // About 2 MiB of rows, a day old, against a 1 MiB ceiling and a floor no disk can meet.
        try await Self.seed(auditPath, ids: (0..<700).map { "big-\($0)" }, receivedAt: AuditClock.nowMilliseconds() - Self.day, bodyBytes: 3000)
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.auditMaxMiB = 1
            $0.auditMinFreeMiB = 2_147_483_647
        }, folder: folder)
        let health = try JSONParser.parse(try await proxy.get("/healthz").body).objectValue
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        let logged = try await Self.waitUntil { proxy.log.lines.contains { $0.contains("level=warning") && $0.contains("audit disk:") } }

        let prune = try await CLIRunner.runAsync(["audit", "prune", "--older-than-days", "0", "--db", auditPath])
        let afterPrune = try JSONParser.parse(try await proxy.get("/healthz").body).objectValue
        await proxy.stop()

        #expect(health?["status"] == .string("warning"))
        let warnings = health?["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(warnings.count == 2 && warnings[0].contains("past audit_max_mib (1)") && warnings[1].contains("under audit_min_free_mib"), "\(warnings)")
        #expect((health?["audit_used_bytes"]?.numberValue?.int64Value ?? 0) > 1 << 20)
        // Whole sample lines: the gauge's HELP text itself reads "pushbridge_audit_disk_warning 1 when …".
        let sample = { (name: String) in metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map(String.init) }
        #expect(sample("pushbridge_audit_disk_warning") == "pushbridge_audit_disk_warning 1")
        #expect(sample("pushbridge_audit_max_bytes") == "pushbridge_audit_max_bytes 1048576")
        #expect(metrics.contains("pushbridge_audit_free_bytes "))
        #expect(logged, "the periodic check logs the warning")
        #expect(prune.status == 0 && prune.stdout.contains("pruned 700 requests"), "\(prune.stdout) \(prune.stderr)")
        let remaining = afterPrune?["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(remaining.count == 1 && remaining[0].contains("under audit_min_free_mib"), "the ceiling warning clears once pruned: \(remaining)")
    }

    @Test func withinItsLimitsTheAuditIsReportedButNotWarnedAbout() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.auditMinFreeMiB = 0 })
        let health = try JSONParser.parse(try await proxy.get("/healthz").body).objectValue
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        await proxy.stop()
        #expect(health?["status"] == .string("ok"))
        #expect(health?["warnings"] == nil)
        #expect((health?["audit_free_bytes"]?.numberValue?.int64Value ?? 0) > 0)
        #expect(metrics.split(separator: "\n").contains("pushbridge_audit_disk_warning 0"))
        #expect(!proxy.log.lines.contains { $0.contains("audit disk:") })
    }

    /// Writes complete rows (with two findings each) through an ``AuditStore``, then a shadow
    /// comparison and a scheduled send for each, straight into the file.
    static func seed(_ path: String, ids: [String], receivedAt: Int64, bodyBytes: Int = 0) async throws {
        let store = try AuditStore(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask {
                    var entry = sampleEntry(id, receivedAt: receivedAt, findings: 2)
                    if bodyBytes > 0 { entry.inboundBody = String(repeating: "b", count: bodyBytes) }
                    try await store.record(entry, sampleCompletion(finishedAt: receivedAt + 5))
                }
            }
            try await group.waitForAll()
        }
        await store.close()
        let database = try SQLiteDatabase(path: path)
        try database.execute("BEGIN")
        for id in ids {
            try database.execute("INSERT INTO shadow_comparisons (request_id, compared_at, verdict, primary_provider, shadow_provider) VALUES (?, ?, 'same', 'openpush', 'legacy')",
                                 [.text(id), .integer(receivedAt)])
            try database.execute("INSERT INTO scheduled_sends (request_id, ordinal, send_at, state, request, created_at) VALUES (?, 0, ?, 'sent', '{}', ?)",
                                 [.text(id), .integer(receivedAt), .integer(receivedAt)])
        }
        try database.execute("COMMIT")
    }

    /// A OneSignal start of activity `id`.
    static func startBody(_ id: String) -> [UInt8] {
        Array(#"{"event":"start","activity_id":"\#(id)","name":"n","event_attributes":{"orderNumber":"1"},"event_updates":{"stage":"s"},"headings":{"en":"h"},"contents":{"en":"c"},"included_segments":["seg_01hq8n4t2v"]}"#.utf8)
    }

    static func count(_ reader: AuditReader, _ sql: String) throws -> Int64 {
        try reader.query(sql).first?.first?.integerValue ?? -1
    }

    /// Polls `condition` until it holds or 15 s pass.
    static func waitUntil(_ condition: () throws -> Bool) async throws -> Bool {
        try await firstValue(within: 15) { try condition() ? true : nil } ?? false
    }
}
