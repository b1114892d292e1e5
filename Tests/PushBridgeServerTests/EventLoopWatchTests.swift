import Glibc
import Synchronization
import Testing
@testable import PushBridgeServer

/// Descriptors watched on an event loop (libcurl's sockets): found by the descriptor
/// `epoll_wait` reports, told what they are watched for, and watched again when their number
/// was closed and reused behind the loop's back.
struct EventLoopWatchTests {
    @Test func aDescriptorClosedAndReusedIsWatchedAgainAndToldWhatItIsWatchedFor() async throws {
        let loop = EventLoop(name: "test-watch")
        defer { loop.shutdown() }
        var first: [Int32] = [0, 0]
        try #require(pipe(&first) == 0)
        let reader = first[0]
        let seen = Mutex<[String]>([])
        loop.runAndWait {
            loop.watch(fd: reader, readable: true, writable: false) { fd, readable, writable in
                seen.withLock { $0.append("old \(fd) \(readable) \(writable)") }
            }
        }
        // Closed without a word to the loop (as curl closes a socket it no longer watches):
        // the kernel drops it from the epoll, and a new descriptor takes its number. `dup2`
        // does both at once onto the same number, so no other test's descriptor (tests run in
        // parallel) can take the number in between, as the next `pipe` alone could.
        // The old pipe's writer is closed after (closed first, it would wake the old reader).
        var second: [Int32] = [0, 0]
        try #require(pipe(&second) == 0)
        try #require(dup2(second[0], reader) == reader, "the descriptor's number was not reused")
        close(second[0]); close(first[1])
        let (reused, writer) = (reader, second[1])
        defer { loop.runAndWait { loop.detach(fd: reused) }; close(reused); close(writer) }
        loop.runAndWait {
            loop.watch(fd: reader, readable: true, writable: false) { fd, readable, writable in
                var byte: UInt8 = 0
                _ = read(fd, &byte, 1)
                seen.withLock { $0.append("new \(fd) \(readable) \(writable)") }
            }
        }
        var byte: UInt8 = 1
        #expect(write(writer, &byte, 1) == 1)
        #expect(await eventually(5) { !seen.withLock { $0 }.isEmpty }, "the reused descriptor was never served")
        #expect(seen.withLock { $0 }.first == "new \(reader) true false")
        #expect(seen.withLock { $0 }.allSatisfy { $0.hasPrefix("new") })
    }

    @Test func aDescriptorWatchedForWritingIsToldItIsWritable() async throws {
        let loop = EventLoop(name: "test-watch")
        defer { loop.shutdown() }
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (mine, peer) = (pair[0], pair[1])
        defer { close(mine); close(peer) }
        let seen = Mutex<(Bool, Bool)?>(nil)
        loop.runAndWait {
            loop.watch(fd: mine, readable: false, writable: true) { fd, readable, writable in
                seen.withLock { $0 = (readable, writable) }
                loop.detach(fd: fd)
            }
        }
        #expect(await eventually(5) { seen.withLock { $0 } != nil }, "a writable descriptor was not served")
        #expect(seen.withLock { $0.map { !$0.0 && $0.1 } } == true)
        #expect(loop.runAndWait { loop.watched.isEmpty })
    }

    @Test func aParkedDescriptorThatTurnsReadyIsRemovedWithoutRunningItsHandler() async throws {
        let loop = EventLoop(name: "test-watch")
        defer { loop.shutdown() }
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (reader, writer) = (fds[0], fds[1])
        defer { close(reader); close(writer) }
        let runs = Atomic(0)
        loop.runAndWait {
            loop.watch(fd: reader, readable: true, writable: false) { _, _, _ in runs.add(1, ordering: .relaxed) }
            loop.park(fd: reader)
        }
        #expect(loop.runAndWait { loop.watched[reader] != nil }, "parking forgot the descriptor")
        var byte: UInt8 = 1
        #expect(write(writer, &byte, 1) == 1)
        // Level-triggered and never read: left in the epoll, it would wake the loop every turn.
        #expect(await eventually(5) { loop.runAndWait { loop.watched[reader] == nil } }, "a parked descriptor that turned ready stayed watched")
        #expect(runs.load(ordering: .relaxed) == 0)
    }
}
