import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 29 item 15 (the rollback's write): a rollback tripped by a request is written to the
/// audit database on the monitor's own queue, not on the caller's thread: with the audit file
/// locked by another connection, the call that trips it returns at once (the caller, on an
/// event loop in production, moves on), and the rollback is written once the lock goes.
@Suite(.serialized) struct RolloutMonitorQueueTests {
    @Test(.timeLimit(.minutes(1)))
    func aRollbackTrippedWhileTheAuditIsLockedIsWrittenOffTheCallersThreadOnceTheLockGoes() async throws {
        let folder = try TemporaryDirectory("pushbridge-rollout-queue")
        let path = folder.url("audit.sqlite").path
        let store = try AuditStore(path: path, configuration: AuditStoreConfiguration())
        let log = LineCollector()
        let monitor = RolloutMonitor(store: try AuditReader(path: path, busyTimeout: .seconds(5)), instance: "test", log: EventLog(format: .logfmt, minimumLevel: .info, sink: log.sink))
        let locker = try SQLiteDatabase(path: path)
        try locker.execute("BEGIN IMMEDIATE")
        let now = AuditClock.nowMilliseconds()
        for i in 0..<RolloutWindow.minimum {
            monitor.record(app: "os", RolloutWindow.Sample(at: now + Int64(i), failed: true, rateLimited: false), thresholds: ReadinessThresholds())
        }
        // Tripped here; the lock is still held, so the row cannot be in the file yet.
        #expect(monitor.rollback(of: "os") != nil)
        try locker.execute("ROLLBACK")
        let reader = try AuditReader(path: path)
        #expect(await eventually { (try? reader.rollbacks().map(\.app)) == ["os"] }, "\(log.lines)")
        #expect(!log.lines.contains { $0.contains("could not be written") }, "\(log.lines)")
        _ = await store.close()
    }
}
