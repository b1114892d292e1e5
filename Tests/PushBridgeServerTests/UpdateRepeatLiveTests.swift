import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
@testable import PushBridgeServer
import Synchronization
import Testing

/// A caller that gave up waiting (its front proxy's timeout, its own) and sends the same
/// update again: PushBridge does not send it to OpenPush a second time.
@Suite(.serialized) struct UpdateRepeatLiveTests {
    static let path = "/apps/app_3f9c2b/live_activities/order_1/notifications"
    static func update(_ stage: String) -> [UInt8] {
        Array(#"{"event":"update","name":"n","event_updates":{"stage":"\#(stage)"},"headings":{"en":"h"},"contents":{"en":"c"}}"#.utf8)
    }

    @Test func aRetryOfAnUpdateTheCallerGotNoAnswerForIsAnsweredWithTheFirstResultAndSentOnce() async throws {
        // The upstream holds the first update until the caller has given up (2 s, so that a busy
        // machine still forwards the update before then): it answers only after that, however slow the machine.
        let slow = Mutex(true)
        let gate = AsyncGate()
        defer { gate.open() }
        let upstream = try RecordingSandbox(beforeAnswering: { request in
            guard request.path.hasSuffix("/notifications"), slow.withLock({ s in defer { s = false }; return s }) else { return }
            await gate.wait()
        })
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        #expect(try await proxy.send(path: ProxyPacingLiveTests.startPath, body: ProxyPacingLiveTests.startBody("order_1")).status == 201)
        let impatient: URLSession = {
            let c = URLSessionConfiguration.ephemeral
            c.timeoutIntervalForRequest = 2
            return URLSession(configuration: c)
        }()
        await #expect(throws: (any Error).self, "the first answer came before the caller gave up") {
            _ = try await proxy.send(path: Self.path, body: Self.update("arriving"), session: impatient)
        }
        gate.open()
        #expect(await eventually(30) { upstream.all.contains { $0.path == Self.path } }, "the first update never reached the upstream")
        // The caller retries at once, while the first is still in flight: the retry waits for it.
        let retry = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        #expect((200..<300).contains(retry.status), "\(String(decoding: retry.body, as: UTF8.self))")
        let sent = upstream.all.filter { $0.path == Self.path }
        #expect(sent.count == 1, "the update reached OpenPush \(sent.count) times")
        let firstId = try #require(sent.first.flatMap { (try? JSONParser.parse($0.response.body))?.objectValue?["id"]?.stringValue })
        #expect(String(decoding: retry.body, as: UTF8.self).contains(firstId), "the retry's answer is not the first's result")
        // Later, a third copy is answered from memory too; a different update is sent.
        let again = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        #expect((200..<300).contains(again.status) && String(decoding: again.body, as: UTF8.self).contains(firstId))
        let other = try await proxy.send(path: Self.path, body: Self.update("delivered"))
        #expect((200..<300).contains(other.status))
        #expect(upstream.all.filter { $0.path == Self.path }.count == 2, "the identical copies were sent, or the new update was not")
        // Every request has its row; the copies say they were not sent, and by which request it was.
        let audit = try AuditReader(path: proxy.auditPath)
        let retryId = try #require(retry.headers["x-pushbridge-request-id"])
        let retryRow = try #require(try audit.show(requestId: retryId))
        #expect(retryRow.outcome == "translated" && retryRow.responseStatus == retry.status)
        #expect(retryRow.errorMessage?.hasPrefix("not sent: the same update (app, activity, body and key) as request ") == true, "\(retryRow.errorMessage ?? "-")")
        #expect(await eventually(10) { (try? audit.list(limit: 10).filter { $0.outcome == "forwarded" }.count) == 3 }, "the start and the two updates sent")
        await proxy.stop()
    }

    @Test func anUpdateThatFailedIsSentAgainWhenTheCallerRetriesAndTheWindowCanBeTurnedOff() async throws {
        // The first update is answered 500: not accepted, so the caller's retry is a real retry.
        let failures = Mutex(1)
        let upstream = try RecordingSandbox { request in
            guard request.path.hasSuffix("/notifications") else { return nil }
            return failures.withLock { n in defer { n -= 1 }; return n > 0 } ? HTTPResponse(status: 500, body: Array(#"{"error":"boom"}"#.utf8)) : nil
        }
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.delivery.maxAttempts = 1 })
        #expect(try await proxy.send(path: ProxyPacingLiveTests.startPath, body: ProxyPacingLiveTests.startBody("order_1")).status == 201)
        #expect(try await proxy.send(path: Self.path, body: Self.update("x")).status >= 500)
        #expect((200..<300).contains(try await proxy.send(path: Self.path, body: Self.update("x")).status))
        #expect(upstream.all.filter { $0.path == Self.path }.count == 2)
        await proxy.stop()

        let plain = try RecordingSandbox()
        let off = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: plain.baseURL).with { $0.delivery.repeatWindowMs = 0 })
        #expect(try await off.send(path: ProxyPacingLiveTests.startPath, body: ProxyPacingLiveTests.startBody("order_1")).status == 201)
        for _ in 0..<2 { #expect((200..<300).contains(try await off.send(path: Self.path, body: Self.update("x")).status)) }
        #expect(plain.all.filter { $0.path == Self.path }.count == 2, "repeat_window_ms 0 still held back a copy")
        await off.stop()
    }

    /// The notification id OpenPush gave the `n`th request sent to `path`.
    static func sentId(_ upstream: RecordingSandbox, _ path: String, _ n: Int) -> String? {
        let sent = upstream.all.filter { $0.path == path }
        guard n < sent.count else { return nil }
        return (try? JSONParser.parse(sent[n].response.body))?.objectValue?["id"]?.stringValue
    }

    /// Issue 29, item 5a: U, then V, then U again of one activity: the third is sent, so the
    /// phone shows U again (a different later update clears the memory of that activity).
    @Test func anUpdateSentAgainAfterADifferentOneOfTheSameActivityIsSent() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        #expect(try await proxy.send(path: ProxyPacingLiveTests.startPath, body: ProxyPacingLiveTests.startBody("order_1")).status == 201)
        let first = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        let second = try await proxy.send(path: Self.path, body: Self.update("delivered"))
        let third = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        for reply in [first, second, third] { #expect((200..<300).contains(reply.status), "\(String(decoding: reply.body, as: UTF8.self))") }
        let sent = upstream.all.filter { $0.path == Self.path }
        #expect(sent.count == 3, "U, V, U reached OpenPush \(sent.count) times: the third was answered from memory")
        let firstId = try #require(Self.sentId(upstream, Self.path, 0))
        let thirdId = try #require(Self.sentId(upstream, Self.path, 2), "the third update was never sent")
        #expect(firstId != thirdId)
        let body = String(decoding: third.body, as: UTF8.self)
        #expect(body.contains(thirdId) && !body.contains(firstId), "the third answer is not its own send's: \(body)")
        let audit = try AuditReader(path: proxy.auditPath)
        let thirdRequest = try #require(third.headers["x-pushbridge-request-id"])
        let row = try #require(try audit.show(requestId: thirdRequest))
        #expect(row.errorMessage?.hasPrefix("not sent") != true, "\(row.errorMessage ?? "-")")
        // The memory still works for the latest update: a copy of the third is not sent again.
        let copy = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        #expect((200..<300).contains(copy.status) && String(decoding: copy.body, as: UTF8.self).contains(thirdId))
        #expect(upstream.all.filter { $0.path == Self.path }.count == 3, "the copy of the latest update was sent again")
        await proxy.stop()
    }

    /// Issue 29, item 5b: the memory is scoped to the source app. App `os-mapped` sends the
    /// very update app `os` sent (same OpenPush app, activity, body and key): it is never
    /// answered with `os`'s notification id.
    @Test func anotherSourceAppsIdenticalUpdateIsNeverAnsweredWithTheFirstAppsId() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        #expect(try await proxy.send(path: ProxyPacingLiveTests.startPath, body: ProxyPacingLiveTests.startBody("order_1")).status == 201)
        let mine = try await proxy.send(path: Self.path, body: Self.update("arriving"))
        #expect((200..<300).contains(mine.status))
        let mineId = try #require(Self.sentId(upstream, Self.path, 0))
        let otherPath = Self.path.replacingOccurrences(of: "/apps/app_3f9c2b/", with: "/apps/\(TestApp.osMapped.sourceAppId)/")
        let other = try await proxy.send(path: otherPath, body: Self.update("arriving"))
        let body = String(decoding: other.body, as: UTF8.self)
        #expect(!body.contains(mineId), "app os-mapped was answered with app os's notification id: \(body)")
        let audit = try AuditReader(path: proxy.auditPath)
        let otherRequest = try #require(other.headers["x-pushbridge-request-id"])
        let row = try #require(try audit.show(requestId: otherRequest))
        #expect(row.errorMessage?.contains("as request") != true, "answered from another app's memory: \(row.errorMessage ?? "-")")
        await proxy.stop()
    }
}
