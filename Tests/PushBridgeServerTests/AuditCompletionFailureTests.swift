import Foundation
import Glibc
import Synchronization
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// The audit cannot take a completion while the upstream call is in flight: a real write lock
/// held by another SQLite connection, a real full filesystem (a small tmpfs). The caller is
/// told the truth (a 500 in its dialect naming OpenPush's id: the send happened, the audit
/// failed), and the row does not stay `pending`: once the store works again the reconciler
/// completes it with what is known, the 500 included.
@Suite(.serialized)
struct AuditCompletionFailureTests {
    /// Runs `action` once, the first time a start reaches the upstream (before it answers).
    final class OnFirstStart: Sendable {
        private let action = Mutex<(@Sendable () -> Void)?>(nil)
        func arm(_ work: @escaping @Sendable () -> Void) { action.withLock { $0 = work } }
        func fire() { action.withLock { $0.take() }?() }
    }

    /// A second connection to the audit file. `@unchecked Sendable`: the upstream's hook uses
    /// it once, before the answer the test then waits for, and the test after that.
    final class Locker: @unchecked Sendable {
        let database: SQLiteDatabase
        /// Waits out a moment's lock by the proxy's own connections before it takes its own.
        init(_ database: SQLiteDatabase) {
            self.database = database
            try? database.execute("PRAGMA busy_timeout = 10000")
        }
    }

    static let start = (ProxyFailureTests.osStart, "onesignal-start-reference")

    /// Sends one OneSignal start through `proxy` and checks the 500 that tells the truth;
    /// returns the request id and OpenPush's id.
    static func sendAndExpectTheTruth(_ proxy: ProxyHarness, upstream: RecordingSandbox) async throws -> (String, String) {
        let reply = try await proxy.send(path: start.0, body: try ProxyFailureTests.fixture(start.1))
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(reply.status == 500, "\(reply.status): \(text)")
        #expect(ProxyFixtureLiveTests.isDialectError(.onesignal, status: reply.status, body: reply.body), "\(text)")
        let sent = try #require(upstream.all.last, "nothing reached the upstream")
        let openPushId = try #require((try? JSONParser.parse(sent.response.body))?.objectValue?["id"]?.stringValue
                                      ?? (try? JSONParser.parse(sent.response.body))?.objectValue?["notification_id"]?.stringValue)
        #expect(text.contains(openPushId) && text.contains("reached OpenPush") && text.contains("idempotency key"), "\(text)")
        return (try #require(reply.headers["x-pushbridge-request-id"]), openPushId)
    }

    /// Waits (at most 15 s) until the reconciler has written every late completion and the
    /// row is no longer `pending`.
    static func settledRow(_ proxy: ProxyHarness, _ id: String) async throws -> AuditRecord? {
        let settled = await firstValue(within: 15) { () -> AuditRecord? in
            guard proxy.runtime.service.lateCompletionCount == 0, let row = try? AuditReader(path: proxy.auditPath).show(requestId: id),
                  row.outcome != "pending" else { return nil }
            return row
        }
        return try settled ?? AuditReader(path: proxy.auditPath).show(requestId: id)
    }

    static func expectTruthRecorded(_ row: AuditRecord?, openPushId: String) {
        #expect(row?.outcome == "forwarded", "outcome \(row?.outcome ?? "-")")
        #expect(row?.upstreamStatus == 201)
        #expect(row?.responseStatus == 500)
        #expect(row?.upstreamBody?.contains(openPushId) == true)
        #expect(row?.errorMessage?.contains("instead of 201") == true, "\(row?.errorMessage ?? "-")")
    }

    @Test(.timeLimit(.minutes(1)))
    func aLockedAuditGetsTheTruthAndTheRowCompletesOnceTheLockGoes() async throws {
        let trigger = OnFirstStart()
        let upstream = try RecordingSandbox(beforeAnswering: { _ in trigger.fire() })
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let locker = Locker(try SQLiteDatabase(path: proxy.auditPath))
        trigger.arm { try? locker.database.execute("BEGIN EXCLUSIVE") }

        let (id, openPushId) = try await Self.sendAndExpectTheTruth(proxy, upstream: upstream)
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: id)?.outcome == "pending", "the lock did not hold the completion back")
        try locker.database.execute("COMMIT")

        Self.expectTruthRecorded(try await Self.settledRow(proxy, id), openPushId: openPushId)
        #expect(proxy.runtime.service.lateCompletionCount == 0)
        #expect(try await proxy.send(path: Self.start.0, body: try ProxyFailureTests.fixture(Self.start.1)).status == 201)
        await proxy.stop()
    }

    /// A commit slowed past the 1.5 s every answer used to be limited to (a busy disk, a
    /// backup's lock for a few seconds) while the handler's deadline still has room: the
    /// caller waits for it and gets OpenPush's own answer, not the 500 that says the audit failed.
    @Test(.timeLimit(.minutes(1)))
    func aCompletionHeldBackLongerThanOneAndAHalfSecondsStillAnswersWithOpenPushsAnswer() async throws {
        let trigger = OnFirstStart()
        let upstream = try RecordingSandbox(beforeAnswering: { _ in trigger.fire() })
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let locker = Locker(try SQLiteDatabase(path: proxy.auditPath))
        let held: Duration = .milliseconds(2500)
        // The stimulus is a lock held for `held` (the writer waits up to 5 s for a lock), released off the caller's path.
        trigger.arm {
            try? locker.database.execute("BEGIN EXCLUSIVE")
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2500)) { try? locker.database.execute("COMMIT") }
        }
        let started = ContinuousClock.now
        let reply = try await proxy.send(path: Self.start.0, body: try ProxyFailureTests.fixture(Self.start.1))
        let elapsed = ContinuousClock.now - started
        #expect(reply.status == 201, "\(reply.status): \(String(decoding: reply.body, as: UTF8.self))")
        #expect(elapsed >= held, "answered after \(elapsed), before the lock went: the completion cannot have been written")
        let id = try #require(reply.headers["x-pushbridge-request-id"])
        let row = try AuditReader(path: proxy.auditPath).show(requestId: id)
        #expect(row?.outcome == "forwarded" && row?.responseStatus == 201, "\(String(describing: row))")
        #expect(proxy.runtime.service.lateCompletionCount == 0)
        await proxy.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func aFullDiskGetsTheTruthAndTheRowCompletesOnceThereIsRoom() async throws {
        let folder = try TemporaryDirectory("pushbridge-full")
        let mountPoint = folder.url
        let mounted = try CLIRunner.runProcess(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint.path])
        try #require(mounted.status == 0, "cannot mount a tmpfs (the test needs root, as in CI): \(mounted.stderr)")
        // Lazily: the stopped proxy's files may still be open when the test ends, and a busy
        // tmpfs left mounted would keep its folder too.
        defer { _ = try? CLIRunner.runProcess(URL(fileURLWithPath: "/bin/umount"), ["-l", mountPoint.path]) }
        let filler = mountPoint.appendingPathComponent("filler")
        let trigger = OnFirstStart()
        let upstream = try RecordingSandbox(beforeAnswering: { _ in trigger.fire() })
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, directory: mountPoint)
        trigger.arm { Self.fill(filler) }

        let (id, openPushId) = try await Self.sendAndExpectTheTruth(proxy, upstream: upstream)
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: id)?.outcome == "pending", "the full disk did not hold the completion back")
        try FileManager.default.removeItem(at: filler)

        Self.expectTruthRecorded(try await Self.settledRow(proxy, id), openPushId: openPushId)
        #expect(proxy.runtime.service.lateCompletionCount == 0)
        await proxy.stop()
    }

    /// Writes zeros to `file` until the filesystem is full.
    static func fill(_ file: URL) {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
