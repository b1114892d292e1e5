import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// Nothing wakes an event loop per request that the request does not need (issue 31, item 3,
/// in the HTTP server's room): a request read, handled and answered on its loop is woken by
/// its own connection's readiness, never by another thread (``EventLoop/wakes``).
struct LoopWakeTests {
    @Test func theWakeCounterCountsAWakeFromAnotherThread() async {
        let loop = EventLoop(name: "wake-loop")
        defer { loop.shutdown() }
        // Let the loop park, then hand it work from this thread until one wake is counted.
        let woken = await eventually(10) {
            loop.execute {}
            return loop.wakes.load(ordering: .relaxed) > 0
        }
        #expect(woken, "a job from another thread never woke the parked loop")
    }

    /// Waits, polling `/proc` (at most `seconds`), until the thread of this process named
    /// `name` sleeps; whether it did. For a thread that is not a task (the audit writer's).
    static func waitUntilThreadSleeps(_ name: String, seconds: Double) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if threadSleeps(name) { return true }
            // A poll, not a fixed sleep: a thread's sleep state in /proc has no event to wait on.
            usleep(200)
        }
        return false
    }

    /// Whether the thread of this process named `name` sleeps (state `S` in `/proc`).
    static func threadSleeps(_ name: String) -> Bool {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return false }
        for tid in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")"), stat.index(end, offsetBy: 2) < stat.endIndex else { continue }
            return stat[stat.index(end, offsetBy: 2)] == "S"
        }
        return false
    }

    /// A poll the loop asked for itself (a timer or a source calling ``EventLoop/pollSoon()``
    /// on the loop: libmicrohttpd's resume) must not leave it asleep where another thread's
    /// job cannot wake it: it used to set `parked` before running that poll, and then slept in
    /// `epoll_wait(-1)` unparked (a stop hung in ``MHDDaemon/stop()``).
    @Test func aJobFromAnotherThreadWakesTheLoopAfterAPollItAskedItself() async {
        let loop = EventLoop(name: "pb-park-test")
        defer { loop.shutdown() }
        let polled = Atomic(false)
        loop.execute {
            _ = EventLoop.schedule(at: .now) {
                loop.pollSoon()
                polled.store(true, ordering: .releasing)
            }
        }
        #expect(await eventually(10) { polled.load(ordering: .acquiring) }, "the timer never ran")
        #expect(await eventually(10) { Self.threadSleeps("pb-park-test") }, "the loop never went to sleep")
        let ran = Atomic(false)
        loop.execute { ran.store(true, ordering: .releasing) }
        #expect(await eventually(5) { ran.load(ordering: .acquiring) }, "a job from another thread did not wake the loop")
    }

    @Test func requestsAnsweredOnTheirLoopWakeItFromNoOtherThread() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        let server = try HTTPServer(configuration: configuration) { request in
            // A suspension resumed on the same loop, as a pipeline's await is.
            await Task.yield()
            return HTTPResponse(status: 200, body: request.body)
        }
        let loop = server.loops[0]
        let warmUp = try await RawHTTPClient.send(port: server.port, method: "POST", body: Array("first".utf8))
        #expect(warmUp.status == 200)
        let before = loop.wakes.load(ordering: .relaxed)
        for index in 0..<20 {
            let response = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/echo/\(index)", body: Array("body \(index)".utf8))
            #expect(response.status == 200)
            #expect(response.text == "body \(index)")
        }
        let wakes = loop.wakes.load(ordering: .relaxed) - before
        #expect(wakes == 0, "20 requests woke their loop \(wakes) times from another thread")
        await server.stop()
    }
}
