/// Where ``JSONWriter`` puts bytes: a growing `[UInt8]`, a counter (to size a buffer exactly
/// before writing), or a raw cursor into that buffer. The writer is generic over it, so the
/// counting pass and the writing pass run the same code and agree byte for byte (issue 31,
/// branch `translate2`: the OpenPush body was about 90 instructions per
/// `Array.append(contentsOf:)`, each checking uniqueness and capacity).
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

/// Counts the bytes a write would put, putting none.
struct JSONByteCount: JSONByteSink {
    /// Bytes counted so far.
    private(set) var count = 0
    /// Counts one byte.
    @inline(__always) mutating func put(_ byte: UInt8) { count += 1 }
    /// Counts the bytes.
    @inline(__always) mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { count += bytes.count }
}

/// Writes bytes into uninitialized memory sized beforehand by a ``JSONByteCount`` of the same
/// write: no capacity check per byte. The memory belongs to the caller (an array's
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
