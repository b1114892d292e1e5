@testable import PushBridgeServer
import Synchronization
import Testing

/// The shadow queue's paced lane: OpenPush halves waiting for a pacer slot live sends do not
/// need never hold a worker, so the other shadows keep running; the lane is bounded too.
struct ShadowQueueLaneTests {
    @Test func shadowsWaitingForTheirBudgetNeitherHoldAWorkerNorGrowWithoutLimit() async {
        let metrics = Metrics()
        let queue = ShadowQueue(limit: 2, workers: 1, metrics: metrics)
        let released = AsyncGate(), waited = Mutex(0), ran = Mutex(false)
        for _ in 0..<2 {
            #expect(queue.submitPaced {
                await released.wait()
                waited.withLock { $0 += 1 }
            })
        }
        #expect(!queue.submitPaced {}, "the paced lane took more than its limit")
        #expect(metrics.render().contains("pushbridge_shadow_dropped_total 1"))
        // The only worker is free: a legacy half (or a shadow to a sandbox) runs while both wait.
        #expect(queue.submit { ran.withLock { $0 = true } })
        #expect(await eventually(10) { ran.withLock { $0 } }, "a shadow waiting for its pacer slot held the worker")
        #expect(await eventually(10) { queue.depth == 2 }, "the two waiting shadows are what the queue holds")
        #expect(waited.withLock { $0 } == 0)
        released.open()
        #expect(await eventually(10) { waited.withLock { $0 } == 2 && queue.depth == 0 })
    }
}
