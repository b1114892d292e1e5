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

    @Test func seventyStartsWithinASecondAllReachTheSandboxOnScheduleAndATimedOutOneStartsOnce() async throws {
        // The sandbox starts burst_7 the first time, then answers too late: an injected timeout.
        let firstSeen = Mutex(false)
        let stalling = try RecordingSandbox(advancePerRequest: 0, beforeAnswering: { request in
            guard String(decoding: request.body, as: UTF8.self).contains("\"activity_id\":\"burst_7\"") else { return }
            if !firstSeen.withLock({ s in defer { s = true }; return s }) { try? await Task.sleep(for: .milliseconds(1500)) }
        })
        let clock = ManualDeliveryClock(startMilliseconds: stalling.clock.now * 1000)
        let proxy = try ProxyHarness(upstream: stalling.baseURL, limits: #"{"upstream_timeout_ms": 800, "upstream_connect_timeout_ms": 500}"#,
                                     topExtra: #", "delivery": {"backoff_base_ms": 50, "backoff_max_ms": 100}"#, clock: clock)

        let replies = Collected<(Int, [UInt8])>()
        let burst = Task {
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<70 {
                    group.addTask {
                        let r = try? await proxy.send(path: Self.startPath, body: Self.startBody("burst_\(i)"), session: makeBurstSession())
                        replies.append((r?.status ?? -1, r?.body ?? []))
                    }
                }
            }
        }
        // 60 go at once (one of them times out); 10 wait for the window, and so does the retry
        // (the twelfth sleeper is the scheduler).
        #expect(await eventually(30) { stalling.all.count >= 60 && clock.sleeperCount >= 11 + 1 }, "received \(stalling.all.count), sleeping \(clock.sleeperCount)")
        #expect(stalling.all.count == 60)
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

/// Values collected from concurrent tasks.
final class Collected<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}
