import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A scheduled start whose audit row is written but which the scheduler's file refuses: the
/// caller is told nothing will be sent, and the audit row must say the same (not the
/// `scheduled` answer it was written with), and nothing may be sent at its time.
@Suite(.serialized) struct ProxySchedulingFailureTests {
    @Test func aStartTheSchedulerCannotStoreIsAuditedAsTheFailureTheCallerWasGiven() async throws {
        let upstream = try RecordingSandbox()
        let (_, sendAt, clock) = ProxySchedulerLiveTests.twoDaysAhead()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clock)
        // A real refusal from the scheduler's SQLite file, as a full or failing disk gives.
        let schedulerPath = proxy.directory.appendingPathComponent("audit-scheduled.sqlite").path
        let schedulerFile = try SQLiteDatabase(path: schedulerPath)
        // The scheduler's first pass (its claim of due starts, a write transaction) may hold the
        // file's write lock at this moment: wait for it as the proxy's own connections do,
        // rather than failing at once with "database is locked".
        try schedulerFile.execute("PRAGMA busy_timeout = 5000")
        try schedulerFile.execute(
            "CREATE TRIGGER refuse_starts BEFORE INSERT ON scheduled_starts BEGIN SELECT RAISE(ABORT, 'disk refused'); END")

        let reply = try await proxy.send(path: ProxySchedulerLiveTests.path, body: ProxySchedulerLiveTests.body(sendAt: sendAt))
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(reply.status == 500, "\(text)")
        #expect(text.contains("nothing will be sent"), "\(text)")
        let requestId = try #require(reply.headers["x-pushbridge-request-id"])

        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: requestId))
        #expect(row.outcome == "failed")
        #expect(row.responseStatus == reply.status)
        #expect(row.responseBody == text)
        #expect(row.errorMessage?.contains("nothing will be sent") == true, "\(row.errorMessage ?? "nil")")
        let mirror = try SQLiteDatabase(path: proxy.auditPath).rows("SELECT state FROM scheduled_sends WHERE request_id = ?", [.text(requestId)])
        #expect(!mirror.isEmpty && mirror.allSatisfy { $0.first == .text("failed") }, "\(mirror)")
        #expect(proxy.log.lines.contains { $0.contains(requestId) && $0.contains("outcome=failed") }, "\(proxy.log.output)")

        // At its time nothing goes out, and the row stays as the caller was told.
        clock.set(sendAt * 1000 + 1000)
        proxy.runtime.scheduler.wake()
        #expect(await clock.settled(), "the scheduler did not sleep again after its pass")
        #expect(upstream.all.isEmpty)
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: requestId)?.outcome == "failed")
        await proxy.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }
}
