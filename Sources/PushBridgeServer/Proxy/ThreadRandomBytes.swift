import Glibc

/// Random bytes from the system's generator (`getrandom`, the same source as
/// `SystemRandomNumberGenerator`), drawn 4 KiB at a time into a buffer of the calling thread, so
/// that a request id costs no system call of its own (one `getrandom` per 1024 ids), nor a
/// shadow's sampling draw (``Generator``: one per 512 draws).
///
/// The bytes are exactly as unpredictable as the system's: they are the kernel's
/// cryptographically secure output, each handed out once and wiped as it is taken. A buffer
/// belongs to one thread (a thread-specific key holds it, and its destructor frees it when the
/// thread exits): it is never shared, so it needs no lock. After `fork`, a child would start with
/// a copy of its parent's buffer and hand out the same bytes; PushBridge never forks (its
/// libraries neither: nothing of ours runs in a child), which is why this is safe here.
final class ThreadRandomBytes {
    /// Bytes drawn per `getrandom`.
    static let capacity = 4096

    private let buffer: UnsafeMutableRawBufferPointer
    /// The next byte not yet handed out; `capacity` when the buffer is used up.
    private var next: Int
    /// `getrandom` calls this buffer has made (what the tests count).
    private(set) var refills = 0

    private init() {
        buffer = .allocate(byteCount: Self.capacity, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        next = Self.capacity
    }

    deinit { buffer.deallocate() }

    /// The calling thread's buffer, made on its first use.
    static var current: ThreadRandomBytes {
        if let raw = pthread_getspecific(threadKey) { return Unmanaged<ThreadRandomBytes>.fromOpaque(raw).takeUnretainedValue() }
        let made = ThreadRandomBytes()
        // The key holds the reference; its destructor releases it when the thread exits.
        pthread_setspecific(threadKey, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    /// Four random bytes, taken from the buffer (refilled first when fewer than four are left).
    func nextUInt32() -> UInt32 { take() }

    /// Eight random bytes, taken as ``nextUInt32()`` takes four.
    func nextUInt64() -> UInt64 { take() }

    /// An integer's worth of bytes, wiped as they are taken (the buffer refilled first when
    /// fewer are left).
    private func take<T: FixedWidthInteger>() -> T {
        let size = MemoryLayout<T>.size
        if next + size > Self.capacity { refill() }
        let value = buffer.loadUnaligned(fromByteOffset: next, as: T.self)
        buffer.storeBytes(of: 0, toByteOffset: next, as: T.self)
        next += size
        return value
    }

    /// The calling thread's buffer as a `RandomNumberGenerator`, for the standard library's
    /// draws (`Int.random(in:using:)`: the same unbiased algorithm over the same uniform
    /// 64-bit words as with `SystemRandomNumberGenerator`, without its `getrandom` per draw).
    struct Generator: RandomNumberGenerator {
        /// A generator over the calling thread's buffer.
        init() {}

        /// Eight bytes of the calling thread's buffer.
        mutating func next() -> UInt64 { ThreadRandomBytes.current.nextUInt64() }
    }

    /// Fills the whole buffer from the system: one `getrandom` (looping only on a short read
    /// or `EINTR`); where libc has no `getrandom`, through `SystemRandomNumberGenerator`.
    private func refill() {
        refills += 1
        var filled = 0
        if let getrandom = Self.getrandom {
            while filled < Self.capacity {
                let n = getrandom(buffer.baseAddress! + filled, Self.capacity - filled, 0)
                if n > 0 { filled += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
        var system = SystemRandomNumberGenerator()
        while filled < Self.capacity {
            var word = system.next() as UInt64
            let count = min(8, Self.capacity - filled)
            withUnsafeBytes(of: &word) { (buffer.baseAddress! + filled).copyMemory(from: $0.baseAddress!, byteCount: count) }
            filled += count
        }
        next = 0
    }

    /// libc's `getrandom(2)` wrapper (glibc 2.25 and later), looked up once: the Swift `Glibc`
    /// module does not import `<sys/random.h>`.
    private static let getrandom: (@convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int)? = {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getrandom").map {
            unsafeBitCast($0, to: (@convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int).self)
        }
    }()
}

/// The thread-specific key that holds each thread's ``ThreadRandomBytes`` (retained), and
/// releases it when its thread exits.
private let threadKey = makeThreadObjectKey()
