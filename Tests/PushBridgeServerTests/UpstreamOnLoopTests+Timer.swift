import Foundation
import Testing
@testable import PushBridgeServer

/// curl's timer on the loop's heap moves as little as it exactly can (``CurlTimerEntries``):
/// an entry due no later than curl wants stays, an early one re-arms when it fires, and curl's
/// timeouts still end their calls on time. Real HTTP against `TestHTTPServer` on 127.0.0.1, on
/// the loop and client of ``UpstreamOnLoopTests``.
extension UpstreamOnLoopTests {
    /// This client's multi on the calling loop (the test's loop holds one client only).
    private static func loopMulti() -> UpstreamLoopMulti? {
        EventLoop.current?.locals.values.lazy.compactMap { $0 as? UpstreamLoopMulti }.first
    }

    /// Entries added to and cancelled on the loop's heap by the multi, as one count.
    private static func heapChanges() -> Int {
        guard let changes = loopMulti()?.timerChanges else { return -1 }
        return changes.added + changes.cancelled
    }

    @Test func curlsTimerChangesTheLoopsHeapAtMostOnceACall() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let (sequential, concurrent, statuses) = await onLoop { () -> (Int, Int, [Int?]) in
            _ = await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), body: [0]))
            let first = Self.heapChanges()
            var statuses: [Int?] = []
            for i in 1...10 {
                statuses.append(await client.send(UpstreamRequest(method: "POST", url: server.url("/slow?ms=5"), body: [UInt8(i)])).reply?.status)
            }
            let second = Self.heapChanges()
            // 16 callers of 5 calls each: many transfers in flight, whose earliest timeout moves.
            let more = await withTaskGroup(of: [Int?].self) { group in
                for t in 0..<16 {
                    group.addTask {
                        var statuses: [Int?] = []
                        for i in 0..<5 {
                            statuses.append(await client.send(UpstreamRequest(method: "POST", url: server.url("/slow?ms=\(1 + (t + i) % 4)"), body: [UInt8(i)])).reply?.status)
                        }
                        return statuses
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            return (second - first, Self.heapChanges() - second, statuses + more)
        }
        #expect(statuses == Array(repeating: 200, count: 90))
        // Before: a cancel and two additions a call one after another (30 for 10 calls), and
        // 259 for the 80 calls in flight together.
        #expect(sequential >= 0 && sequential <= 10, "\(sequential) heap changes for 10 calls one after another")
        #expect(concurrent >= 0 && concurrent <= 80, "\(concurrent) heap changes for 80 calls, 16 at a time")
    }

    /// A call whose timeout is later than an entry left on the heap by an earlier call: the
    /// entry fires early, finds curl wants a later time, and arms it; the call ends at its own
    /// deadline, not at the entry's.
    @Test func aTimeoutLaterThanAnEntryLeftOnTheHeapEndsItsCallOnTime() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let (short, long) = (Duration.milliseconds(300), Duration.milliseconds(1200))
        let (quick, stalled) = await onLoop {
            (await client.send(UpstreamRequest(method: "POST", url: server.url("/echo"), body: [1], timeout: short)),
             await client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [2], timeout: long)))
        }
        #expect(quick.reply?.status == 200)
        let failure = try #require(stalled.failure)
        #expect(failure.kind == .timedOut && !failure.provablyNotSent)
        #expect(failure.latency >= long - .milliseconds(50), "ended at \(failure.latency), its deadline was \(long)")
        #expect(failure.latency < long + .milliseconds(700))
    }

    /// A call whose timeout is earlier than one in flight: an entry is added for it, and each
    /// call ends at its own deadline.
    @Test func aTimeoutEarlierThanOneInFlightEndsItsCallFirst() async throws {
        defer { finish() }
        let (client, server) = (client, server)
        let (long, short) = (Duration.milliseconds(1500), Duration.milliseconds(300))
        let (first, second) = await onLoop {
            async let first = client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [1], timeout: long))
            // The second starts once the first waits on the upstream (its timeout is set).
            _ = await eventually(10) { !server.received.isEmpty }
            async let second = client.send(UpstreamRequest(method: "POST", url: server.url("/stall"), body: [2], timeout: short))
            return await (first, second)
        }
        let (late, early) = (try #require(first.failure), try #require(second.failure))
        #expect(late.kind == .timedOut && early.kind == .timedOut)
        #expect(early.latency >= short - .milliseconds(50) && early.latency < short + .milliseconds(700), "\(early.latency)")
        #expect(late.latency >= long - .milliseconds(50) && late.latency < long + .milliseconds(700), "\(late.latency)")
    }
}
