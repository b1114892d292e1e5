/// Stored text made safe to print on an operator's terminal. What a caller sent (an app id in
/// a URL, a field name, a request line) is data wherever PushBridge shows it again: a raw ESC,
/// BEL or C1 control in it would let an anonymous caller drive the operator's terminal (set the
/// window title, write the clipboard with OSC 52, rewrite lines with CR). Every such character
/// is printed as visible text instead, Swift-style: ESC is `\u{1B}`, BEL `\u{7}`.
public enum TerminalText {
    /// `text` with every control character written as `\u{XX}`: C0 (U+0000–U+001F), DEL, C1
    /// (U+0080–U+009F), the Unicode line and paragraph separators and the bidirectional
    /// embedding, override and isolate marks (which reorder what a terminal shows). With
    /// `keepingNewlines` a line feed stays a line feed (a multi-line body); a CR never does.
    public static func escape(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isEscaped($0, keepingNewlines: keepingNewlines) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isEscaped(scalar, keepingNewlines: keepingNewlines) { out.append(contentsOf: visible(scalar).unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// JSON text (as ``JSONWriter`` writes it) safe for a terminal: the writer escapes C0 in
    /// strings already; DEL, C1 and the marks ``escape(_:keepingNewlines:)`` names become
    /// `\u00XX` escapes. They can only occur inside strings, so the JSON means the same.
    public static func json(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x7F && isEscaped($0, keepingNewlines: true) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x7F, isEscaped(scalar, keepingNewlines: true) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is printed escaped.
    static func isEscaped(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `\u{1B}`.
    static func visible(_ scalar: Unicode.Scalar) -> String { "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" }
}
