import PushBridgeCore

/// Turns one event into one line of text ending in exactly one `\n`: `ts`, `level` and `msg`
/// first, then the fields in order. Whatever the values contain, the line has no other line
/// break, and keys are unique and safe to write unquoted.
struct LogLineEncoder: Sendable {
    /// `logfmt` or JSON lines.
    var format: ProxyConfiguration.LogFormat
    /// Longer values are cut (at a character boundary) and marked `…[truncated]`.
    var maxValueBytes: Int

    static let reservedKeys: Set<String> = ["ts", "level", "msg"]

    /// The line for an event; fields must already be redacted.
    func encode(milliseconds: Int64, level: LogLevel, message: String, fields: [LogField]) -> String {
        encode(timestamp: RFC3339.format(milliseconds: milliseconds), level: level, message: message, fields: fields)
    }

    /// The line for an event whose `ts` is already formatted (the lines of one batch share it).
    func encode(timestamp: String, level: LogLevel, message: String, fields: [LogField]) -> String {
        // The line's fields in temporary memory (the stack, for a line of usual size), not an
        // array of their own: one allocation fewer per line (issue 31).
        withUnsafeTemporaryAllocation(of: LogField.self, capacity: fields.count + 3) { room in
            var count = 0
            defer { _ = room.baseAddress.map { $0.deinitialize(count: count) } }
            func add(_ field: LogField) {
                room.baseAddress.map { ($0 + count).initialize(to: field) }
                count += 1
            }
            add(LogField("ts", .string(timestamp)))
            add(LogField("level", .string(level.rawValue)))
            add(LogField("msg", .string(message)))
            // A handful of keys: a linear scan of the fields so far is cheaper than hashing each
            // one into a set, and needs no array of its own.
            for field in fields {
                let key = Self.uniqueKey(Self.sanitize(field.key), among: UnsafeBufferPointer(rebasing: room[..<count]))
                add(LogField(key, truncate(field.value)))
            }
            let all = UnsafeBufferPointer(rebasing: room[..<count])
            switch format {
            case .logfmt: return logfmt(all)
            case .json: return json(all)
            }
        }
    }

    private func logfmt(_ fields: UnsafeBufferPointer<LogField>) -> String {
        // One byte buffer, one String at the end: no intermediate strings per field.
        var line: [UInt8] = []
        var estimate = 8  // room for the whole line at once: no regrowth for long reasons
        for field in fields {
            if case .string(let text) = field.value { estimate += field.key.utf8.count + text.utf8.count + 4 } else { estimate += field.key.utf8.count + 28 }
        }
        line.reserveCapacity(estimate)
        for (i, field) in fields.enumerated() {
            if i > 0 { line.append(UInt8(ascii: " ")) }
            line.append(contentsOf: field.key.utf8)
            line.append(UInt8(ascii: "="))
            switch field.value {
            case .string(let text) where Self.isBareASCII(text):
                line.append(contentsOf: text.utf8)
            case .string(let text) where text.utf8.allSatisfy({ $0 < 0x80 }):
                // ASCII that needs quotes (messages, finding reasons): escaped byte by byte.
                Self.appendQuotedASCII(text, to: &line)
            case .int(let number):
                line.append(contentsOf: String(number).utf8)  // a small string: no allocation
            case let value:
                line.append(contentsOf: Self.logfmtValue(value.description).utf8)
            }
        }
        line.append(UInt8(ascii: "\n"))
        return String(decoding: line, as: UTF8.self)
    }

    /// `"text"` with `\"`, `\\`, `\n`, `\r`, `\t` and `\u00XX` for other controls and DEL,
    /// exactly as ``escaped(_:)`` writes ASCII text, without going through Unicode scalars.
    private static func appendQuotedASCII(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs that need no escape are copied whole.
            var run = 0
            for i in bytes.indices {
                let b = bytes[i]
                let escape: UInt8
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape = b
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                case 0x00..<0x20, 0x7F: escape = 0
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                if escape != 0 {
                    out.append(UInt8(ascii: "\\"))
                    out.append(escape)
                } else {
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Printable ASCII without space, `=`, quote or backslash, and not empty: written bare.
    private static func isBareASCII(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    private func json(_ fields: UnsafeBufferPointer<LogField>) -> String {
        var line = "{"
        for (i, field) in fields.enumerated() {
            if i > 0 { line += "," }
            line += Self.jsonString(field.key) + ":"
            switch field.value.json {
            case .string(let s): line += Self.jsonString(s)
            case let other: line += JSONWriter.string(other)
            }
        }
        return line + "}\n"
    }

    /// A logfmt value: bare when it is non-empty and has no space, `=`, quote, backslash or
    /// control character; otherwise quoted with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX`.
    static func logfmtValue(_ value: String) -> String {
        // Fast path (most values): printable ASCII without space, `=`, quote or backslash.
        if isBareASCII(value) { return value }
        let bare = !value.isEmpty && value.unicodeScalars.allSatisfy { $0 != " " && $0 != "=" && !needsEscape($0) }
        return bare ? value : "\"" + escaped(value) + "\""
    }

    /// A JSON string literal that also escapes DEL, C1 controls and U+2028/U+2029.
    static func jsonString(_ value: String) -> String { "\"" + escaped(value) + "\"" }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        s == "\"" || s == "\\" || isControl(s)
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
    }

    private static func escaped(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: needsEscape) else { return value }
        var out = String.UnicodeScalarView()
        for s in value.unicodeScalars {
            switch s {
            case "\"": out.append(contentsOf: #"\""#.unicodeScalars)
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where isControl(s):
                let hex = String(s.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// Letters, digits, `_`, `.` and `-` kept, anything else `_`; at most 64 characters.
    static func sanitize(_ key: String) -> String {
        // Fast path (every key PushBridge itself logs): already short and safe.
        if !key.isEmpty, key.utf8.count <= 64, key.utf8.allSatisfy({ isSafeKeyByte($0) }) { return key }
        let kept = key.unicodeScalars.prefix(64).map { s -> Character in
            ("0"..."9").contains(s) || ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" || s == "." || s == "-" ? Character(s) : "_"
        }
        return kept.isEmpty ? "_" : String(kept)
    }

    private static func isSafeKeyByte(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
    }

    /// `ts`, `level`, `msg` and repeated keys get a suffix (`level_2`), so no field is lost or forged.
    /// `key`, or with the first suffix no field of `fields` has.
    private static func uniqueKey(_ key: String, among fields: UnsafeBufferPointer<LogField>) -> String {
        var candidate = key
        var n = 2
        while fields.contains(where: { $0.key == candidate }) {
            candidate = key + "_" + String(n)
            n += 1
        }
        return candidate
    }

    private func truncate(_ value: LogValue) -> LogValue {
        guard case .string(let s) = value, s.utf8.count > maxValueBytes else { return value }
        return .string(s.utf8Prefix(maxBytes: maxValueBytes) + "…[truncated]")
    }
}
