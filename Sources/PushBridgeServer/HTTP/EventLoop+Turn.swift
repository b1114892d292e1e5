import CMicroHTTPD
import Glibc

extension EventLoop {
    /// The thread: run the jobs queued, then wait for a descriptor, the earliest timeout of
    /// the sources and timers, or a wake; run the timers that are due, then the sources that
    /// are readable or due.
    func serve() {
        var ready = [Int32](repeating: -1, count: 64)
        var timeouts: [Int32] = []
        // The jobs of a turn: swapped with the queue's (empty) array, run, then emptied in
        // place for the next swap; taking a copy and emptying the queue's instead made the
        // queue's array a new allocation every turn that ran a job.
        var batch: [Job] = []
        let clock = ContinuousClock()
        while true {
            let stopped = queue.withLock { queue -> Bool in
                swap(&queue.jobs, &batch)
                return queue.stopped
            }
            for (index, job) in batch.enumerated() {
                jobsLeftInBatch = batch.count - index - 1
                runJob(job)
            }
            if stopped && batch.isEmpty { return }
            let ranJobs = !batch.isEmpty
            batch.removeAll(keepingCapacity: true)
            if pollRequested.exchange(false, ordering: .acquiringAndReleasing) {
                for source in sources { source.run() }
            }
            var timeout: Int32 = ranJobs ? 0 : -1
            timeouts.removeAll(keepingCapacity: true)
            for source in sources {
                let t = source.timeout()
                timeouts.append(t)
                if t >= 0 { timeout = timeout < 0 ? t : min(timeout, t) }
            }
            let timer = timerTimeout()
            if timer >= 0 { timeout = timeout < 0 ? timer : min(timeout, timer) }
            // Parks (a job or a poll asked from now on wakes it through the eventfd) only with
            // nothing queued and no poll asked since the sources ran; else it does not sleep.
            // Decided here, after the sources ran, so a poll asked while they ran is not lost.
            var parked = false
            if timeout != 0 {
                parked = queue.withLock { queue -> Bool in
                    guard queue.jobs.isEmpty, !queue.stopped, !pollRequested.load(ordering: .acquiring) else { return false }
                    queue.parked = true
                    return true
                }
                if !parked { timeout = 0 }
            }
            let start = timeout > 0 ? clock.now : nil
            let count = Int(pb_epoll_wait(epoll, &ready, Int32(ready.count), timeout))
            if parked { queue.withLock { $0.parked = false } }
            if ready.prefix(count).contains(wakeFD) {
                var value: UInt64 = 0
                _ = Glibc.read(wakeFD, &value, 8)
            }
            // A timer set since the wait began (by a job or source) is not due yet.
            if timer >= 0 { runDueTimers() }
            var waitedMs: Int32 = 0
            if let start {
                let waited = start.duration(to: clock.now).components
                waitedMs = Int32(clamping: waited.seconds * 1000 + waited.attoseconds / 1_000_000_000_000_000)
            }
            for (index, source) in sources.enumerated() where index < timeouts.count {
                let due = timeouts[index] >= 0 && timeouts[index] <= waitedMs
                if due || ready.prefix(count).contains(source.fd) { source.run() }
            }
            if !watched.isEmpty { runWatched(ready.prefix(count)) }
        }
    }

    private func runJob(_ job: Job) {
        switch job {
        case let .task(job): job.runSynchronously(on: asUnownedTaskExecutor())
        case let .closure(work): work()
        }
    }
}
