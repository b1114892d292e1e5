import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `pushbridge serve` killed with SIGKILL twenty times under load and restarted each time on
/// the same files: every answer a caller got is in the audit as answered, both SQLite files
/// pass `integrity_check`, rows a kill left open are `unknown` after the restart, and a
/// Pushwoosh start scheduled before the kills (and due during them) reaches OpenPush exactly once.
@Suite(.serialized)
struct CrashSafetyTests {
    static let kills = 20
    static let scheduledActivity = "CRASH_SCHEDULED_1"

    @Test func twentyKillsUnderLoadLoseNoAnswerAndSendTheScheduledStartOnce() async throws {
        // A little latency upstream, so kills find requests in flight.
        let upstream = try RecordingSandbox(beforeAnswering: { _ in try? await Task.sleep(for: .milliseconds(40)) })
        let folder = try TemporaryDirectory("pushbridge-crash", keepIfSet: "KEEP_CRASH_DIR")
        let dir = folder.url
        let audit = dir.appendingPathComponent("audit.sqlite").path
        let scheduler = dir.appendingPathComponent("audit-scheduled.sqlite").path
        let config = try Self.config(audit: audit, upstream: upstream.baseURL).write(to: dir.appendingPathComponent("config.json").path)
        let environment = ProxyHarness.environment
        let suiteStart = ContinuousClock.now

        var serve = try await ServeProcess.start(config: config, environment: environment, logPath: dir.appendingPathComponent("serve-0.log").path)
        defer { kill(serve.process.processIdentifier, SIGKILL) }
        // The scheduled start: at the next whole minute at least 4 s ahead (send_date has minutes only).
        let now = Int64(Date().timeIntervalSince1970)
        let sendAt = ((now + 4 + 59) / 60) * 60
        let scheduling = try await RawHTTPClient.send(port: serve.port, method: "POST", target: "/json/1.3/startLiveActivity",
                                                      headers: [("Content-Type", "application/json")], body: Self.scheduledBody(sendAt: sendAt))
        #expect(scheduling.status == 200 && scheduling.text.contains("sch_"), "\(scheduling.status) \(scheduling.text)")
        let schedulingId = try #require(scheduling.header("x-pushbridge-request-id"))

        let load = CrashLoad()
        load.setPort(serve.port)
        let clients = Task { await load.run(clients: 3, limit: .seconds(110)) }
        // Spread the kills so that the scheduled start comes due while they go on.
        let span = Double(max(sendAt - now + 4, 15))
        let killsStart = ContinuousClock.now
        var pendingAtKills = 0, killedWhilePending = 0
        for k in 1...Self.kills {
            // Kill k at its share of the span, give or take a third of a share, so the kills
            // cover the send time however long each restart takes on a loaded machine.
            let share = span / Double(Self.kills)
            let at = share * (Double(k) + Double.random(in: -0.33...0.33))
            let uptime = max(0.1, at - (ContinuousClock.now - killsStart).seconds)
            try await Task.sleep(for: .seconds(uptime))
            load.setPort(nil)
            try await serve.killHard()
            let pending = try Self.count(audit, "outcome = 'pending'")
            pendingAtKills += pending
            if pending > 0 { killedWhilePending += 1 }
            serve = try await ServeProcess.start(config: config, environment: environment, logPath: dir.appendingPathComponent("serve-\(k).log").path)
            load.setPort(serve.port)
        }
        // Load a little longer on the last process, then wait (bounded) for the scheduled send:
        // 20 s past its send time at the least.
        let untilSendTime = Double(max(0, sendAt - Int64(Date().timeIntervalSince1970)))
        let due = ContinuousClock.now + .seconds(20 + untilSendTime)
        while ContinuousClock.now < due, try Self.scheduledState(scheduler) != "sent" { try await Task.sleep(for: .milliseconds(100)) }
        load.stop()
        await clients.value
        #expect(try await serve.terminate() == 0)
        let elapsed = ContinuousClock.now - suiteStart

        // Every complete answer has a completed row that says the same.
        let answers = load.all
        #expect(answers.count > 20, "only \(answers.count) answers under load")
        let reader = try AuditReader(path: audit)
        var mismatched: [String] = []
        for a in answers {
            let row = try reader.show(requestId: a.requestId)
            if row?.outcome == "pending" || row?.outcome == "unknown" || row?.responseStatus != a.status {
                mismatched.append("\(a.requestId): answered \(a.status), audit \(row?.outcome ?? "none") \(row?.responseStatus ?? -1)")
            }
        }
        #expect(mismatched.isEmpty, "\(mismatched.count) of \(answers.count) answers: \(mismatched.prefix(5))")
        // Integrity, and no row left open; what the kills left open is now unknown.
        #expect(try Self.integrity(audit) == "ok")
        #expect(try Self.integrity(scheduler) == "ok")
        #expect(try Self.count(audit, "outcome = 'pending'") == 0)
        #expect(try Self.count(audit, "outcome = 'unknown'") == pendingAtKills, "pending at the kills: \(pendingAtKills)")
        #expect(killedWhilePending > 0, "no kill found a request in flight")
        // The rollups count what the rows hold: counters a killed writer carried were recounted
        // from its marks at the next start (``AuditRollupMarkSchema``).
        let (rollups, rows) = try RollupRecoveryTests.counts(reader)
        #expect(rollups == rows, "the rollups count \(rollups), the rows hold \(rows)")
        #expect(try Self.count(audit, "1 = 1", table: "rollup_marks") == 0)
        try HourlyRollupTests.expectHoursAreTheirMinutes(reader, "after the kills")

        // The scheduled start: sent, to OpenPush once (any resend with the same key and replayed).
        let diagnosis = try Self.scheduledDiagnosis(scheduler, logs: dir)
        #expect(try Self.scheduledState(scheduler) == "sent", "\(diagnosis)")
        #expect(try reader.show(requestId: schedulingId)?.outcome == "sent")
        let sends = upstream.all.filter { String(decoding: $0.body, as: UTF8.self).contains(Self.scheduledActivity) }
        let keys = Set(sends.map { (try? JSONParser.parse($0.body))?.objectValue?["idempotency_key"]?.stringValue ?? "none" })
        let started = sends.filter { (200..<300).contains($0.response.status) && !$0.response.headers.contains { $0.name.lowercased() == "idempotent-replayed" && $0.value == "true" } }
        #expect(sends.count >= 1 && keys.count == 1 && !keys.contains("none"), "sends \(sends.count), keys \(keys)")
        #expect(started.count == 1, "started \(started.count) times in \(sends.count) sends")
        #expect(upstream.all.allSatisfy { $0.response.status != 429 }, "the sandbox rate-limited the load")
        print("crash safety: \(Self.kills) kills in \(elapsed), \(answers.count) answers, \(pendingAtKills) rows open at kills (\(killedWhilePending) kills), scheduled start sent \(sends.count)×")
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    /// The standard apps (`pw` with the tests' segment map) before `upstream`, pacing wide open.
    static func config(audit: String, upstream: String) -> TestConfiguration {
        TestConfiguration(upstream: upstream).with {
            $0.auditDatabase = audit
            $0.limits = .init(upstreamConnectTimeoutMs: 500, upstreamTimeoutMs: 2000)
            $0.delivery = .init(sendsPerWindow: 100_000, queueLimit: 1000, backoffBaseMs: 50, backoffMaxMs: 100)
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
        }
    }

    static func scheduledBody(sendAt: Int64) -> [UInt8] {
        let date = Date(timeIntervalSince1970: Double(sendAt))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return Array(#"""
        {"request":{"application":"XXXXX-XXXXX","auth":"\#(ProxyHarness.pushwooshAuth)","notifications":[{"content":"c","title":"t",
         "live_activity":{"event":"start","title":"o","content-state":{"status":"s"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},
         "live_activity_id":"\#(scheduledActivity)","filter":"FILTER_NAME_1","send_date":"\#(f.string(from: date))"}]}}
        """#.utf8)
    }

    static func count(_ path: String, _ condition: String, table: String = "requests") throws -> Int {
        let db = try SQLiteDatabase(path: path)
        return Int(try db.rows("SELECT count(*) FROM \(table) WHERE \(condition)").first?.first?.integerValue ?? -1)
    }

    static func integrity(_ path: String) throws -> String? {
        try SQLiteDatabase(path: path).rows("PRAGMA integrity_check").first?.first?.textValue
    }

    /// The scheduled start's row and every scheduler line of every process's log: what a
    /// failure of the "sent once" promise needs to be explained.
    static func scheduledDiagnosis(_ path: String, logs dir: URL) throws -> String {
        let row = try SQLiteDatabase(path: path).rows(
            "SELECT state, send_at, claimed_at, finished_at, upstream_status, error FROM scheduled_starts").first ?? []
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("serve-") }.sorted()) ?? []
        let lines = files.flatMap { name in
            ((try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? "")
                .split(separator: "\n").filter { $0.contains("schedul") && !$0.contains("msg=\"translation finding\"") }.map { "\(name): \($0)" }
        }
        return "row \(row); log:\n" + lines.joined(separator: "\n")
    }

    static func scheduledState(_ path: String) throws -> String? {
        let db = try SQLiteDatabase(path: path)
        return try db.rows("SELECT state FROM scheduled_starts").first?.first?.textValue
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
