import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// The one timer thread that races audit completions against their budget.
@Suite struct DeadlineRaceTests {
    /// A callback kept for later, so a test decides when (or whether) the work finishes.
    final class Held: Sendable {
        let done = Mutex<(@Sendable (Bool) -> Void)?>(nil)
        func finish(_ value: Bool) { done.withLock { $0.take() }?(value) }
    }

    /// The order races were decided in.
    final class Order: Sendable { let items = Mutex<[String]>([]) }

    @Test func theWorksAnswerWinsWhenItComesFirst() async {
        let far = ContinuousClock.now.advanced(by: .seconds(30))
        let yes = await DeadlineRace.shared.race(until: far) { done in done(true) }
        let no = await DeadlineRace.shared.race(until: far) { done in
            DispatchQueue.global().async { done(false) }
        }
        #expect(yes && !no, "the work's own answer is returned")
    }

    @Test func aPassedDeadlineAnswersFalseWithoutWaitingForTheWorkAndALateAnswerIsIgnored() async {
        let held = Held()
        let began = ContinuousClock.now
        let result = await DeadlineRace.shared.race(until: began.advanced(by: .milliseconds(100))) { done in
            held.done.withLock { $0 = done }
        }
        #expect(!result)
        #expect(ContinuousClock.now - began >= .milliseconds(100), "answered before its deadline")
        held.finish(true)  // the late answer must not resume the caller a second time (that would trap)
    }

    @Test func anEarlierDeadlineRegisteredLaterIsNotHeldBehindALaterOne() async {
        let order = Order()
        let far = Held()
        let began = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = await DeadlineRace.shared.race(until: began.advanced(by: .seconds(3))) { done in far.done.withLock { $0 = done } }
                order.items.withLock { $0.append("far") }
            }
            group.addTask {
                // Registered after the far one has gone to sleep on its 3 s deadline.
                _ = await eventually { far.done.withLock { $0 != nil } }
                _ = await DeadlineRace.shared.race(until: ContinuousClock.now.advanced(by: .milliseconds(50))) { _ in }
                order.items.withLock { $0.append("near") }
                far.finish(true)
            }
        }
        #expect(order.items.withLock { $0 } == ["near", "far"])
        #expect(ContinuousClock.now - began < .seconds(2), "the near deadline waited for the far one")
    }
}
