/// A timer set by ``EventLoop/schedule(at:_:)``, kept to cancel it.
struct LoopTimer: Sendable {
    /// The loop whose timers hold it; nil when it is on the ``TimerThread``.
    let loop: EventLoop?
    let id: UInt64

    /// Removes the timer if it has not run: from any thread, waking no one.
    func cancel() {
        if let loop { loop.timers.withLock { $0?.cancel(id) } } else { TimerThread.shared.cancel(id) }
    }
}

extension EventLoop {
    /// Runs `action` at `due` on the calling thread's loop: the loop's `epoll_wait` times out
    /// at the earliest timer (no thread, descriptor or wake-up of its own). On no loop, or on
    /// one that stopped, the ``TimerThread`` runs it. Timers a loop still holds when it stops
    /// move to the ``TimerThread`` with their due times.
    static func schedule(at due: ContinuousClock.Instant, _ action: @escaping DeadlineHeap.Action) -> LoopTimer {
        if let loop = current, let id = loop.timers.withLock({ $0?.add(due, action) }) {
            return LoopTimer(loop: loop, id: id)
        }
        return LoopTimer(loop: nil, id: TimerThread.shared.schedule(at: due, action))
    }

    /// Milliseconds until the loop's earliest timer, rounded up (0 if it is due, -1 if none:
    /// then the clock is not read).
    func timerTimeout() -> Int32 {
        guard let next = timers.withLock({ $0?.nextDue() }) else { return -1 }
        let now = ContinuousClock.now
        guard next > now else { return 0 }
        let (seconds, attoseconds) = now.duration(to: next).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Runs the timers that are due, on the loop's thread.
    func runDueTimers() {
        let now = ContinuousClock.now
        let due = timers.withLock { $0?.takeDueApart(now) ?? DeadlineHeap.DueActions() }
        due.run()
    }

    /// The loop stopped: its timers move to the ``TimerThread``, and later ones go there.
    func handTimersOver() {
        let left = timers.withLock { timers -> [(due: ContinuousClock.Instant, action: DeadlineHeap.Action)] in
            defer { timers = nil }
            return timers?.takeAll() ?? []
        }
        for timer in left { _ = TimerThread.shared.schedule(at: timer.due, timer.action) }
    }
}
