import CMicroHTTPD
import Dispatch
import Foundation
import Glibc
import Synchronization

/// One thread that waits in `epoll` for the file descriptors attached to it (a libmicrohttpd
/// daemon's epoll descriptor, say), runs their work on readiness or when their timeout passes,
/// and its timers (``schedule(at:_:)``), and runs the jobs given to it: closures
/// (``execute(_:)``) and Swift tasks, for it is a `TaskExecutor` (``EventLoop+Executor.swift``):
/// a task started with `Task(executorPreference: loop)` runs on this thread, and so does every
/// continuation of it that is resumed elsewhere (an audit acknowledgement, a libcurl answer),
/// woken through an eventfd. SwiftNIO's event loops work this way.
///
/// What is attached is touched only on the loop's thread (attach and detach from a job), so a
/// library that is not thread-safe (libmicrohttpd's external polling mode) is only ever driven
/// from one thread.
///
/// Why `@unchecked Sendable` is sound: the job queue and the timers are in a `Mutex`;
/// ``sources``, ``watched``, ``watchChanges``, ``jobsLeftInBatch``, ``cpuSample`` and ``cpuScarce`` are read and written only
/// on the loop's thread; ``exchangesOpen`` is atomic; the descriptors are immutable.
final class EventLoop: @unchecked Sendable {
    /// A job waiting for the thread.
    enum Job {
        case task(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// The queue of jobs and whether the thread sleeps in `epoll_wait`.
    struct Queue {
        var jobs: [Job] = []
        /// The thread sleeps (or is about to) and must be woken through the eventfd.
        var parked = false
        /// ``shutdown()`` was called: jobs run elsewhere from now on.
        var stopped = false
    }

    /// A descriptor the loop watches for reading, with what to run when it is readable and
    /// how long it may wait at most (milliseconds, -1: no limit).
    struct Source {
        let fd: Int32
        let timeout: () -> Int32
        let run: () -> Void
    }

    /// The loop's name (its thread's name).
    let name: String
    let queue = Mutex(Queue())
    let epoll: Int32
    let wakeFD: Int32
    /// Attached descriptors; only on the loop's thread.
    var sources: [Source] = []
    /// Descriptors watched with ``watch(fd:readable:writable:run:)`` (libcurl's sockets), by
    /// descriptor: found by the descriptor `epoll_wait` reports, not by a walk over all of
    /// them each turn; only on the loop's thread.
    var watched: [Int32: Watch] = [:]
    /// `epoll_ctl` calls made for ``watched`` descriptors so far (what parking saves shows
    /// here); only on the loop's thread.
    var watchChanges = 0
    /// State other parts keep per loop (libcurl's multi handle of an upstream client), by key;
    /// only on the loop's thread. Each is told when the loop stops, on its thread.
    var locals: [UInt64: any EventLoopLocal] = [:]
    /// Timers set on the loop (``schedule(at:_:)``): added and run on the loop's thread,
    /// cancelled from any; nil once the loop has stopped and handed them over.
    let timers = Mutex<DeadlineHeap?>(DeadlineHeap())
    /// ``pollSoon()`` was asked and the sources have not run since.
    let pollRequested = Atomic(false)
    /// How often another thread woke the loop through its eventfd (``signal()``): what a
    /// request costs the loop beyond its own descriptors' readiness.
    let wakes = Atomic(0)
    /// Requests read on this loop between their request line and libmicrohttpd's completion
    /// notice (``HTTPExchange/loop``): what ``hasNothingElseToDo`` counts as in flight.
    let exchangesOpen = Atomic(0)
    /// Jobs of the batch the thread runs now that come after the running one; only on the
    /// loop's thread (``serve()``).
    var jobsLeftInBatch = 0
    /// The last reading of the thread's wait for a CPU, and whether it said the CPU is scarce
    /// (``hasCPUToSpare``); only on the loop's thread.
    var cpuSample: CPUWaitSample?
    var cpuScarce = false
    /// Signalled when the thread has left its loop.
    private let exited = DispatchSemaphore(value: 0)

    /// Starts the loop's thread, named `name`.
    init(name: String) {
        self.name = name
        epoll = pb_epoll_create()
        wakeFD = pb_eventfd()
        precondition(epoll >= 0 && wakeFD >= 0, "epoll and eventfd (errno \(errno))")
        _ = pb_epoll_add(epoll, wakeFD)
        let thread = Thread { [self] in
            pthread_setspecific(EventLoop.currentKey, Unmanaged.passUnretained(self).toOpaque())
            // The name `top -H` and /proc/<pid>/task/*/comm show (at most 15 bytes).
            pb_thread_name(name)
            serve()
            let stopping = locals
            locals = [:]
            for local in stopping.values { local.loopStopped() }
            handTimersOver()
            pthread_setspecific(EventLoop.currentKey, nil)
            exited.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        close(epoll)
        close(wakeFD)
    }

    /// Whether the calling thread is this loop's.
    var inLoop: Bool { EventLoop.current === self }

    /// Runs `work` on the loop's thread soon (at once on the caller's after ``shutdown()``).
    func execute(_ work: @escaping @Sendable () -> Void) {
        if !push(.closure(work)) { work() }
    }

    /// Runs `work` on the loop's thread and waits for it (inline when called on that thread or
    /// after ``shutdown()``).
    func runAndWait<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        if inLoop { return work() }
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        execute {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Watches `fd` for reading: `run` is called on the loop's thread when it is readable or
    /// when `timeout` (milliseconds, -1 for none, asked before each wait) has passed. Call on
    /// the loop's thread.
    func attach(fd: Int32, timeout: @escaping () -> Int32, run: @escaping () -> Void) {
        precondition(inLoop, "attach on the loop's thread")
        // A parked descriptor of that number was closed (a new one could not have it): forget it.
        watched[fd] = nil
        _ = pb_epoll_add(epoll, fd)
        sources.append(Source(fd: fd, timeout: timeout, run: run))
        // A first run: a source may set up what its descriptor watches only then.
        run()
    }

    /// Runs every attached source once, soon, on the loop's thread: for a library that does
    /// not signal its descriptor for everything it must do (libmicrohttpd after a resume).
    /// Requests made before the loop gets to it are served by one run.
    func pollSoon() {
        guard !pollRequested.exchange(true, ordering: .acquiringAndReleasing), !inLoop else { return }
        let wake = queue.withLock { queue -> Bool in
            defer { queue.parked = false }
            return queue.parked
        }
        if wake { signal() }
    }

    /// Ends the thread once the jobs queued now have run; waits for it unless called on it.
    /// Jobs given later run elsewhere (closures on the caller's thread, tasks on Dispatch's
    /// global queue), so a task that resumes after the server stopped still finishes.
    func shutdown() {
        let wake = queue.withLock { queue -> Bool in
            guard !queue.stopped else { return false }
            queue.stopped = true
            return true
        }
        guard wake else { return }
        signal()
        if !inLoop { exited.wait() }
    }

    /// Queues `job`, waking the thread if it sleeps; false once stopped.
    func push(_ job: Job) -> Bool {
        let wake = queue.withLock { queue -> Bool? in
            if queue.stopped { return nil }
            queue.jobs.append(job)
            defer { queue.parked = false }
            return queue.parked
        }
        guard let wake else { return false }
        if wake { signal() }
        return true
    }

    /// Wakes the thread from `epoll_wait` through the eventfd.
    func signal() {
        wakes.add(1, ordering: .relaxed)
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }
}

extension EventLoop {
    /// Runs `work` on the loop's thread and returns its result, suspending the caller (not
    /// blocking its thread) meanwhile.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        if inLoop { return work() }
        return await withCheckedContinuation { continuation in
            execute { continuation.resume(returning: work()) }
        }
    }
}

/// State kept per loop by another part (``EventLoop/locals``), told when its loop stops.
protocol EventLoopLocal: AnyObject {
    /// The loop's thread has left its loop: finish or fail what is in flight. Runs on that thread.
    func loopStopped()
}
