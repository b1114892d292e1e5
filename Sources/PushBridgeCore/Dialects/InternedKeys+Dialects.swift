extension InternedKeys {
    /// Every object key the dialects' mapping tables name (each segment of a documented field
    /// path, `notifications[].live_activity.title` giving `notifications`, `live_activity` and
    /// `title`), and the language key `en`: the keys a request's body mostly holds, so the
    /// shared parse of a body (``ParsedBody``) makes almost none of its keys' `String`s anew.
    public static let dialectFields = InternedKeys(dialectFieldNames)

    /// The names ``dialectFields`` holds.
    static var dialectFieldNames: [String] {
        var names = ["en"]
        for mapping in Dialects.all.flatMap(\.fieldMappings) {
            for part in mapping.field.split(separator: ".") {
                let name = part.hasSuffix("[]") ? part.dropLast(2) : part
                if !name.isEmpty, name.utf8.allSatisfy({ isKeyByte($0) }) { names.append(String(name)) }
            }
        }
        return names
    }

    /// A byte of a plain field name: a letter, a digit, `_` or `-`.
    private static func isKeyByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }
}
