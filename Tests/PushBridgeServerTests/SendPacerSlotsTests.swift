import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The pacer's head-indexed slot store, and the pacer built on it checked against the plain
/// array version it replaced (the reference below) on long random runs.
struct SendPacerSlotsTests {
    @Test func emptySlotsHaveNoLastAndCountNothing() {
        var slots = PacerSlots()
        #expect(slots.count == 0 && slots.last == nil)
        #expect(slots.firstIndex(after: 0) == 0 && slots.count(after: -1) == 0)
        slots.drop(through: 1_000)
        #expect(slots.all == [])
    }

    @Test func dropThroughRemovesTheExpiredFrontOnlyAndKeepsTies() {
        var slots = PacerSlots()
        for t: Int64 in [5, 5, 7, 9, 9, 12] { slots.append(t) }
        #expect(slots.firstIndex(after: 5) == 2)
        #expect(slots.count(after: 8) == 3)
        slots.drop(through: 4)
        #expect(slots.all == [5, 5, 7, 9, 9, 12], "nothing at or before 4")
        slots.drop(through: 5)
        #expect(slots.all == [7, 9, 9, 12], "both 5s go, not the 7")
        #expect(slots[0] == 7 && slots.last == 12 && slots.count == 4)
        slots.drop(through: 12)
        #expect(slots.all == [] && slots.last == nil, "dropping everything empties the store")
        slots.append(20)
        #expect(slots.all == [20] && slots[0] == 20)
    }

    @Test func compactionKeepsTheOrderAndTheIndexes() {
        var slots = PacerSlots()
        for t in 0..<1_000 { slots.append(Int64(t)) }
        // Drop in small steps so the head passes the compaction threshold many times.
        for cut in stride(from: 0, to: 990, by: 7) {
            slots.drop(through: Int64(cut))
            #expect(slots.count == 999 - cut)
            #expect(slots[0] == Int64(cut + 1) && slots.last == 999)
            #expect(slots.count(after: 995) == 4)
        }
        for t in 1_000..<1_010 { slots.append(Int64(t)) }
        #expect(slots.all == Array(Int64(988)...1_009))
    }

    @Test func aWindowOfThousandsGrantsAtOnceWhenTheLimitIsHigh() {
        var s = DeliverySettings()
        s.sendsPerWindow = 1_000_000_000
        s.windowMs = 1_000
        s.queueLimit = 100_000
        let pacer = SendPacer(settings: s)
        for now in Int64(0)..<20_000 {
            #expect(pacer.reserve(app: "a", count: 1, now: now / 4) == .granted([now / 4]))
        }
        #expect(pacer.waiting(app: "a", now: 4_999) == 0)
    }

    @Test(arguments: [(3, 2, Int64(65_000)), (5, 8, 30_000), (1, 1, 2_000), (10, 3, 65_000), (20, 10, 65_000)])
    func matchesThePlainArrayPacerOnRandomRuns(_ perWindow: Int, _ queue: Int, _ maxWait: Int64) {
        var s = DeliverySettings()
        s.sendsPerWindow = perWindow
        s.queueLimit = queue
        s.maxWaitMs = maxWait
        s.windowMs = 10_000
        s.marginMs = 250
        var rng = SplitMix(seed: UInt64(perWindow * 1_000 + queue))
        let pacer = SendPacer(settings: s)
        var reference = ReferencePacer(settings: s)
        var now: Int64 = 0, refused = 0
        for step in 0..<3_000 {
            now += Int64(rng.next() % 700)
            let app = rng.next() % 4 == 0 ? "b" : "a"
            if rng.next() % 50 == 0 {
                let until = now + Int64(rng.next() % 5_000)
                pacer.drain(app: app, until: until)
                reference.drain(app: app, until: until)
            }
            let count = Int(rng.next() % 4)
            let got = pacer.reserve(app: app, count: count, now: now)
            #expect(got == reference.reserve(app: app, count: count, now: now), "step \(step)")
            if case .refused = got { refused += 1 }
            #expect(pacer.waiting(app: app, now: now) == reference.waiting(app: app, now: now), "step \(step)")
            #expect(pacer.blockedUntil(app: app) == reference.blocked[app, default: 0])
        }
        #expect(refused > 50 && refused < 2_500, "the run exercises both answers (\(refused) refusals)")
    }
}

/// The pacer as it was before the slot store: O(n) per call, obviously right.
private struct ReferencePacer {
    let settings: DeliverySettings
    var slots: [String: [Int64]] = [:]
    var blocked: [String: Int64] = [:]

    init(settings: DeliverySettings) { self.settings = settings }

    mutating func reserve(app: String, count: Int, now: Int64) -> SendPacer.Reservation {
        let limit = max(settings.sendsPerWindow, 1), span = settings.windowMs + settings.marginMs
        var kept = (slots[app] ?? []).filter { $0 > now - span }
        slots[app] = kept
        var grants: [Int64] = []
        for _ in 0..<count {
            var t = max(now, blocked[app, default: 0], kept.last ?? now)
            if kept.count >= limit { t = max(t, kept[kept.count - limit] + span) }
            kept.append(t)
            grants.append(t)
        }
        let waiting = kept.filter { $0 > now }.count
        if let last = grants.last, waiting > settings.queueLimit || last - now > settings.maxWaitMs {
            let future = (slots[app] ?? []).filter { $0 > now }
            let excess = max(waiting - settings.queueLimit, 0)
            var at = excess > 0 && excess <= future.count ? future[excess - 1] : now
            at = max(at, last - settings.maxWaitMs)
            return .refused(retryAfterSeconds: max(1, Int((at - now + 999) / 1000)))
        }
        slots[app] = kept
        return .granted(grants)
    }

    mutating func drain(app: String, until: Int64) { blocked[app] = max(blocked[app, default: 0], until) }

    func waiting(app: String, now: Int64) -> Int { (slots[app] ?? []).filter { $0 > now }.count }
}
