extension InternedKeys {
    /// Every object key the dialects' mapping tables name (each segment of a documented field
    /// path, `notifications[].live_activity.title` giving `notifications`, `live_activity` and
    /// `title`), and the language key `en`: the keys a request's body mostly holds, so the
    /// shared parse of a body (``ParsedBody``) makes almost none of its keys' `String`s anew.
    /// The decoders' own ``FieldKey`` names come first, so a key found here is the very `String`
    /// a ``FieldReader`` lookup compares it with (equal by its bits: a key of 16 bytes or more,
    /// such as `event_attributes`, was compared byte by byte; branch `spans`).
    /// The table holds the same names as before, only these `String`s for them.
    public static let dialectFields: InternedKeys = {
        let names = dialectFieldNames
        let held = Set(names)
        return InternedKeys(FieldKey.dialectKeys.map(\.name).filter { held.contains($0) } + names)
    }()

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
