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
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.literal.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
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
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !needsEscape(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if copied != true { writeEscaped(s, into: &out) }
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
