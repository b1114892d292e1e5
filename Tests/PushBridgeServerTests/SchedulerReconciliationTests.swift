import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Start-up reconciliation: a proxy that died between a commit in the scheduler's file and the
/// audit's leaves files that disagree. Each test builds exactly that state on real files (a
/// real proxy schedules, and where it matters really sends, then the audit or the scheduler
/// file is put back to what the crash leaves), starts a new proxy on them, and checks what a
/// user sees: the audit row completed as the scheduler recorded it, and nothing sent again.
@Suite(.serialized) struct SchedulerReconciliationTests {
    /// A proxy with one Pushwoosh start scheduled two days ahead.
    struct Scheduled {
        let proxy: ProxyHarness
        let clock: ManualDeliveryClock
        let requestId: String
        let sendAt: Int64
        var schedulerPath: String { proxy.directory.appendingPathComponent("audit-scheduled.sqlite").path }
        /// The audit row's columns as the scheduling wrote them (`scheduled`).
        let scheduledRow: [SQLiteValue]
    }

    static let rowColumns = "outcome, finished_at, upstream_status, upstream_body, upstream_latency_ms, attempts, error_message"

    static func schedule(upstream: RecordingSandbox) async throws -> Scheduled {
        let (_, sendAt, clock) = ProxySchedulerLiveTests.twoDaysAhead()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clock)
        let reply = try await proxy.send(path: ProxySchedulerLiveTests.path, body: ProxySchedulerLiveTests.body(sendAt: sendAt))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let requestId = try #require(reply.headers["x-pushbridge-request-id"])
        let row = try #require(try SQLiteDatabase(path: proxy.auditPath).rows("SELECT \(rowColumns) FROM requests WHERE request_id = ?", [.text(requestId)]).first)
        #expect(row.first == .text("scheduled"))
        return Scheduled(proxy: proxy, clock: clock, requestId: requestId, sendAt: sendAt, scheduledRow: row)
    }

    /// Lets the first proxy send the start at its time, for real, and stops it.
    static func sendAndStop(_ s: Scheduled, upstream: RecordingSandbox) async throws {
        s.clock.set(s.sendAt * 1000 + 1000)
        s.proxy.runtime.scheduler.wake()
        #expect(await eventually(10) { (try? AuditReader(path: s.proxy.auditPath).show(requestId: s.requestId)?.outcome) == "sent" })
        #expect(upstream.all.count == 1)
        await s.proxy.stop()
    }

    /// Puts the audit back to what it held before the send: the row `scheduled`, and the mirror
    /// `sending` (a crash right after the scheduler's `finish`) or `sent` with its attempts (a
    /// crash after the mirror's update, before the row's completion).
    static func rewindAudit(_ s: Scheduled, mirrorUpdated: Bool) throws {
        let audit = try SQLiteDatabase(path: s.proxy.auditPath)
        let v = s.scheduledRow
        try audit.execute("""
            UPDATE requests SET outcome = ?, finished_at = ?, upstream_status = ?, upstream_body = ?, upstream_latency_ms = ?, attempts = ?, error_message = ?
            WHERE request_id = ?
            """, v + [.text(s.requestId)])
        if !mirrorUpdated {
            try audit.execute("UPDATE scheduled_sends SET state = 'sending', sent_at = NULL, upstream_status = NULL, attempts = NULL WHERE request_id = ?", [.text(s.requestId)])
        }
    }

    static func restart(_ s: Scheduled, upstream: RecordingSandbox) throws -> ProxyHarness {
        try ProxyHarness(.inProcess, upstream: upstream.baseURL, folder: s.proxy.folder, clock: ManualDeliveryClock(startMilliseconds: s.sendAt * 1000 + 120_000))
    }

    static func mirror(_ auditPath: String, _ requestId: String) throws -> [SQLiteValue] {
        try SQLiteDatabase(path: auditPath).rows("SELECT state, upstream_status, attempts, error_message FROM scheduled_sends WHERE request_id = ?", [.text(requestId)]).first ?? []
    }

    @Test(arguments: [false, true])
    func aStartSentBeforeTheAuditCaughtUpIsCompletedAtRestartAndNotSentAgain(mirrorUpdated: Bool) async throws {
        let upstream = try RecordingSandbox()
        let s = try await Self.schedule(upstream: upstream)
        try await Self.sendAndStop(s, upstream: upstream)
        let sentRow = try #require(try AuditReader(path: s.proxy.auditPath).show(requestId: s.requestId))
        try Self.rewindAudit(s, mirrorUpdated: mirrorUpdated)
        #expect(try AuditReader(path: s.proxy.auditPath).show(requestId: s.requestId)?.outcome == "scheduled")

        let second = try Self.restart(s, upstream: upstream)
        #expect(await eventually(10) { (try? AuditReader(path: second.auditPath).show(requestId: s.requestId)?.outcome) == "sent" })
        let stored = try #require(try await second.runtime.scheduler.store.starts(ofRequest: s.requestId).first)
        #expect(stored.state == .sent)
        let notificationId = try #require(stored.notificationId)
        let row = try #require(try AuditReader(path: second.auditPath).show(requestId: s.requestId))
        #expect(row.upstreamStatus == 201 && row.finishedAt == stored.finishedAt)
        #expect(row.upstreamBody.flatMap { try? JSONParser.parse(Array($0.utf8)) }?.objectValue?["notification_id"]?.stringValue == notificationId)
        #expect(row.errorMessage == nil && row.responseStatus == sentRow.responseStatus && row.responseBody == sentRow.responseBody)
        // The attempts are there as far as the audit had recorded them before the crash.
        #expect(mirrorUpdated ? row.attempts == sentRow.attempts : row.attempts == nil, "\(row.attempts ?? "nil")")
        let mirror = try Self.mirror(second.auditPath, s.requestId)
        #expect(mirror.first == .text("sent") && mirror.dropFirst().first == .integer(201))
        // One line for the row, one with the count (written once the commit is acknowledged,
        // which may be after a reader sees it); neither holds a device id.
        _ = await eventually(10) { second.log.output.contains("count=1") }
        let lines = second.log.lines.filter { $0.contains("from the scheduler's record") || $0.contains("reconciled with the scheduler") }
        #expect(lines.count == 2 && lines.contains { $0.contains(s.requestId) && $0.contains("outcome=sent") && $0.contains(notificationId) }
                && lines.contains { $0.contains("count=1") }, "\(second.log.output)")
        #expect(!second.log.output.contains("sub_ios_alice") && !(row.upstreamBody ?? "").contains("sub_ios_alice"))
        // Never sent again, now or later.
        second.runtime.scheduler.wake()
        #expect(await second.schedulerSettled(), "the scheduler did not sleep again after its pass")
        #expect(upstream.all.count == 1)
        await second.stop()

        // A third start on the same files finds nothing to reconcile.
        let third = try Self.restart(s, upstream: upstream)
        #expect(await third.schedulerSettled(), "the third start's scheduler never finished its first pass")
        #expect(!third.log.output.contains("reconciled"), "\(third.log.output)")
        await third.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    @Test func aStartCancelledWithoutTheAuditIsRejectedAtRestartAndNeverSent() async throws {
        let upstream = try RecordingSandbox()
        let s = try await Self.schedule(upstream: upstream)
        await s.proxy.stop()
        let id = ScheduledStart.makeId(requestId: s.requestId, ordinal: 0)
        let cancelled = try await CLIRunner.runAsync(["scheduled", "cancel", id, "--db", s.schedulerPath])
        #expect(cancelled.status == 0, "\(cancelled.stdout)\(cancelled.stderr)")
        #expect(try AuditReader(path: s.proxy.auditPath).show(requestId: s.requestId)?.outcome == "scheduled")

        let second = try Self.restart(s, upstream: upstream)
        #expect(await eventually(10) { (try? AuditReader(path: second.auditPath).show(requestId: s.requestId)?.outcome) == "rejected" })
        let row = try #require(try AuditReader(path: second.auditPath).show(requestId: s.requestId))
        #expect(row.errorMessage == "cancelled before its send time" && row.upstreamStatus == nil && row.responseStatus == 200)
        #expect(try Self.mirror(second.auditPath, s.requestId).first == .text("cancelled"))
        // The row is readable one fsync before the writer acknowledges it; the line follows the acknowledgement.
        #expect(await eventually(10) { second.log.lines.contains { $0.contains(s.requestId) && $0.contains("outcome=rejected") } }, "\(second.log.output)")
        second.runtime.scheduler.wake()
        #expect(await second.schedulerSettled(), "the scheduler did not sleep again after its pass")
        #expect(upstream.all.isEmpty)
        await second.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    @Test func aScheduledRowWhoseStartWasNeverStoredIsRejectedAtRestart() async throws {
        let upstream = try RecordingSandbox()
        let s = try await Self.schedule(upstream: upstream)
        let other = try await s.proxy.send(path: ProxySchedulerLiveTests.path, body: ProxySchedulerLiveTests.body(sendAt: s.sendAt + 3600))
        let kept = try #require(other.headers["x-pushbridge-request-id"])
        await s.proxy.stop()
        // The crash between the audit's commit and the scheduler file's insert: no start.
        try SQLiteDatabase(path: s.schedulerPath).execute("DELETE FROM scheduled_starts WHERE request_id = ?", [.text(s.requestId)])

        let second = try Self.restart(s, upstream: upstream)
        #expect(await eventually(10) { (try? AuditReader(path: second.auditPath).show(requestId: s.requestId)?.outcome) == "rejected" })
        let row = try #require(try AuditReader(path: second.auditPath).show(requestId: s.requestId))
        #expect(row.errorMessage?.contains("never stored") == true && row.errorMessage?.contains("nothing was sent") == true, "\(row.errorMessage ?? "nil")")
        let mirror = try Self.mirror(second.auditPath, s.requestId)
        #expect(mirror.first == .text("failed"))
        #expect(await eventually(10) { second.log.lines.contains { $0.contains(s.requestId) && $0.contains("outcome=rejected") } && second.log.output.contains("count=1") },
                "\(second.log.output)")
        #expect(try AuditReader(path: second.auditPath).show(requestId: kept)?.outcome == "scheduled")
        // A request scheduled on the running proxy is not taken for a lost one.
        let reply = try await second.send(path: ProxySchedulerLiveTests.path, body: ProxySchedulerLiveTests.body(sendAt: s.sendAt + 86_400))
        let fresh = try #require(reply.headers["x-pushbridge-request-id"])
        #expect(await second.runtime.scheduler.reconcileAudit() == 0)
        #expect(try AuditReader(path: second.auditPath).show(requestId: fresh)?.outcome == "scheduled")
        #expect(upstream.all.isEmpty)
        await second.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    @Test func anEmptySchedulerFileIsTakenForANewFileAndItsScheduledRowsAreLeftAlone() async throws {
        let upstream = try RecordingSandbox()
        let s = try await Self.schedule(upstream: upstream)
        await s.proxy.stop()
        // As when delivery.scheduler_db now names a new file: the start is not in it.
        try SQLiteDatabase(path: s.schedulerPath).execute("DELETE FROM scheduled_starts", [])

        let second = try Self.restart(s, upstream: upstream)
        #expect(await eventually(5) { second.log.output.contains("holds no start") }, "\(second.log.output)")
        #expect(try AuditReader(path: second.auditPath).show(requestId: s.requestId)?.outcome == "scheduled")
        #expect(try Self.mirror(second.auditPath, s.requestId).first == .text("pending"))
        await second.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    @Test func aStartLeftSendingIsSentAgainWithItsKeyAndStartsOnce() async throws {
        let upstream = try RecordingSandbox()
        let s = try await Self.schedule(upstream: upstream)
        let pending = try #require(try SQLiteDatabase(path: s.schedulerPath).rows("SELECT body FROM scheduled_starts WHERE request_id = ?", [.text(s.requestId)]).first?.first)
        try await Self.sendAndStop(s, upstream: upstream)
        let firstId = try #require(try await ScheduledStartStore(path: s.schedulerPath, recover: false).starts(ofRequest: s.requestId).first?.notificationId)
        // The crash after OpenPush started it and before `finish` committed: the scheduler file
        // still says `sending` with its body; the audit row `scheduled`, its mirror `sending`.
        try SQLiteDatabase(path: s.schedulerPath).execute("""
            UPDATE scheduled_starts SET state = 'sending', body = ?, notification_id = NULL, upstream_status = NULL, error = NULL, finished_at = NULL
            WHERE request_id = ?
            """, [pending, .text(s.requestId)])
        try Self.rewindAudit(s, mirrorUpdated: false)

        let second = try Self.restart(s, upstream: upstream)
        #expect(await eventually(10) { (try? AuditReader(path: second.auditPath).show(requestId: s.requestId)?.outcome) == "sent" })
        #expect(upstream.all.count == 2)
        let keys = Set(upstream.all.map { (try? JSONParser.parse($0.body))?.objectValue?["idempotency_key"]?.stringValue ?? "none" })
        #expect(keys == [IdempotencyKeys.derive(requestId: s.requestId, index: 0)])
        let replayed = upstream.all.last?.response.headers.contains { $0.name.lowercased() == "idempotent-replayed" && $0.value == "true" } ?? false
        #expect(replayed, "the resend started the activity a second time")
        let stored = try #require(try await second.runtime.scheduler.store.starts(ofRequest: s.requestId).first)
        #expect(stored.state == .sent && stored.notificationId == firstId && stored.request == nil)
        #expect(try Self.mirror(second.auditPath, s.requestId).first == .text("sent"))
        await second.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    /// A Pushwoosh request with two starts to one subscription, at `first` and `second` (Unix s).
    static func twoStarts(first: Int64, second: Int64) -> [UInt8] {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        func notification(_ at: Int64, _ id: String) -> String {
            """
            {"content": "Your order is being prepared", "title": "Food Delivery",
             "live_activity": {"event": "start", "title": "Order status", "content-state": {"status": "Third"},
                               "attributes-type": "FoodDeliveryAttributes", "attributes": {}},
             "live_activity_id": "\(id)", "devices": ["sub_ios_alice"],
             "send_date": "\(f.string(from: Date(timeIntervalSince1970: TimeInterval(at))))", "timezone": "UTC"}
            """
        }
        return Array("""
            {"request": {"application": "XXXXX-XXXXX", "auth": "\(ProxyHarness.pushwooshAuth)",
             "notifications": [\(notification(first, "SCHEDULED_FIRST")), \(notification(second, "SCHEDULED_SECOND"))]}}
            """.utf8)
    }

    @Test func cancellingTheLastOpenStartWithTheAuditCompletesTheRowAsTheOthersWent() async throws {
        let upstream = try RecordingSandbox()
        let now = Int64(Date().timeIntervalSince1970)
        let first = (now / 60 + 2 * 24 * 60) * 60, second = first + 86_400
        let clock = ManualDeliveryClock(startMilliseconds: now * 1000)
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clock)
        let reply = try await proxy.send(path: ProxySchedulerLiveTests.path, body: Self.twoStarts(first: first, second: second))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let requestId = try #require(reply.headers["x-pushbridge-request-id"])
        #expect(try await proxy.runtime.scheduler.store.starts(ofRequest: requestId).count == 2)
        // The first start goes at its time; the row waits for the second.
        clock.set(first * 1000 + 1000)
        proxy.runtime.scheduler.wake()
        #expect(await firstValue(within: 10) { (try? await proxy.runtime.scheduler.store.starts(ofRequest: requestId).first?.state) == .sent ? true : nil } == true)
        #expect(await clock.settled(), "the scheduler did not sleep again after the first send")
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: requestId)?.outcome == "scheduled")
        // The second is cancelled with the CLI while the proxy runs, the audit named.
        let schedulerPath = proxy.directory.appendingPathComponent("audit-scheduled.sqlite").path
        let cancelled = try await CLIRunner.runAsync(["scheduled", "cancel", ScheduledStart.makeId(requestId: requestId, ordinal: 1),
                                                      "--db", schedulerPath, "--audit-db", proxy.auditPath])
        #expect(cancelled.status == 0, "\(cancelled.stdout)\(cancelled.stderr)")
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: requestId))
        let sent = try #require(try await proxy.runtime.scheduler.store.starts(ofRequest: requestId).first)
        #expect(row.outcome == "sent" && row.upstreamStatus == 201 && row.errorMessage == nil, "\(row)")
        #expect(row.upstreamBody?.contains(sent.notificationId ?? "none") == true && row.attempts?.contains("201") == true)
        #expect(try Self.mirror(proxy.auditPath, requestId).first == .text("sent"))
        #expect(!(row.upstreamBody ?? "").contains("sub_ios_alice") && !(row.attempts ?? "").contains("sub_ios_alice"))
        // Nothing more is sent, even past the second time.
        clock.set(second * 1000 + 1000)
        proxy.runtime.scheduler.wake()
        #expect(await clock.settled(), "the scheduler did not sleep again after its pass")
        #expect(upstream.all.count == 1)
        await proxy.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }
}
