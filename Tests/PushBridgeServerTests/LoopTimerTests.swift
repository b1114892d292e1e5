import Dispatch
import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// Timers on an event loop (``EventLoop/schedule(at:_:)``): the handler deadline and the audit
/// completion's race run on the request's loop, from its epoll timeout, with no thread of
/// their own to wake.
struct LoopTimerTests {
    /// What timers did: the names of the threads they ran on, in order, with when.
    final class Fired: Sendable {
        let items = Mutex<[(name: String, thread: String?, at: ContinuousClock.Instant)]>([])
        func add(_ name: String) {
            let thread = EventLoop.current?.name
            items.withLock { $0.append((name, thread, .now)) }
        }
        var names: [String] { items.withLock { $0.map(\.name) } }
    }

    /// Sets `action` on `loop` (from its thread), due `after` from now.
    private static func schedule(on loop: EventLoop, after: Duration, _ action: @escaping @Sendable () -> Void) -> LoopTimer {
        loop.runAndWait { EventLoop.schedule(at: .now.advanced(by: after), action) }
    }

    @Test func aTimerRunsOnItsLoopNoSoonerThanItsTime() async {
        let loop = EventLoop(name: "timer-loop")
        defer { loop.shutdown() }
        let fired = Fired()
        let set = ContinuousClock.now
        let timer = Self.schedule(on: loop, after: .milliseconds(80)) { fired.add("due") }
        #expect(timer.loop === loop, "a timer set on a loop went elsewhere")
        #expect(await eventually(5) { fired.names == ["due"] }, "the timer never ran")
        let (_, thread, at) = fired.items.withLock { $0[0] }
        #expect(thread == "timer-loop", "ran on \(thread ?? "no loop")")
        #expect(at - set >= .milliseconds(80), "ran after \(at - set)")
    }

    @Test func aCancelledTimerNeverRunsWhileALaterOneOnTheSameLoopDoes() async {
        let loop = EventLoop(name: "timer-loop")
        defer { loop.shutdown() }
        let fired = Fired()
        let cancelled = Self.schedule(on: loop, after: .milliseconds(30)) { fired.add("cancelled") }
        _ = Self.schedule(on: loop, after: .milliseconds(90)) { fired.add("later") }
        // Cancelled from another thread, as the audit writer cancels a race it won.
        DispatchQueue.global().sync { cancelled.cancel() }
        #expect(await eventually(5) { fired.names.contains("later") }, "the later timer never ran")
        // The cancelled one was due 60 ms before the one that ran.
        #expect(fired.names == ["later"])
        #expect(loop.runAndWait { loop.timers.withLock { $0?.isEmpty } } == true, "the loop still holds a timer")
    }

    @Test func anEarlierTimerSetLaterRunsFirst() async {
        let loop = EventLoop(name: "timer-loop")
        defer { loop.shutdown() }
        let fired = Fired()
        _ = Self.schedule(on: loop, after: .milliseconds(400)) { fired.add("far") }
        _ = Self.schedule(on: loop, after: .milliseconds(20)) { fired.add("near") }
        #expect(await eventually(5) { fired.names.count == 2 })
        #expect(fired.names == ["near", "far"])
    }

    @Test func timersOfALoopThatStopsStillRunOnTheTimerThreadAtTheirTime() async {
        let loop = EventLoop(name: "timer-loop")
        let fired = Fired()
        let set = ContinuousClock.now
        _ = Self.schedule(on: loop, after: .milliseconds(150)) { fired.add("moved") }
        loop.shutdown()
        #expect(await eventually(5) { fired.names == ["moved"] }, "a stopped loop's timer was lost")
        let (_, thread, at) = fired.items.withLock { $0[0] }
        #expect(thread == nil, "ran on \(thread ?? "")")
        #expect(at - set >= .milliseconds(150))
    }

    @Test func aRaceOnALoopResumesOnItAtTheDeadlineAndAWonRaceLeavesNoTimerBehind() async {
        let loop = EventLoop(name: "race-loop")
        defer { loop.shutdown() }
        let (lost, lostOn, won) = await Task(executorPreference: loop) { () -> (Duration, String?, Bool) in
            let began = ContinuousClock.now
            let held = Mutex<(@Sendable (Bool) -> Void)?>(nil)
            let result = await DeadlineRace.shared.race(until: began.advanced(by: .milliseconds(60))) { done in
                held.withLock { $0 = done }
            }
            let lostAfter = ContinuousClock.now - began
            let lostOn = EventLoop.current?.name
            held.withLock { $0.take() }?(true)  // the late answer is ignored
            // Won by the work's answer, from another thread, well before its deadline.
            let won = await DeadlineRace.shared.race(until: .now.advanced(by: .seconds(30))) { done in
                DispatchQueue.global().async { done(true) }
            }
            return (result ? .zero : lostAfter, lostOn, won)
        }.value
        #expect(lost >= .milliseconds(60), "the deadline answered after \(lost)")
        #expect(lostOn == "race-loop")
        #expect(won)
        #expect(loop.runAndWait { loop.timers.withLock { $0?.isEmpty } } == true, "the won race's timer stayed on the loop")
    }

    @Test func theServerAnswersAPassedDeadlineFromTheRequestsLoopAndNeverForAnAnsweredRequest() async throws {
        let answered = Mutex<[(target: String, thread: String?)]>([])
        var configuration = HTTPServerConfiguration()
        configuration.handlerDeadline = .milliseconds(150)
        configuration.failureResponder = { failure, request in
            answered.withLock { $0.append((request.target, EventLoop.current?.name)) }
            return HTTPServerFailure.jsonResponse(failure, for: request)
        }
        let server = try HTTPServer(configuration: configuration) { request in
            if request.path == "/stuck" {
                // A handler that outlives its deadline, suspended (never holding its loop): the
                // slowness under test.
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 2) { done.resume() }
                }
            }
            return HTTPResponse(status: 200)
        }
        let quick = try await RawHTTPClient.send(port: server.port, target: "/quick")
        #expect(quick.status == 200)
        let began = ContinuousClock.now
        let stuck = try await RawHTTPClient.send(port: server.port, target: "/stuck")
        let elapsed = ContinuousClock.now - began
        #expect(stuck.status == 504)
        #expect(elapsed >= .milliseconds(150) && elapsed < .seconds(1.5), "answered after \(elapsed)")
        // The quick request's deadline was due before the stuck one's, which fired.
        let seen = answered.withLock { $0 }
        #expect(seen.map(\.target) == ["/stuck"])
        #expect(seen.first?.thread?.hasPrefix("pb-http-loop-") == true, "answered on \(seen.first?.thread ?? "no loop")")
        await server.stop()
    }
}
