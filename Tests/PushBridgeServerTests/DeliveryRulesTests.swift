import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The pacer's arithmetic, the retry rules, and the delivery configuration keys.
struct DeliveryRulesTests {
    static func settings(_ perWindow: Int = 3, queue: Int = 2, maxWait: Int64 = 65_000) -> DeliverySettings {
        var s = DeliverySettings()
        s.sendsPerWindow = perWindow
        s.queueLimit = queue
        s.maxWaitMs = maxWait
        s.marginMs = 0
        return s
    }

    @Test func theBucketGrantsAWindowsWorthAtOnceThenOneSlotPerReturnedToken() {
        let pacer = SendPacer(settings: Self.settings())
        #expect(pacer.reserve(app: "a", count: 3, now: 0) == .granted([0, 0, 0]))
        #expect(pacer.reserve(app: "a", count: 2, now: 10) == .granted([60_000, 60_000]))
        // The queue holds two: a third waiting send is refused with the seconds until room.
        #expect(pacer.reserve(app: "a", count: 1, now: 20) == .refused(retryAfterSeconds: 60))
        #expect(pacer.reserve(app: "b", count: 1, now: 20) == .granted([20]), "apps have their own buckets")
        #expect(pacer.reserve(app: "a", count: 1, now: 60_000) == .granted([60_000]), "the first three tokens are back")
        #expect(pacer.reserve(app: "a", count: 1, now: 60_000) == .granted([120_000]))
    }

    @Test func aRequestThatWouldWaitTooLongIsRefusedWhole() {
        let pacer = SendPacer(settings: Self.settings(2, queue: 10, maxWait: 30_000))
        #expect(pacer.reserve(app: "a", count: 3, now: 0) == .refused(retryAfterSeconds: 30))
        #expect(pacer.reserve(app: "a", count: 2, now: 0) == .granted([0, 0]), "a refusal takes no slot")
    }

    @Test func anUpstream429DrainsTheBucketUntilItsRetryAfter() {
        let pacer = SendPacer(settings: Self.settings(10))
        pacer.drain(app: "a", until: 7_000)
        #expect(pacer.reserve(app: "a", count: 1, now: 1_000) == .granted([7_000]))
        #expect(pacer.blockedUntil(app: "a") == 7_000)
    }

    @Test func startsAreRetriedAfterTimeoutsAndUpdatesOnlyWhenProvablyNotSent() {
        var start = OpenPushStart(appId: "a", activityType: "T")
        start.idempotencyKey = IdempotencyKeys.derive(requestId: "req_1", index: 0)
        let keyed = OpenPushRequest(.start(start))
        let update = OpenPushRequest(.update(OpenPushUpdate(appId: "a", activityId: "x")))
        let timedOut = UpstreamResponse.failure(UpstreamFailure(kind: .timedOut, message: "t", provablyNotSent: false))
        let refused = UpstreamResponse.failure(UpstreamFailure(kind: .connectFailed, message: "r", provablyNotSent: true))
        let fiveHundred = UpstreamResponse.reply(UpstreamReply(status: 503, headers: [], body: [], latency: .zero))
        let tooMany = UpstreamResponse.reply(UpstreamReply(status: 429, headers: [], body: [], latency: .zero))
        #expect(OpenPushDelivery.mayRetry(keyed, after: timedOut) && OpenPushDelivery.mayRetry(keyed, after: fiveHundred))
        #expect(!OpenPushDelivery.mayRetry(update, after: timedOut) && !OpenPushDelivery.mayRetry(update, after: fiveHundred))
        #expect(OpenPushDelivery.mayRetry(update, after: refused))
        #expect(!OpenPushDelivery.mayRetry(keyed, after: tooMany))
    }

    @Test func derivedKeysAreStableUUIDsAndTheCallersKeyIsScopedToItsSourceApp() {
        let a = IdempotencyKeys.derive(requestId: "req_1", index: 0)
        #expect(a == IdempotencyKeys.derive(requestId: "req_1", index: 0) && a != IdempotencyKeys.derive(requestId: "req_1", index: 1))
        #expect(a.count == 36 && Array(a)[14] == "5")
        // Pinned: keys already stored (audit, scheduler file) must be derived the same way forever.
        #expect(a == "2839557a-829e-5713-9c52-f14146b6d2e8")
        var start = OpenPushStart(appId: "a", activityType: "T")
        start.idempotencyKey = "5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2"
        let scoped = IdempotencyKeys.assign([OpenPushRequest(.start(start))], requestId: "req_1", sourceApp: "onesignal/app_a")
        // Pinned too (Python's uuid.uuid5 gives the same): a retry after an upgrade must reach OpenPush with the key it had before.
        #expect(scoped.first?.body["idempotency_key"] == .string("21a57fd9-8c81-5659-afdf-456a45e39d42"))
    }

    /// The system's generator, counting what is drawn from it.
    struct CountingGenerator: RandomNumberGenerator {
        var draws = 0
        var system = SystemRandomNumberGenerator()
        mutating func next() -> UInt64 { draws += 1; return system.next() }
    }

    @Test func theJitterIsDrawnOnlyWhenARetryFollows() {
        var start = OpenPushStart(appId: "a", activityType: "T")
        start.idempotencyKey = IdempotencyKeys.derive(requestId: "req_1", index: 0)
        let keyed = OpenPushRequest(.start(start))
        let ok = UpstreamResponse.reply(UpstreamReply(status: 200, headers: [], body: [], latency: .zero))
        let bad = UpstreamResponse.reply(UpstreamReply(status: 400, headers: [], body: [], latency: .zero))
        let fiveHundred = UpstreamResponse.reply(UpstreamReply(status: 503, headers: [], body: [], latency: .zero))
        let s = DeliverySettings(), far = ContinuousClock.now + .seconds(60)
        var random = CountingGenerator()
        func wait(_ response: UpstreamResponse, attempts: Int = 1, deadline: ContinuousClock.Instant = far) -> Int64? {
            OpenPushDelivery.retryWait(keyed, after: response, attempts: attempts, settings: s, upstreamTimeout: .seconds(5), deadline: deadline, random: &random)
        }
        #expect(wait(ok) == nil && wait(bad) == nil && wait(fiveHundred, attempts: s.maxAttempts) == nil)
        #expect(random.draws == 0, "an answer that ends the send draws no jitter")
        for _ in 0..<20 {
            let first = wait(fiveHundred), second = wait(fiveHundred, attempts: 2)
            #expect(first.map { (100...200).contains($0) } == true && second.map { (200...400).contains($0) } == true)
        }
        #expect(random.draws >= 40, "a retry draws its jitter")
        #expect(wait(fiveHundred, deadline: .now + .seconds(5)) == nil, "no retry when the backoff and a call would pass the deadline")
    }

    @Test func backoffGrowsWithJitterAndStopsAtItsCeiling() {
        let s = DeliverySettings()
        for _ in 0..<20 {
            #expect((100...200).contains(s.backoff(retry: 1)))
            #expect((200...400).contains(s.backoff(retry: 2)))
            #expect((1000...2000).contains(s.backoff(retry: 9)))
        }
    }
}
