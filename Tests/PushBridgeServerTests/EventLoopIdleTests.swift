import Glibc
import Testing
@testable import PushBridgeServer

/// What an event loop counts as "something else to do" (``EventLoop/hasNothingElseToDo``), the
/// signal a loop's own audit commit waits for (issue 31, item 3): another request in flight on
/// it, another job queued for it, or a descriptor it watches ready to be read.
struct EventLoopIdleTests {
    /// Inside one job, each kind of other work turns the answer to false, and its end back to true.
    @Test func eachKindOfOtherWorkMakesALoopBusy() async throws {
        let loop = EventLoop(name: "pb-idle-test")
        defer { loop.shutdown() }
        var pipe: [Int32] = [-1, -1]
        #expect(Glibc.pipe(&pipe) == 0)
        let (reading, writing) = (pipe[0], pipe[1])
        defer { close(reading); close(writing) }
        let answers = await loop.run { () -> [String: Bool] in
            var answers: [String: Bool] = [:]
            loop.attach(fd: reading, timeout: { -1 }, run: {})
            answers["alone"] = loop.hasNothingElseToDo
            var byte: UInt8 = 1
            _ = write(writing, &byte, 1)
            answers["readable descriptor"] = loop.hasNothingElseToDo
            _ = read(reading, &byte, 1)
            answers["descriptor read"] = loop.hasNothingElseToDo
            let own = HTTPExchange(target: "/own", loop: loop)
            answers["its own request"] = loop.hasNothingElseToDo
            var other: HTTPExchange? = HTTPExchange(target: "/other", loop: loop)
            answers["another request"] = loop.hasNothingElseToDo
            other?.loop?.exchangesOpen.subtract(1, ordering: .relaxed)
            other = nil
            answers["the other completed"] = loop.hasNothingElseToDo
            own.loop?.exchangesOpen.subtract(1, ordering: .relaxed)
            loop.execute {}
            answers["a job queued"] = loop.hasNothingElseToDo
            loop.detach(fd: reading)
            return answers
        }
        #expect(answers == ["alone": true, "readable descriptor": false, "descriptor read": true,
                            "its own request": true, "another request": false, "the other completed": true,
                            "a job queued": false])
    }

    /// A request's exchange is counted on the loop that read it from its request line until
    /// libmicrohttpd's completion notice: a real server on one loop, one request held in its
    /// handler, then answered.
    @Test func aServerCountsItsOpenRequestsOnTheirLoop() async throws {
        let gate = AsyncGate()
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        let server = try HTTPServer(configuration: configuration) { _ in
            await gate.wait()
            return HTTPResponse(status: 204)
        }
        let loop = server.loops[0]
        let held = Task { try await RawHTTPClient.send(port: server.port, method: "POST", target: "/hold").status }
        #expect(await eventually(10) { loop.exchangesOpen.load(ordering: .relaxed) == 1 }, "the request was never counted")
        gate.open()
        #expect(try await held.value == 204)
        #expect(await eventually(10) { loop.exchangesOpen.load(ordering: .relaxed) == 0 }, "the answered request stayed counted")
        await server.stop()
    }

    /// When a loop counts the CPU as scarce (``EventLoop/hasCPUToSpare``, which keeps loop commits
    /// on the writer thread on a saturated host): over 5 % of the time spent waiting for a CPU,
    /// at over 60 µs a wait, turns it scarce; only under 1 % of the time or under 40 µs a wait
    /// turns it plentiful again (a loop whose commits went to the writer waits less, and would
    /// otherwise switch back and forth; but it is woken more often, and short waits for each
    /// wake-up are no sign of a busy CPU).
    @Test func theCPUIsScarceWhenTheLoopWaitsForIt() {
        let interval = Duration.milliseconds(100)
        let ms: UInt64 = 1_000_000
        #expect(!EventLoop.isScarce(waitedNs: 0, slices: 0, over: interval, wasScarce: false))
        #expect(!EventLoop.isScarce(waitedNs: 4 * ms, slices: 10, over: interval, wasScarce: false))
        #expect(EventLoop.isScarce(waitedNs: 20 * ms, slices: 100, over: interval, wasScarce: false), "20 % of the time waiting, 200 µs a wait")
        #expect(!EventLoop.isScarce(waitedNs: 20 * ms, slices: 1_000, over: interval, wasScarce: false), "20 µs a wait is a wake-up's latency")
        #expect(!EventLoop.isScarce(waitedNs: 15 * ms, slices: 300, over: interval, wasScarce: false), "50 µs a wait does not turn it scarce")
        #expect(EventLoop.isScarce(waitedNs: 5 * ms, slices: 100, over: interval, wasScarce: true), "5 % at 50 µs a wait is not plentiful again")
        #expect(!EventLoop.isScarce(waitedNs: 15 * ms, slices: 500, over: interval, wasScarce: true), "15 % at 30 µs a wait (the writer's mode at one connection) is plentiful again")
        #expect(!EventLoop.isScarce(waitedNs: ms / 2, slices: 1, over: interval, wasScarce: true))
        #expect(EventLoop.isScarce(waitedNs: 20 * ms, slices: 0, over: interval, wasScarce: false), "a wait not yet ended counts as one")
        #expect(!EventLoop.isScarce(waitedNs: 20 * ms, slices: 1, over: .zero, wasScarce: false), "no time passed, nothing said")
    }

    /// A loop reads its thread's wait for a CPU from the kernel, and an idle loop on this
    /// machine has the CPU to spare the first time it asks (nothing measured yet).
    @Test func aLoopReadsItsThreadsWaitForACPU() async {
        let loop = EventLoop(name: "pb-cpu-test")
        defer { loop.shutdown() }
        let (read, spare) = await loop.run { (EventLoop.threadSchedstat(), loop.hasCPUToSpare) }
        #expect(read != nil, "/proc/thread-self/schedstat was not read")
        #expect((read?.slices ?? 0) > 0, "a running thread was given a CPU at least once")
        #expect(spare)
    }
}
