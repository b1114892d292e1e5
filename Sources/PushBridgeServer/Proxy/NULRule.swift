import PushBridgeCore

/// PostgreSQL text cannot hold U+0000 (NUL), and a field or id cut at a NUL may read as another
/// (`/apps/<id>%00x` as `<id>`). So one rule, the same on either audit engine: a request whose
/// path holds a NUL (`%00` or the byte) or whose JSON body holds one in a string or a field name
/// is refused as a bad request, naming the field, before anything is translated or sent. What
/// the audit keeps of it has every NUL written as the six characters `\u0000`
/// (``Swift/String/escapingNUL``).
enum NULRule {
    /// The rule, as the caller's error says it.
    static let rule = "must not contain U+0000 (NUL)"

    /// The error for a path holding a NUL, decoded (`%00`) or raw; nil when it holds none.
    static func problem(inPath path: String) -> TranslationError? {
        // Over the path's own bytes: this runs on every request.
        var recent: (UInt8, UInt8) = (0xFF, 0xFF)
        var found = false
        for byte in path.utf8 {
            if byte == 0 || (recent == (UInt8(ascii: "%"), UInt8(ascii: "0")) && byte == UInt8(ascii: "0")) { found = true; break }
            recent = (recent.1, byte)
        }
        guard found else { return nil }
        return TranslationError(field: "path", rule: rule + ", written %00 or raw")
    }

    /// The error for the first string or field name of `value` holding a NUL, naming it by its
    /// path (`a.b[2].c`, the NUL shown as `\u0000`); nil when there is none.
    static func problem(inBody value: JSONValue?) -> TranslationError? {
        // The paths are spelled only for a body that has a NUL: every request's body is searched.
        guard let value, holdsNUL(value), let field = first(in: value, at: "") else { return nil }
        return TranslationError(field: field.isEmpty ? "body" : field, rule: rule)
    }

    /// Whether any string or field name of `value` holds a NUL.
    private static func holdsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let s): s.containsUTF8(0)
        case .array(let items): items.contains(where: holdsNUL)
        case .object(let object): object.members.contains { $0.key.containsUTF8(0) || holdsNUL($0.value) }
        case .null, .bool, .number: false
        }
    }

    private static func first(in value: JSONValue, at path: String) -> String? {
        switch value {
        case .string(let s): return s.containsUTF8(0) ? path : nil
        case .array(let items):
            for (i, item) in items.enumerated() { if let found = first(in: item, at: "\(path)[\(i)]") { return found } }
            return nil
        case .object(let object):
            for member in object.members {
                let name = path.isEmpty ? member.key.escapingNUL : path + "." + member.key.escapingNUL
                if member.key.containsUTF8(0) { return name }
                if let found = first(in: member.value, at: name) { return found }
            }
            return nil
        case .null, .bool, .number: return nil
        }
    }
}

extension String {
    /// The text with every U+0000 written as the six characters `\u0000`, which every audit
    /// engine stores as it is (PostgreSQL text cannot hold a NUL).
    var escapingNUL: String {
        guard containsUTF8(0) else { return self }
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if scalar == "\u{0}" { out.append(contentsOf: "\\u0000".unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }
}
