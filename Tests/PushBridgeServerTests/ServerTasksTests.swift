import Dispatch
import Synchronization
import Testing
@testable import PushBridgeServer

/// ``ServerTasks``: every task the HTTP server starts is tracked, and a stopped server leaves
/// none running (issue 31, item 4).
struct ServerTasksTests {
    /// A wait that ignores cancellation, as a handler stuck in a call that cannot be
    /// interrupted: it ends `after` from now whatever happens (the behaviour under test).
    private static func uncancellableWait(_ after: Duration, then done: @escaping @Sendable () -> Void) async {
        let (seconds, attoseconds) = after.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                done()
                continuation.resume()
            }
        }
    }

    @Test func endedWaitsForTheLastTaskAndSaysWhenOneOutlivesTheLimit() async {
        let tasks = ServerTasks()
        let release = AsyncGate()
        tasks.spawn { await release.wait() }
        #expect(tasks.running == 1)
        #expect(await tasks.ended(within: .milliseconds(50)) == false, "a running task was reported ended")
        release.open()
        #expect(await tasks.ended(within: .seconds(30)), "the task never ended")
        #expect(tasks.running == 0)
    }

    /// A task whose body the caller writes itself (the handler's: ``ServerTasks/register()``,
    /// ``ServerTasks/hold(_:id:)``, ``ServerTasks/ended(_:)``) is tracked as ``ServerTasks/spawn(_:)``
    /// tracks its own: counted from its registration, cancelled by ``ServerTasks/cancelAll()``
    /// (also when it is held after it), waited for until it ends.
    @Test func aTaskRegisteredAndHeldIsTrackedLikeASpawnedOne() async {
        let tasks = ServerTasks()
        let release = AsyncGate()
        let id = tasks.register()
        #expect(tasks.running == 1, "a registered task is not counted")
        let held = tasks.hold(Task {
            await release.wait()
            tasks.ended(id)
        }, id: id)
        #expect(await tasks.ended(within: .milliseconds(50)) == false, "a held task was reported ended")
        tasks.cancelAll()
        #expect(held.isCancelled, "cancelAll did not cancel a held task")
        // Registered after the cancellation: cancelled as soon as it is held.
        let late = tasks.register()
        let lateTask = tasks.hold(Task { tasks.ended(late) }, id: late)
        #expect(lateTask.isCancelled, "a task held after cancelAll was not cancelled")
        release.open()
        #expect(await tasks.ended(within: .seconds(30)), "the tasks never ended")
        #expect(tasks.running == 0)
    }

    @Test func aStoppedServerLeavesNoTaskOfItsOwnRunning() async throws {
        let entered = Mutex(false)
        let handlerEnded = Mutex(false)
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        let server = try HTTPServer(configuration: configuration) { _ in
            entered.withLock { $0 = true }
            // Cancelled when the stop answers it 503, the handler goes on until this ends.
            await Self.uncancellableWait(.milliseconds(400)) { handlerEnded.withLock { $0 = true } }
            return HTTPResponse(status: 200)
        }
        async let response = RawHTTPClient.send(port: server.port, target: "/held")
        #expect(await eventually(10) { entered.withLock { $0 } }, "the request never reached its handler")
        #expect(server.core.tasks.running == 1)
        await server.stop(gracePeriod: .milliseconds(10))
        // After the stop: the handler it answered 503 has ended, and nothing of the server runs.
        #expect(handlerEnded.withLock { $0 }, "stop returned while the handler still ran")
        #expect(server.core.tasks.running == 0, "tasks left running after stop")
        let answered = try await response
        #expect(answered.status == 503)
    }
}
