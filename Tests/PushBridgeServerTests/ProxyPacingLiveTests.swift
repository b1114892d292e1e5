import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
@testable import PushBridgeServer
import Synchronization
import Testing

/// Pacing and safe retries through the real proxy in front of the sandbox, on a clock the
/// test moves (the sandbox's and the pacer's together), so a minute's window takes no minute.
@Suite(.serialized) struct ProxyPacingLiveTests {
    static let startPath = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"

    static func startBody(_ activity: String) -> [UInt8] {
        Array("""
        {"event":"start","activity_id":"\(activity)","name":"Order \(activity)","event_attributes":{"orderNumber":"1"},
         "event_updates":{"stage":"out"},"headings":{"en":"On the way"},"contents":{"en":"Soon"},"included_segments":["seg_01hq8n4t2v"]}
        """.utf8)
    }

    /// Tasks of a running proxy that sleep on the delivery clock besides the sends: the
    /// scheduler (the audit's retention and disk checks have their own clock).
    static let backgroundSleepers = 1

    @Test func seventyStartsWithinASecondAllReachTheSandboxOnScheduleAndATimedOutOneStartsOnce() async throws {
        // The sandbox starts burst_7 the first time, then answers too late: an injected timeout.
        let firstSeen = Mutex(false)
        let stalling = try RecordingSandbox(advancePerRequest: 0, beforeAnswering: { request in
            guard String(decoding: request.body, as: UTF8.self).contains("\"activity_id\":\"burst_7\"") else { return }
            if !firstSeen.withLock({ s in defer { s = true }; return s }) { try? await Task.sleep(for: .milliseconds(1500)) }
        })
        let clock = ManualDeliveryClock(startMilliseconds: stalling.clock.now * 1000)
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: stalling.baseURL).with {
            $0.limits = .init(upstreamConnectTimeoutMs: 500, upstreamTimeoutMs: 800)
            $0.delivery = .init(backoffBaseMs: 50, backoffMaxMs: 100)
        }, clock: clock)

        let replies = Collected<(Int, [UInt8])>()
        let send: @Sendable (Int) async -> Void = { i in
            let r = try? await proxy.send(path: Self.startPath, body: Self.startBody("burst_\(i)"), session: makeBurstSession())
            replies.append((r?.status ?? -1, r?.body ?? []))
        }
        // burst_7 goes first, so it is one of the 60 the window lets through (the order 70
        // tasks reach the proxy in is the scheduler's: on a busy machine it had been among the
        // 10 that wait); the other 69 once the sandbox holds it.
        let burst = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await send(7) }
                _ = await eventually(30) { firstSeen.withLock { $0 } }
                for i in 0..<70 where i != 7 { group.addTask { await send(i) } }
            }
        }
        // 60 go at once (one of them times out); 10 wait for the window, and so does the retry
        // (the scheduler sleeps on the clock too).
        #expect(await eventually(30) { stalling.all.count >= 60 && clock.sleeperCount >= 11 + Self.backgroundSleepers }, "received \(stalling.all.count), sleeping \(clock.sleeperCount)")
        #expect(stalling.all.count == 60)
        // The 59 not stalled are answered (each after its durable audit: on a busy machine some
        // time after the sandbox had them), and no more: the 11 wait on the clock.
        #expect(await eventually(30) { replies.all.count >= 59 }, "answered \(replies.all.count)")
        #expect(replies.all.count == 59)
        clock.advance(byMilliseconds: 61_000)
        stalling.clock.set(clock.nowMilliseconds() / 1000)
        await burst.value

        let got = replies.all
        #expect(got.count == 70)
        #expect(got.allSatisfy { $0.0 == 201 }, "\(got.filter { $0.0 != 201 }.map { "\($0.0) \(String(decoding: $0.1, as: UTF8.self))" })")
        let received = stalling.all
        #expect(received.count == 71)
        #expect(!received.contains { $0.response.status == 429 }, "the sandbox answered 429")
        // The timed-out start was sent twice with one key and started once.
        let sevens = received.filter { String(decoding: $0.body, as: UTF8.self).contains("\"activity_id\":\"burst_7\"") }
        #expect(sevens.count == 2)
        let keys = Set(sevens.compactMap { (try? JSONParser.parse($0.body))?.objectValue?["idempotency_key"]?.stringValue })
        #expect(keys.count == 1)
        #expect(sevens.last?.response.headers.contains { $0.name.lowercased() == "idempotent-replayed" && $0.value == "true" } == true)
        let started = Set(received.compactMap { (try? JSONParser.parse($0.response.body))?.objectValue?["id"]?.stringValue ?? (try? JSONParser.parse($0.response.body))?.objectValue?["notification_id"]?.stringValue })
        #expect(started.count == 70)
        // The audit keeps both attempts of the retried one.
        let rows = try AuditReader(path: proxy.auditPath).list(limit: 100)
        let retried = try rows.compactMap { try AuditReader(path: proxy.auditPath).show(requestId: $0.requestId) }.filter { ($0.attempts ?? "").components(separatedBy: "\"at\"").count == 3 }
        #expect(retried.count == 1)
        await proxy.stop()
        await stalling.server.stop(gracePeriod: .seconds(1))
    }
}

extension ProxyPacingLiveTests {
    @Test func aFullQueueGetsTheDialectsRateLimitAnswerWithRetryAfterAndSendsNothing() async throws {
        let upstream = try RecordingSandbox(advancePerRequest: 0)
        let clock = ManualDeliveryClock(startMilliseconds: upstream.clock.now * 1000)
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.delivery = .init(sendsPerWindow: 1, queueLimit: 1) }, clock: clock)
        let first = try await proxy.send(path: Self.startPath, body: Self.startBody("queue_1"))
        #expect(first.status == 201)
        let waiting = Task { try await proxy.send(path: Self.startPath, body: Self.startBody("queue_2"), session: makeBurstSession()) }
        #expect(await eventually { clock.sleeperCount >= 1 + Self.backgroundSleepers })
        let refused = try await proxy.send(path: Self.startPath, body: Self.startBody("queue_3"), session: makeBurstSession())
        #expect(refused.status == 429 && Int(refused.headers["retry-after"] ?? "") ?? 0 >= 60, "\(refused.status) \(refused.headers)")
        #expect(upstream.all.count == 1)
        let row = try AuditReader(path: proxy.auditPath).show(requestId: try #require(refused.headers["x-pushbridge-request-id"]))
        #expect(row?.outcome == "rejected" && (row?.errorMessage ?? "").contains("queue"))
        clock.advance(byMilliseconds: 61_000)
        upstream.clock.advance(by: 61)
        #expect(try await waiting.value.status == 201)
        #expect(upstream.all.count == 2 && !upstream.all.contains { $0.response.status == 429 })
        await proxy.stop()
    }

    @Test func anUpdateThatTimedOutIsNotRetriedButOneThatWasRefusedIs() async throws {
        let upstream = try RecordingSandbox { request in
            guard request.path.hasSuffix("/notifications") else { return nil }
            try? await Task.sleep(for: .milliseconds(1500))
            return HTTPResponse(status: 200, body: Array(#"{"id":"late"}"#.utf8))
        }
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.limits = .init(upstreamConnectTimeoutMs: 300, upstreamTimeoutMs: 500)
            $0.delivery = .init(backoffBaseMs: 10, backoffMaxMs: 20)
        })
        let update = Array(#"{"event":"update","name":"n","event_updates":{"stage":"x"},"headings":{"en":"h"},"contents":{"en":"c"}}"#.utf8)
        let reply = try await proxy.send(path: "/apps/app_3f9c2b/live_activities/order_1/notifications", body: update)
        #expect(reply.status >= 500)
        #expect(upstream.all.filter { $0.path.hasSuffix("/notifications") }.count <= 1)
        let row = try AuditReader(path: proxy.auditPath).show(requestId: try #require(reply.headers["x-pushbridge-request-id"]))
        #expect(row?.attempts?.components(separatedBy: "\"at\"").count == 2, "\(row?.attempts ?? "-")")
        await proxy.stop()

        let closedPort = try await ClosedPort.find()
        let refusing = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: "http://127.0.0.1:\(closedPort)").with { $0.delivery = .init(backoffBaseMs: 10, backoffMaxMs: 20) })
        let r2 = try await refusing.send(path: "/apps/app_3f9c2b/live_activities/order_1/notifications", body: update)
        let row2 = try AuditReader(path: refusing.auditPath).show(requestId: try #require(r2.headers["x-pushbridge-request-id"]))
        #expect(row2?.attempts?.components(separatedBy: "\"at\"").count == 4, "three attempts: \(row2?.attempts ?? "-")")
        await refusing.stop()
    }
}

/// Values collected from concurrent tasks.
final class Collected<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}
