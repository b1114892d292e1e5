/// OpenPush renders alert title and body through Liquid; text from dialects that do not speak
/// Liquid must arrive literally.
public enum LiquidEscaping {
    /// The text with every `{{` and `{%` turned into a Liquid expression that prints it, or nil
    /// when the text has neither.
    public static func escape(_ text: String) -> String? {
        guard mayHoldTags(text), text.contains("{{") || text.contains("{%") else { return nil }
        var out = ""
        var it = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = it.next()
        while let c = pending {
            let next = it.next()
            if c == "{", let n = next, n == "{" || n == "%" {
                out += n == "{" ? "{{ '{{' }}" : "{{ '{%' }}"
                pending = it.next()
                continue
            }
            out.unicodeScalars.append(c)
            pending = next
        }
        return out
    }
}

extension LiquidEscaping {
    /// How long `text` is once Liquid renders it, counting PushBridge's own escapes
    /// (`{{ '{{' }}`, `{{ '{%' }}`) as the two characters they print, and whether other Liquid
    /// tags remain, whose rendered length depends on the values filled in.
    public static func rendered(_ text: String) -> (length: Int, hasTemplateTags: Bool) {
        let openBraces = "{{ '{{' }}", openTag = "{{ '{%' }}"
        guard mayHoldTags(text), text.contains("{{") || text.contains("{%") else { return (characterCount(text), false) }
        var length = 0
        var tags = false
        var rest = Substring(text)
        while let c = rest.first {
            if rest.hasPrefix(openBraces) || rest.hasPrefix(openTag) {
                length += 2
                rest = rest.dropFirst(openBraces.count)
                continue
            }
            if c == "{", let n = rest.dropFirst().first, n == "{" || n == "%" { tags = true }
            length += 1
            rest = rest.dropFirst()
        }
        return (length, tags)
    }

    /// False when no `{` in `text`'s bytes is followed by `{` or `%`: then no two characters
    /// are `{{` or `{%` either, and the character-wise search is skipped (most texts).
    static func mayHoldTags(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { mayHoldTags(bytes: $0) } ?? mayHoldTags(bytes: text.utf8)
    }

    /// ``mayHoldTags(_:)`` over the text's bytes (one scan of a native string's storage).
    private static func mayHoldTags<Bytes: Sequence<UInt8>>(bytes: Bytes) -> Bool {
        var previousBrace = false
        for byte in bytes {
            if previousBrace && (byte == UInt8(ascii: "{") || byte == UInt8(ascii: "%")) { return true }
            previousBrace = byte == UInt8(ascii: "{")
        }
        return false
    }

    /// `text.count`, without breaking graphemes when every byte is ASCII and none is a CR (the
    /// only ASCII character that joins the next, `\r\n`, into one).
    static func characterCount(_ text: String) -> Int {
        let ascii = text.utf8.withContiguousStorageIfAvailable { countWithoutJoins(bytes: $0) } ?? countWithoutJoins(bytes: text.utf8)
        return ascii ?? text.count
    }

    /// The number of bytes when every one is ASCII and none is a CR, else nil.
    private static func countWithoutJoins<Bytes: Sequence<UInt8>>(bytes: Bytes) -> Int? {
        var count = 0
        for byte in bytes {
            if byte >= 0x80 || byte == 0x0D { return nil }
            count += 1
        }
        return count
    }
}
