import CMicroHTTPD
import Glibc

extension EventLoop {
    /// A descriptor ``watch(fd:readable:writable:run:)`` watches: what runs when it is ready,
    /// and for what it is watched (what `run` is told is ready). `run` is stored in a struct:
    /// a function value stored straight in a dictionary is re-wrapped on the way in and out,
    /// a new closure context each way.
    struct Watch {
        /// Runs on readiness with the descriptor and what it was watched for; nil while
        /// parked (``park(fd:)``).
        let run: ((_ fd: Int32, _ readable: Bool, _ writable: Bool) -> Void)?
        /// Watched for reading.
        let readable: Bool
        /// Watched for writing.
        let writable: Bool
    }

    /// Watches `fd` for reading and/or writing (no timeout, no first run): `run` is called on
    /// the loop's thread when it is ready, with `fd` and what it is watched for (a descriptor
    /// watched for one of the two and reported ready is ready for that one). Called again
    /// for a watched `fd`, changes what is watched and what runs. Call on the loop's thread.
    ///
    /// Give the same `run` every time (one made once): a closure made per call is an
    /// allocation per call.
    func watch(fd: Int32, readable: Bool, writable: Bool, run: @escaping (_ fd: Int32, _ readable: Bool, _ writable: Bool) -> Void) {
        precondition(inLoop, "watch on the loop's thread")
        let known = watched[fd] != nil
        watchChanges += 1
        if pb_epoll_watch(epoll, fd, readable ? 1 : 0, writable ? 1 : 0, known ? 1 : 0) != 0 {
            watchChanges += 1
            // ENOENT: the descriptor was closed (which leaves the epoll) and its number reused;
            // EEXIST: added by someone else. Either way the other operation is the right one.
            let retry: Int32 = errno == ENOENT ? 0 : errno == EEXIST ? 1 : -1
            if retry >= 0 { _ = pb_epoll_watch(epoll, fd, readable ? 1 : 0, writable ? 1 : 0, retry) }
        }
        watched[fd] = Watch(run: run, readable: readable, writable: writable)
    }

    /// Stops watching `fd`, attached or watched. Call on the loop's thread.
    func detach(fd: Int32) {
        precondition(inLoop, "detach on the loop's thread")
        _ = pb_epoll_remove(epoll, fd)
        if watched.removeValue(forKey: fd) == nil { sources.removeAll { $0.fd == fd } } else { watchChanges += 1 }
    }

    /// Stops running anything for the watched `fd` but leaves it in the epoll for what it was
    /// watched for (no system call): a socket libcurl keeps for its next call is watched
    /// again then with one `EPOLL_CTL_MOD`, where a removal now and an addition then were two.
    /// Should it turn ready meanwhile (the peer closed it), the loop removes it then; closed,
    /// it leaves the epoll by itself (and a later ``watch(fd:readable:writable:run:)`` of its
    /// number adds it again). Call on the loop's thread.
    func park(fd: Int32) {
        precondition(inLoop, "park on the loop's thread")
        guard let watch = watched[fd] else { return }
        watched[fd] = Watch(run: nil, readable: watch.readable, writable: watch.writable)
    }

    /// Runs the watched descriptors among `ready` (one lookup each); removes a parked one.
    func runWatched(_ ready: ArraySlice<Int32>) {
        for fd in ready {
            guard let watch = watched[fd] else { continue }
            if let run = watch.run { run(fd, watch.readable, watch.writable) } else { detach(fd: fd) }
        }
    }
}
