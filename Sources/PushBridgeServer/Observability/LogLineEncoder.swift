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

    /// The line for an event; fields must already be redacted. With `plainKeys` the caller
    /// vouches that the fields' keys are ``LogLineKeys/plain`` ones: written as they are, no
    /// key sanitized or checked against the others (issue 31).
    func encode<Fields: Collection<LogField>>(milliseconds: Int64, level: LogLevel, message: String, fields: Fields, plainKeys: Bool = false) -> String {
        // A logfmt line gets its `ts` written from the stack into the line itself, not from a
        // string of its own (one allocation fewer per line, issue 31).
        guard format == .logfmt else {
            return encode(timestamp: RFC3339.format(milliseconds: milliseconds), level: level, message: message, fields: fields, plainKeys: plainKeys)
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RFC3339.usualLength) { stamp in
            guard RFC3339.write(milliseconds: milliseconds, into: stamp) else {
                return encode(timestamp: RFC3339.format(milliseconds: milliseconds), level: level, message: message, fields: fields, plainKeys: plainKeys)
            }
            return line(timestamp: "", stamp: UnsafeBufferPointer(stamp), level: level, message: message, fields: fields, plainKeys: plainKeys)
        }
    }

    /// The line for an event whose `ts` is already formatted (the lines of one batch share it).
    func encode<Fields: Collection<LogField>>(timestamp: String, level: LogLevel, message: String, fields: Fields, plainKeys: Bool = false) -> String {
        line(timestamp: timestamp, stamp: nil, level: level, message: message, fields: fields, plainKeys: plainKeys)
    }

    /// The line, its `ts` `timestamp`, or with `stamp` (logfmt only) those bytes instead.
    private func line<Fields: Collection<LogField>>(timestamp: String, stamp: UnsafeBufferPointer<UInt8>?, level: LogLevel, message: String, fields: Fields,
                                                    plainKeys: Bool) -> String {
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
                // Keys checked once (``LogLineKeys``): each is its own sanitized, unique key.
                if plainKeys { add(LogField(field.key, truncate(field.value))); continue }
                let key = Self.uniqueKey(Self.sanitize(field.key), among: UnsafeBufferPointer(rebasing: room[..<count]))
                add(LogField(key, truncate(field.value)))
            }
            let all = UnsafeBufferPointer(rebasing: room[..<count])
            switch format {
            case .logfmt: return logfmt(all, stamp: stamp)
            case .json: return json(all)
            }
        }
    }

    /// The logfmt line of `fields`; with `stamp`, the first field's (`ts`) value is those bytes.
    private func logfmt(_ fields: UnsafeBufferPointer<LogField>, stamp: UnsafeBufferPointer<UInt8>?) -> String {
        // Each field's exact length first, then the line written once into the string's own
        // storage: no byte array to copy it from (one allocation fewer per line, issue 31).
        // The text of a double or bool value is made once, while measuring, and kept here for
        // the write (on the stack for a line of usual size).
        withUnsafeTemporaryAllocation(of: String?.self, capacity: fields.count) { made in
            made.initialize(repeating: nil)
            defer { _ = made.deinitialize() }
            var length = 1  // the "\n"
            for i in fields.indices {
                if i > 0 { length += 1 }
                let value = i == 0 && stamp != nil ? (length: stamp?.count ?? 0, text: nil) : Self.logfmtMeasure(fields[i].value)
                length += fields[i].key.utf8.count + 1 + value.length
                made[i] = value.text
            }
            return String(unsafeUninitializedCapacity: length) { out in
                var line = LogLineWriter(out)
                for i in fields.indices {
                    let field = fields[i]
                    if i > 0 { line.put(UInt8(ascii: " ")) }
                    line.put(field.key)
                    line.put(UInt8(ascii: "="))
                    if i == 0, let stamp {
                        line.put(stamp)
                        continue
                    }
                    switch (made[i], field.value) {
                    case (let text?, _):
                        line.put(text)
                    case (nil, .string(let text)):
                        // Bare, or quoted (messages, finding reasons) escaped from its bytes.
                        if LogLineWriter.isBare(text) { line.put(text) } else { line.putQuoted(text) }
                    case (nil, .int(let number)):
                        line.put(String(number))  // a small string: no allocation
                    case (nil, .double), (nil, .bool):
                        preconditionFailure("a value measured without its text")
                    }
                }
                line.put(UInt8(ascii: "\n"))
                return line.count
            }
        }
    }

    /// How many bytes ``logfmt(_:)`` writes for `value`, and for a double or a bool the text it
    /// writes (made here, once, and written as it is); nil for the values it writes from
    /// themselves (strings and integers).
    private static func logfmtMeasure(_ value: LogValue) -> (length: Int, text: String?) {
        switch value {
        case .string(let text):
            return (LogLineWriter.isBare(text) ? text.utf8.count : LogLineWriter.quotedLength(text), nil)
        case .int(let number):
            return (String(number).utf8.count, nil)
        case let value:
            let text = logfmtValue(value.description)
            return (text.utf8.count, text)
        }
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
