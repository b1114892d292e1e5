/// Where ``JSONWriter`` puts bytes: a growing `[UInt8]`, a cursor that writes what fits a
/// guessed room and counts it all, or a raw cursor into memory of the counted size. The writer
/// is generic over it, so every pass runs the same code and they agree byte for byte (issue 31,
/// branch `translate2`: the OpenPush body was about 90 instructions per
/// `Array.append(contentsOf:)`, each checking uniqueness and capacity; branch `lazyparse`: the
/// counting pass before every write replaced by the fitting cursor).
protocol JSONByteSink {
    /// Puts one byte.
    mutating func put(_ byte: UInt8)
    /// Puts bytes in order.
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JSONByteSink where Element == UInt8 {
    /// Appends the byte.
    @inline(__always) mutating func put(_ byte: UInt8) { append(byte) }
    /// Appends the bytes.
    @inline(__always) mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Writes bytes into uninitialized memory sized beforehand by a ``JSONFittingCursor``'s count
/// of the same write: no capacity check per byte. The memory belongs to the caller (an array's
/// `init(unsafeUninitializedCapacity:initializingWith:)`), not to the cursor.
struct JSONRawCursor: JSONByteSink {
    /// The first byte of the memory.
    private let start: UnsafeMutablePointer<UInt8>
    /// One past the last byte of the memory.
    private let end: UnsafeMutablePointer<UInt8>
    /// Where the next byte goes.
    private var next: UnsafeMutablePointer<UInt8>

    /// A cursor at the start of `buffer` (which must have a base address when not empty).
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let base = buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1).unsafelyUnwrapped
        start = base
        end = base + buffer.count
        next = base
    }

    /// Bytes written so far.
    var written: Int { next - start }

    /// Writes one byte.
    @inline(__always) mutating func put(_ byte: UInt8) {
        assert(next < end, "JSONRawCursor past its counted size")
        next.initialize(to: byte)
        next += 1
    }

    /// Writes the bytes.
    @inline(__always) mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        assert(end - next >= bytes.count, "JSONRawCursor past its counted size")
        next.initialize(from: base, count: bytes.count)
        next += bytes.count
    }
}

/// Writes bytes into uninitialized memory of a guessed size, and counts them all: while they
/// fit they are written, and once one does not, nothing more is (``fits`` is then false and
/// ``count`` is the size the whole write needs). One pass for a body that fits the guess, no
/// counting pass before it (issue 31, branch `lazyparse`). The memory belongs to the caller.
struct JSONFittingCursor: JSONByteSink {
    /// The first byte of the memory.
    private let base: UnsafeMutablePointer<UInt8>
    /// How many bytes the memory holds.
    private let capacity: Int
    /// Bytes put so far, written or not.
    private(set) var count = 0

    /// A cursor at the start of `buffer` (which must have a base address when not empty).
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1).unsafelyUnwrapped
        capacity = buffer.count
    }

    /// True when every byte put was written (then the first ``count`` bytes are the write).
    var fits: Bool { count <= capacity }

    /// Writes one byte if it fits, and counts it.
    @inline(__always) mutating func put(_ byte: UInt8) {
        if count < capacity { (base + count).initialize(to: byte) }
        count += 1
    }

    /// Writes the bytes if they all fit, and counts them. Once a put does not fit, none after
    /// it does either (``count`` only grows), so what was written is a prefix of the write.
    @inline(__always) mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        if let from = bytes.baseAddress, n <= capacity - count { (base + count).initialize(from: from, count: n) }
        count += n
    }
}
