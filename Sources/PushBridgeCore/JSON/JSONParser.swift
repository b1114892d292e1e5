/// A strict, fast JSON parser over UTF-8 bytes (RFC 8259). It rejects what a proxy must not
/// guess about: duplicate keys, invalid UTF-8, nesting deeper than `maxDepth`, trailing bytes.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let defaultMaxDepth = 64

    /// Parses a whole document. A key found in `keys` is that table's `String` (made once)
    /// rather than a new one made from the bytes: the same text, without its allocation and check.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, keys: InternedKeys? = nil) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buf) throws(JSONParseError) -> JSONValue in
            var p = JSONParser(buf, maxDepth: maxDepth, keys: keys)
            p.skipWhitespace()
            let value = try p.parseValue(depth: 0)
            p.skipWhitespace()
            guard p.index == buf.count else { throw JSONParseError("unexpected bytes after the JSON value", at: p.index) }
            return value
        }
    }

    /// Parses a whole document from a string.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth, keys: InternedKeys? = nil) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth, keys: keys)
    }

    private let buf: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// The key fingerprints of the objects being parsed, innermost last (each object's start is
    /// where the stack was when it began): its duplicate check compares `String`s only for keys
    /// whose fingerprints match. One array for the whole document.
    private var keyStack: [KeyFingerprint] = []
    /// How many of ``keyStack``'s entries are the open objects' (those past it are left over
    /// from objects that ended, and are written over): an object's end moves this back instead
    /// of removing its entries (issue 31, branch `translate9`: `removeSubrange` was about 80
    /// instructions an object).
    private var keyTop = 0

    /// The keys given as `String`s made once (see ``parse(_:maxDepth:keys:)``).
    private let keys: InternedKeys?
    /// ``SmallASCIIString/layoutHolds``, read once per document.
    private let smallStrings = SmallASCIIString.layoutHolds

    private init(_ buf: UnsafeBufferPointer<UInt8>, maxDepth: Int, keys: InternedKeys?) {
        self.buf = buf
        self.maxDepth = maxDepth
        self.keys = keys
        // Room for the keys of a request's open objects at once: one allocation instead of
        // growing at 1, 2, 4, 8 and 16 keys.
        keyStack.reserveCapacity(32)
    }

    private mutating func skipWhitespace() {
        while index < buf.count {
            switch buf[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < buf.count else { throw JSONParseError("unexpected end of input", at: index) }
        switch buf[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw JSONParseError("unexpected character '\(printable(buf[index]))'", at: index)
        }
    }

    private func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard index + n <= buf.count else { throw JSONParseError("unexpected end of input", at: index) }
        let p = word.utf8Start
        for i in 0..<n where buf[index + i] != p[i] {
            throw JSONParseError("invalid literal", at: index)
        }
        index += n
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
        guard depth <= maxDepth else { throw JSONParseError("nesting deeper than \(maxDepth) levels", at: index) }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < buf.count, buf[index] == UInt8(ascii: "}") { index += 1; return object }
        // Room for the members a request's objects mostly hold: one allocation instead of growing
        // the array at 1, 2, 4 and 8 members. The body's own object (depth 1) may hold more than
        // 8 (a OneSignal start 11): room for 16 there (640 bytes, as cheap to allocate as 320).
        object.reserveCapacity(depth == 1 ? 16 : 8)
        // Duplicate keys: a linear scan is cheaper than hashing for the small objects requests carry.
        var seen: Set<String>? = nil
        let base = keyTop
        defer { keyTop = base }
        while true {
            skipWhitespace()
            guard index < buf.count, buf[index] == UInt8(ascii: "\"") else {
                throw JSONParseError("expected a string key", at: index)
            }
            let keyOffset = index
            let (key, fingerprint) = try parseKey()
            if object.count < 16 {
                for i in base..<keyTop where keyStack[i].mayEqual(fingerprint) && object.members[i - base].key == key {
                    throw JSONParseError("duplicate key \"\(key)\"", at: keyOffset)
                }
                if keyTop < keyStack.count { keyStack[keyTop] = fingerprint } else { keyStack.append(fingerprint) }
                keyTop += 1
            } else {
                if seen == nil { seen = Set(object.keys) }
                guard seen!.insert(key).inserted else { throw JSONParseError("duplicate key \"\(key)\"", at: keyOffset) }
            }
            skipWhitespace()
            guard index < buf.count, buf[index] == UInt8(ascii: ":") else { throw JSONParseError("expected ':'", at: index) }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            object.appendUnchecked(key, value, fingerprint: fingerprint)
            skipWhitespace()
            guard index < buf.count else { throw JSONParseError("unexpected end of input", at: index) }
            if buf[index] == UInt8(ascii: ",") { index += 1; continue }
            if buf[index] == UInt8(ascii: "}") { index += 1; return object }
            throw JSONParseError("expected ',' or '}'", at: index)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
        guard depth <= maxDepth else { throw JSONParseError("nesting deeper than \(maxDepth) levels", at: index) }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < buf.count, buf[index] == UInt8(ascii: "]") { index += 1; return array }
        while true {
            skipWhitespace()
            array.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < buf.count else { throw JSONParseError("unexpected end of input", at: index) }
            if buf[index] == UInt8(ascii: ",") { index += 1; continue }
            if buf[index] == UInt8(ascii: "]") { index += 1; return array }
            throw JSONParseError("expected ',' or ']'", at: index)
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if buf[index] == UInt8(ascii: "-") { index += 1 }
        guard index < buf.count, isDigit(buf[index]) else { throw JSONParseError("invalid number", at: start) }
        if buf[index] == UInt8(ascii: "0") {
            index += 1
            if index < buf.count, isDigit(buf[index]) { throw JSONParseError("leading zero in number", at: start) }
        } else {
            while index < buf.count, isDigit(buf[index]) { index += 1 }
        }
        if index < buf.count, buf[index] == UInt8(ascii: ".") {
            index += 1
            guard index < buf.count, isDigit(buf[index]) else { throw JSONParseError("invalid number", at: start) }
            while index < buf.count, isDigit(buf[index]) { index += 1 }
        }
        if index < buf.count, buf[index] == UInt8(ascii: "e") || buf[index] == UInt8(ascii: "E") {
            index += 1
            if index < buf.count, buf[index] == UInt8(ascii: "+") || buf[index] == UInt8(ascii: "-") { index += 1 }
            guard index < buf.count, isDigit(buf[index]) else { throw JSONParseError("invalid number", at: start) }
            while index < buf.count, isDigit(buf[index]) { index += 1 }
        }
        return JSONNumber(validatedLiteral: asciiString(start, index))
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A key and its fingerprint: a key without escapes is fingerprinted from its bytes, and
    /// one of ``keys`` is that table's `String`.
    private mutating func parseKey() throws(JSONParseError) -> (String, KeyFingerprint) {
        let quote = index
        index += 1
        guard let plain = try scanPlainString(quote: quote) else {
            let key = try parseEscapedString(quote: quote, start: quote + 1)
            return (key, KeyFingerprint(key))
        }
        let raw = UnsafeBufferPointer(rebasing: buf[plain.start..<plain.end])
        guard plain.ascii else { return (try validatedUTF8(raw, at: plain.start), .unknown) }
        // A short key is its small string's two words, and its fingerprint their first six
        // bytes: cheaper than the table's lookup (branch `spans`).
        if smallStrings, raw.count <= SmallASCIIString.capacity, let base = buf.baseAddress {
            let words = SmallASCIIString.words(base + plain.start, count: raw.count, readable: buf.count - plain.start)
            return (SmallASCIIString.string(words), KeyFingerprint(smallASCIIWord: words.0, count: raw.count))
        }
        let fingerprint = KeyFingerprint(ascii: raw)
        if let known = keys?.key(raw, fingerprint: fingerprint) { return (known, fingerprint) }
        return (asciiString(plain.start, plain.end), fingerprint)
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let quote = index
        index += 1
        guard let plain = try scanPlainString(quote: quote) else { return try parseEscapedString(quote: quote, start: quote + 1) }
        // An all-ASCII string (most keys and values) needs no UTF-8 check.
        if plain.ascii { return asciiString(plain.start, plain.end) }
        return try validatedUTF8(UnsafeBufferPointer(rebasing: buf[plain.start..<plain.end]), at: plain.start)
    }

    /// The `String` of the ASCII bytes `start..<end`: made as its two words when it is short
    /// enough to be a small string (``SmallASCIIString``), otherwise by `String(decoding:)`.
    @inline(__always)
    private func asciiString(_ start: Int, _ end: Int) -> String {
        if smallStrings, end - start <= SmallASCIIString.capacity, let base = buf.baseAddress {
            return SmallASCIIString.make(base + start, count: end - start, readable: buf.count - start)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self)
    }

    /// `0x01` in every byte of a word.
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// `0x80` in every byte of a word.
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// True when a word of eight bytes may hold a `"`, a `\` or a control byte (never false
    /// when it does; the byte loop decides when it says true). `JSONWriter` asks it too.
    @inline(__always)
    static func mayEndPlainRun(_ w: UInt64) -> Bool { endingBytes(w) != 0 }

    /// The high bit of each byte of `w` that may be a `"`, a `\` or a control byte, the word
    /// read in memory order (its first byte lowest). The lowest bit set is exact: a false mark
    /// comes only from a borrow out of a byte below it that is itself marked rightly, so
    /// `trailingZeroBitCount / 8` is the offset of the word's first such byte.
    @inline(__always)
    static func endingBytes(_ w: UInt64) -> UInt64 {
        let quotes = w ^ (ones &* 0x22)
        let backslashes = w ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (w &- ones &* 0x20) & ~w
        return (zeroQuote | zeroBackslash | control) & highs
    }

    /// Scans a string from after its opening quote (at `quote`). When it ends before any escape:
    /// moves past the closing quote and gives its bytes' range and whether they are all ASCII.
    /// When an escape comes first: nil, `index` at the backslash. Eight bytes at a time while no
    /// quote, backslash or control byte can be among them; the word that holds one gives its
    /// offset (``endingBytes(_:)``), so the byte loop starts on it (issue 31, branch
    /// `lazyparse`: most of a body's strings are shorter than a word, and the byte loop over
    /// them was the parse's largest own cost). The byte loop decides on that byte, and on the
    /// last seven bytes of the body.
    private mutating func scanPlainString(quote: Int) throws(JSONParseError) -> (start: Int, end: Int, ascii: Bool)? {
        let start = index
        var highWord: UInt64 = 0
        if let base = buf.baseAddress {
            while index + 8 <= buf.count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let ending = Self.endingBytes(w)
                if ending != 0 {
                    let plain = ending.trailingZeroBitCount >> 3
                    highWord |= w & ((1 << (UInt64(plain) << 3)) &- 1)
                    index += plain
                    break
                }
                highWord |= w
                index += 8
            }
        }
        var high: UInt8 = 0
        while index < buf.count {
            let b = buf[index]
            if b == UInt8(ascii: "\"") {
                let end = index
                index += 1
                return (start, end, high < 0x80 && highWord & Self.highs == 0)
            }
            if b == UInt8(ascii: "\\") { return nil }
            if b < 0x20 { throw JSONParseError("control character in string", at: index) }
            high |= b
            index += 1
        }
        throw JSONParseError("unterminated string", at: quote)
    }

    /// The rest of a string that has an escape at `index` (its bytes begin at `start`).
    private mutating func parseEscapedString(quote: Int, start: Int) throws(JSONParseError) -> String {
        var bytes = Array(UnsafeBufferPointer(rebasing: buf[start..<index]))
        while index < buf.count {
            let b = buf[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return try bytes.withUnsafeBufferPointer { (p) throws(JSONParseError) -> String in try validatedUTF8(p, at: start) }
            }
            if b < 0x20 { throw JSONParseError("control character in string", at: index) }
            if b != UInt8(ascii: "\\") { bytes.append(b); index += 1; continue }
            index += 1
            guard index < buf.count else { break }
            let e = buf[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape(), to: &bytes)
            default: throw JSONParseError("invalid escape", at: index - 2)
            }
        }
        throw JSONParseError("unterminated string", at: quote)
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let at = index - 2
        let high = try parseHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < buf.count, buf[index] == UInt8(ascii: "\\"), buf[index + 1] == UInt8(ascii: "u") else {
                throw JSONParseError("unpaired surrogate in \\u escape", at: at)
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError("unpaired surrogate in \\u escape", at: at) }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let s = Unicode.Scalar(value) else { throw JSONParseError("invalid \\u escape", at: at) }
            return s
        }
        guard let s = Unicode.Scalar(high) else { throw JSONParseError("unpaired surrogate in \\u escape", at: at) }
        return s
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= buf.count else { throw JSONParseError("truncated \\u escape", at: index) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buf[index]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw JSONParseError("invalid hex digit in \\u escape", at: index)
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private func appendScalar(_ s: Unicode.Scalar, to bytes: inout [UInt8]) {
        UTF8.encode(s) { bytes.append($0) }
    }

    private func validatedUTF8(_ raw: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONParseError) -> String {
        var ascii = true
        for b in raw where b >= 0x80 { ascii = false; break }
        if ascii { return String(decoding: raw, as: UTF8.self) }
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw JSONParseError("invalid UTF-8 in string", at: offset)
        }
        return s
    }
}
