import Glibc

/// The loop the calling thread runs, through a thread-specific key its thread sets.
nonisolated(unsafe) private var currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

extension EventLoop: TaskExecutor {
    /// The key under which a loop's thread keeps its loop.
    static var currentKey: pthread_key_t { currentLoopKey }

    /// The loop whose thread calls this, or nil on any other thread.
    static var current: EventLoop? {
        pthread_getspecific(currentKey).map { Unmanaged<EventLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `job` on the loop's thread; after ``shutdown()``, on Dispatch's global queue, so a
    /// task resumed after its server stopped still runs to its end. Resumed from a thread inside
    /// ``gatheringJobs(_:)`` (the audit writer acknowledging a batch), it is held and handed
    /// over with the others when the gathering ends.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let gathering = EventLoop.gathering {
            gathering.pointee.add(.task(job), for: self)
        } else if !push(.task(job)) {
            runElsewhere(.task(job))
        }
    }
}

extension EventLoop {
    /// Starts `work` as a task on the calling thread's loop (the request then runs on that
    /// thread to its end), or on the global pool when the caller is on no loop. `work` is of
    /// the type `Task` takes (`@isolated(any)`), so it is handed on as it is.
    @discardableResult
    static func spawn(_ work: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if let loop = current { return Task(executorPreference: loop, operation: work) }
        return Task(operation: work)
    }
}
