/// Writes JSON values compactly, keeping object key order and number literals as they are.
public enum JSONWriter {
    /// The UTF-8 bytes of a value.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// The text of a value.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The text of a value, indented with two spaces and keys in their order (for people).
    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        writePretty(value, indent: 0, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a value's bytes.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) { write(value, to: &out) }

    /// Puts a value's bytes into any sink (an array, a counter, a raw cursor: the same bytes).
    static func write<Sink: JSONByteSink>(_ value: JSONValue, to out: inout Sink) {
        switch value {
        case .null: putStatic("null", to: &out)
        case .bool(let b): putStatic(b ? "true" : "false", to: &out)
        case .number(let n): putUTF8(n.literal, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.put(UInt8(ascii: "["))
            a.withUnsafeBufferPointer { values in
                for i in values.indices {
                    if i > 0 { out.put(UInt8(ascii: ",")) }
                    write(values[i], to: &out)
                }
            }
            out.put(UInt8(ascii: "]"))
        case .object(let o):
            out.put(UInt8(ascii: "{"))
            o.members.withUnsafeBufferPointer { members in
                for i in members.indices {
                    if i > 0 { out.put(UInt8(ascii: ",")) }
                    writeString(members[i].key, to: &out)
                    out.put(UInt8(ascii: ":"))
                    write(members[i].value, to: &out)
                }
            }
            out.put(UInt8(ascii: "}"))
        }
    }

    /// Puts a static string's bytes.
    @inline(__always) static func putStatic<Sink: JSONByteSink>(_ text: StaticString, to out: inout Sink) {
        text.withUTF8Buffer { out.put($0) }
    }

    /// Puts a string's UTF-8 bytes as they are (no quotes, no escapes).
    static func putUTF8<Sink: JSONByteSink>(_ text: String, to out: inout Sink) {
        let done = text.utf8.withContiguousStorageIfAvailable { out.put($0) }
        if done == nil { for b in text.utf8 { out.put(b) } }
    }

    /// Puts an integer's decimal digits, as `String(value)` writes them, without the `String`.
    static func putDigits<Sink: JSONByteSink>(_ value: Int64, to out: inout Sink) {
        var room: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &room) { raw in
            let base = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)
            var rest = value.magnitude
            var i = raw.count
            repeat {
                i -= 1
                base[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 { i -= 1; base[i] = UInt8(ascii: "-") }
            out.put(UnsafeBufferPointer(start: base + i, count: raw.count - i))
        }
    }

    private static func writePretty(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        func pad(_ n: Int) { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n * 2)) }
        switch value {
        case .array(let a) where !a.isEmpty:
            out.append(contentsOf: "[\n".utf8)
            for (i, v) in a.enumerated() {
                pad(indent + 1)
                writePretty(v, indent: indent + 1, into: &out)
                out.append(contentsOf: (i + 1 < a.count ? ",\n" : "\n").utf8)
            }
            pad(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(contentsOf: "{\n".utf8)
            for (i, m) in o.members.enumerated() {
                pad(indent + 1)
                writeString(m.key, into: &out)
                out.append(contentsOf: ": ".utf8)
                writePretty(m.value, indent: indent + 1, into: &out)
                out.append(contentsOf: (i + 1 < o.count ? ",\n" : "\n").utf8)
            }
            pad(indent)
            out.append(UInt8(ascii: "}"))
        default:
            write(value, into: &out)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends a quoted, escaped string. A string with nothing to escape (found eight bytes at
    /// a time) is copied as it is from its own bytes (issue 31, branch `translate`: a
    /// OneSignal start's body writes 16 strings, about 380 instructions each before).
    public static func writeString(_ s: String, into out: inout [UInt8]) { writeString(s, to: &out) }

    /// ``writeString(_:into:)`` into any sink.
    static func writeString<Sink: JSONByteSink>(_ s: String, to out: inout Sink) {
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !needsEscape(bytes) else { return false }
            out.put(UInt8(ascii: "\""))
            out.put(bytes)
            out.put(UInt8(ascii: "\""))
            return true
        }
        if copied != true { writeEscaped(s, to: &out) }
    }

    /// True when a byte must be escaped: a `"`, a `\` or a control byte. Words are skipped
    /// while ``JSONParser/mayEndPlainRun(_:)`` says none can be among their eight bytes.
    static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let n = bytes.count
        var i = 0
        while i + 8 <= n, !JSONParser.mayEndPlainRun(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
        while i < n {
            let b = base[i]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    /// ``writeEscaped(_:into:)`` into any sink, a byte (or an escape's two or six) at a time.
    static func writeEscaped<Sink: JSONByteSink>(_ s: String, to out: inout Sink) {
        out.put(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.put(0x5C); out.put(0x22)
            case UInt8(ascii: "\\"): out.put(0x5C); out.put(0x5C)
            case 0x0A: out.put(0x5C); out.put(UInt8(ascii: "n"))
            case 0x0D: out.put(0x5C); out.put(UInt8(ascii: "r"))
            case 0x09: out.put(0x5C); out.put(UInt8(ascii: "t"))
            case 0x00..<0x20:
                out.put(0x5C); out.put(UInt8(ascii: "u")); out.put(0x30); out.put(0x30)
                out.put(hex[Int(b >> 4)]); out.put(hex[Int(b & 0xF)])
            default: out.put(b)
            }
        }
        out.put(UInt8(ascii: "\""))
    }

    /// ``writeString(_:into:)`` byte by byte, escaping what JSON requires.
    static func writeEscaped(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var needsEscape = false
            for b in bytes where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                needsEscape = true
                break
            }
            if !needsEscape {
                out.append(contentsOf: bytes)
                return
            }
            for b in bytes {
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x00..<0x20:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
