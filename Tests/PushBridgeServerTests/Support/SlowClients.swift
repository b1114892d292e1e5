import Foundation
import Glibc
import Synchronization

/// Many connections to 127.0.0.1 that send a partial request head and then nothing (the
/// slowloris pattern). Blocking calls run on their own thread, never on the cooperative pool.
final class SlowClients: @unchecked Sendable {
    /// The open sockets; touched only by `open`, `countClosedByPeer` and `close`, which the test
    /// calls one after another.
    private var descriptors: [Int32] = []

    /// Opens `count` connections (bounded by `deadline` seconds) and sends `partialHead` on each;
    /// returns how many are open.
    func open(count: Int, port: UInt16, partialHead: String, deadline: Double = 20) async -> Int {
        await onThread { [self] in
            let end = Date().addingTimeInterval(deadline)
            let bytes = Array(partialHead.utf8)
            while descriptors.count < count, Date() < end {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { break }
                guard connectLoopback(fd, port: port) == 0 else { Glibc.close(fd); break }
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                descriptors.append(fd)
            }
            return descriptors.count
        }
    }

    /// How many connections the server has closed (EOF or reset), polling until all are or
    /// `deadline` seconds pass.
    func countClosedByPeer(deadline: Double) async -> Int {
        await onThread { [self] in
            let end = Date().addingTimeInterval(deadline)
            var closed = Set<Int32>()
            var buffer = [UInt8](repeating: 0, count: 4096)
            repeat {
                for fd in descriptors where !closed.contains(fd) {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closed.insert(fd) }
                }
                if closed.count == descriptors.count { break }
                usleep(100_000)
            } while Date() < end
            return closed.count
        }
    }

    /// Sends `line` on every open connection every `interval` (a slowloris keeping each
    /// connection busy so no idle timeout fires) until ``close()``.
    func dribble(_ line: String, every interval: Duration) {
        let descriptors = self.descriptors
        let bytes = Array(line.utf8)
        dribbling.withLock { $0 = .running }
        Thread { [self] in
            let (seconds, attoseconds) = interval.components
            let micros = useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
            while dribbling.withLock({ $0 }) == .running {
                for fd in descriptors { _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } }
                usleep(micros) // the attacker's pace, not a wait for a condition
            }
            dribbling.withLock { $0 = .idle }
        }.start()
    }

    private enum Dribble { case idle, running, stopping }
    /// The dribbling thread's state: `close` asks it to stop and waits until it has, so no
    /// descriptor it holds is closed (and reused) under it.
    private let dribbling = Mutex(Dribble.idle)

    /// Closes every connection.
    func close() {
        let wasRunning = dribbling.withLock { state in
            defer { if state == .running { state = .stopping } }
            return state == .running
        }
        // A wait on a condition (the dribbling thread has seen the stop and will not write to a
        // closed descriptor again), spun because close() is synchronous; it lasts one interval.
        if wasRunning { while dribbling.withLock({ $0 }) != .idle { usleep(1000) } }
        for fd in descriptors { Glibc.close(fd) }
        descriptors = []
    }

    private func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
