import Dispatch
import Glibc

/// What a thread gathering jobs (``EventLoop/gatheringJobs(_:)``) holds: for each loop a task
/// was resumed on, in order of first use, its jobs in the order they were given. Not
/// `Sendable`: only the thread running the gathering touches it, on its own stack. The usual
/// gathering (one lone caller's acknowledgement: one job for one loop) is held without an
/// array; a second job or loop moves it into ``loops``.
struct EventLoopGathering {
    /// The only job given so far, with its loop (nil once a second came, or before the first).
    var first: (loop: EventLoop, job: EventLoop.Job)?
    /// The loops given jobs, each with its jobs, once there was more than one job.
    var loops: [(loop: EventLoop, jobs: [EventLoop.Job])] = []

    /// Keeps `job` for `loop` until the gathering ends.
    mutating func add(_ job: EventLoop.Job, for loop: EventLoop) {
        if loops.isEmpty {
            guard let held = first else {
                first = (loop, job)
                return
            }
            first = nil
            loops.append((held.loop, [held.job]))
        }
        if let index = loops.firstIndex(where: { $0.loop === loop }) {
            loops[index].jobs.append(job)
        } else {
            loops.append((loop, [job]))
        }
    }

    /// Hands every job held to its loop: each loop's under one lock, waking it at most once.
    func handOver() {
        if let first {
            if !first.loop.push(first.job) { first.loop.runElsewhere(first.job) }
        }
        for (loop, jobs) in loops { loop.push(contentsOf: jobs) }
    }
}

/// The gathering the calling thread runs, through a thread-specific key.
nonisolated(unsafe) private var gatheringKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

extension EventLoop {
    /// Runs `body`, and hands every task it resumes on a loop (a continuation resumed from this
    /// thread: the audit writer acknowledging a batch) to that loop when it returns, all at
    /// once: one lock of the loop's queue and at most one wake of its thread for all of them,
    /// instead of one push each (each of which may find the loop parked again, having run the
    /// previous one, and wake it once more). Tasks resumed on no loop are not held. Nested
    /// calls join the outer one.
    static func gatheringJobs(_ body: () -> Void) {
        if pthread_getspecific(gatheringKey) != nil { return body() }
        // On this thread's stack, its address in the key while `body` runs (no object per gathering).
        var gathering = EventLoopGathering()
        withUnsafeMutablePointer(to: &gathering) { pointer in
            pthread_setspecific(gatheringKey, pointer)
            body()
            pthread_setspecific(gatheringKey, nil)
        }
        gathering.handOver()
    }

    /// The calling thread's gathering, if it is inside ``gatheringJobs(_:)``: valid until
    /// that call's `body` returns, on this thread only.
    static var gathering: UnsafeMutablePointer<EventLoopGathering>? {
        pthread_getspecific(gatheringKey).map { $0.assumingMemoryBound(to: EventLoopGathering.self) }
    }

    /// Queues `jobs` under one lock, waking the thread at most once if it sleeps; once the loop
    /// has stopped, runs them where a stopped loop's jobs run (``enqueue(_:)``, ``execute(_:)``).
    func push(contentsOf jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        let wake = queue.withLock { queue -> Bool? in
            if queue.stopped { return nil }
            queue.jobs.append(contentsOf: jobs)
            defer { queue.parked = false }
            return queue.parked
        }
        guard let wake else {
            for job in jobs { runElsewhere(job) }
            return
        }
        if wake { signal() }
    }

    /// Runs `job` where a stopped loop's jobs run: a closure on the calling thread, a task on
    /// Dispatch's global queue (so a task resumed after its server stopped still finishes).
    func runElsewhere(_ job: Job) {
        switch job {
        case let .task(job): DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        case let .closure(work): work()
        }
    }
}
