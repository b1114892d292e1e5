@testable import PushBridgeServer
import Glibc
import Testing

/// Request ids' randomness: the system's, drawn a buffer at a time per thread.
struct RequestIDRandomBytesTests {
    /// Runs `body` on a new thread and returns once that thread has exited (its thread-specific
    /// values destroyed).
    static func onNewThread(_ body: @escaping () -> Void) {
        final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Box(body)).toOpaque())
        #expect(started == 0)
        pthread_join(thread, nil)
    }

    @Test func idsTakeTheirRandomnessFromTheThreadsBufferOneGetrandomPer1024() {
        nonisolated(unsafe) var refills: [Int] = []
        Self.onNewThread {
            for _ in 0..<1024 { _ = RequestID.make(nowMs: 7) }
            refills.append(ThreadRandomBytes.current.refills)
            for _ in 0..<1024 { _ = RequestID.make(nowMs: 7) }
            refills.append(ThreadRandomBytes.current.refills)
            _ = RequestID.make(nowMs: 7)
            refills.append(ThreadRandomBytes.current.refills)
        }
        #expect(refills == [1, 2, 3], "4 KiB drawn per 1024 ids (4 bytes each), refilled when used up")
    }

    @Test func eachThreadHasItsOwnBufferFreedWhenTheThreadExits() {
        nonisolated(unsafe) var seen: [ObjectIdentifier] = []
        nonisolated(unsafe) weak var first: ThreadRandomBytes?
        Self.onNewThread {
            let bytes = ThreadRandomBytes.current
            first = bytes
            #expect(ThreadRandomBytes.current === bytes, "one buffer per thread")
            seen.append(ObjectIdentifier(bytes))
        }
        #expect(first == nil, "the thread's exit released its buffer")
        Self.onNewThread { seen.append(ObjectIdentifier(ThreadRandomBytes.current)) }
        Self.onNewThread {
            let other = ThreadRandomBytes.current
            Self.onNewThread { #expect(ThreadRandomBytes.current !== other, "never shared between live threads") }
        }
        #expect(seen.count == 2)
    }

    @Test func theRandomPartsAreUniformAndDistinct() {
        nonisolated(unsafe) var ids: [String] = []
        Self.onNewThread { ids = (0..<4096).map { _ in RequestID.make(nowMs: 1_795_000_000_123) } }
        #expect(ids.allSatisfy { $0.utf8.count == 24 && $0.hasPrefix("req_01a1ee565e7b") })
        // 4096 draws of 32 bits: a repeat has odds of about 1 in 500; two, about 1 in 500,000.
        #expect(Set(ids).count >= 4094)
        for position in 16..<24 {
            let digits = Set(ids.map { Array($0.utf8)[position] })
            #expect(digits.count == 16, "position \(position) takes every hex digit")
        }
    }
}
