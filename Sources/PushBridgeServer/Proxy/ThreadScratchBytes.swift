import Glibc

/// A byte array of the calling thread, kept between uses, for text that is written into bytes
/// and then copied into its `String` (issue 31: the array of each such text was an allocation
/// of its own). A thread-specific key holds it and releases it when the thread exits; it is
/// never shared, so it needs no lock. Storage past ``keptCapacity`` is let go after the use that
/// grew it, so one large text does not stay held by its thread.
final class ThreadScratchBytes {
    /// The most capacity kept between uses.
    static let keptCapacity = 16 * 1024

    private var bytes: [UInt8] = []
    /// Set during a use: a use inside it (none today) gets an array of its own.
    private var inUse = false

    private init() {}

    /// `body`'s result, given the calling thread's array emptied (its capacity kept).
    static func with<T>(_ body: (inout [UInt8]) -> T) -> T {
        let scratch = current
        guard !scratch.inUse else {
            var own: [UInt8] = []
            return body(&own)
        }
        scratch.inUse = true
        defer {
            scratch.inUse = false
            if scratch.bytes.capacity > keptCapacity { scratch.bytes = [] } else { scratch.bytes.removeAll(keepingCapacity: true) }
        }
        scratch.bytes.removeAll(keepingCapacity: true)
        return body(&scratch.bytes)
    }

    /// The capacity the calling thread's array keeps now (what the tests read).
    static var currentCapacity: Int { current.bytes.capacity }

    /// The calling thread's scratch, made on its first use.
    private static var current: ThreadScratchBytes {
        if let raw = pthread_getspecific(scratchKey) { return Unmanaged<ThreadScratchBytes>.fromOpaque(raw).takeUnretainedValue() }
        let made = ThreadScratchBytes()
        // The key holds the reference; its destructor releases it when the thread exits.
        pthread_setspecific(scratchKey, Unmanaged.passRetained(made).toOpaque())
        return made
    }
}

/// The thread-specific key that holds each thread's ``ThreadScratchBytes`` (retained), and
/// releases it when its thread exits.
private let scratchKey = makeThreadObjectKey()
