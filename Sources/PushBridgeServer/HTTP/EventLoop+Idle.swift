import Glibc

extension EventLoop {
    /// Whether the job running now is all this loop has to do: at most one request in flight
    /// on it (the caller's own, counted in ``exchangesOpen``), no other job waiting (later in
    /// the batch it runs, or queued since), no poll of its sources asked (a resumed connection
    /// to answer), and none of its descriptors ready (a request or a connection waiting to be
    /// read, an upstream's answer, a wake from another thread). Call on the loop's thread.
    ///
    /// What asks it: the audit writer, before a loop commits its own lone operation
    /// (``AuditWriter/submit(_:)``, `AuditWriter+Loop.swift`): a loop that blocks in
    /// `fdatasync` holds up everything else it serves, so it does so only when there is
    /// nothing else. The cheap checks go first; the last is one `poll` of the loop's epoll
    /// descriptor with no timeout (readable when any descriptor it watches is ready).
    var hasNothingElseToDo: Bool {
        precondition(inLoop, "hasNothingElseToDo on the loop's thread")
        guard exchangesOpen.load(ordering: .relaxed) <= 1, jobsLeftInBatch == 0,
              !pollRequested.load(ordering: .acquiring),
              queue.withLock({ $0.jobs.isEmpty }) else { return false }
        var ready = pollfd(fd: epoll, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) == 0
    }
}
