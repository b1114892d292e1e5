import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
@testable import PushBridgeServer

/// The event loop a request runs on: its tasks stay on its thread, across waits resumed from
/// other threads, and a descriptor attached to it is served when readable or due.
struct EventLoopTests {
    @Test func aTaskOnTheLoopResumesOnTheLoopAfterAnotherThreadWakesIt() async {
        let loop = EventLoop(name: "test-loop")
        defer { loop.shutdown() }
        let seen = await Task(executorPreference: loop) { () -> [String?] in
            let before = EventLoop.current?.name
            // Resumed from a Dispatch thread, as the audit writer or libcurl's thread resumes a request.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { done.resume() }
            }
            let after = EventLoop.current?.name
            // A timer's resumption must come back to the loop too: the sleep is what is tested here.
            try? await Task.sleep(for: .milliseconds(5))
            return [before, after, EventLoop.current?.name]
        }.value
        #expect(seen == ["test-loop", "test-loop", "test-loop"])
    }

    @Test func anAttachedDescriptorIsServedWhenReadableAndItsTimeoutWhenDue() async {
        let loop = EventLoop(name: "test-loop")
        defer { loop.shutdown() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let (reader, writer) = (fds[0], fds[1])
        let runs = Atomic(0)
        let readBytes = Atomic(0)
        loop.execute {
            // Due every 10 ms: runs keep coming with nothing to read.
            loop.attach(fd: reader, timeout: { 10 }) {
                runs.add(1, ordering: .relaxed)
                var byte: UInt8 = 0
                var available: Int32 = 0
                if ioctl(reader, UInt(FIONREAD), &available) == 0, available > 0, read(reader, &byte, 1) == 1 {
                    readBytes.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(await eventually(5) { runs.load(ordering: .relaxed) >= 5 }, "a due timeout never ran its source")
        var byte: UInt8 = 7
        #expect(write(writer, &byte, 1) == 1)
        #expect(await eventually(5) { readBytes.load(ordering: .relaxed) == 1 }, "a readable descriptor was not served")
        loop.runAndWait { loop.detach(fd: reader) }
    }

    @Test func aTaskResumedAfterItsLoopStoppedStillFinishes() async {
        let loop = EventLoop(name: "test-loop")
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let task = Task(executorPreference: loop) { () -> Bool in
            await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
            return EventLoop.current == nil
        }
        #expect(await eventually(5) { gate.withLock { $0 != nil } })
        loop.shutdown()
        gate.withLock { $0?.resume() }
        #expect(await task.value, "a task resumed after its loop stopped ran nowhere or on the stopped loop")
    }
}
