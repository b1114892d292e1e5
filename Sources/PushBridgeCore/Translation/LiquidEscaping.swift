/// OpenPush renders alert title and body through Liquid; text from dialects that do not speak
/// Liquid must arrive literally.
public enum LiquidEscaping {
    /// The text with every `{{` and `{%` turned into a Liquid expression that prints it, or nil
    /// when the text has neither.
    public static func escape(_ text: String) -> String? {
        guard text.contains("{{") || text.contains("{%") else { return nil }
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
