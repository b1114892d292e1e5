import Testing
@testable import PushBridgeCore

/// A body's key found in ``InternedKeys/dialectFields`` is the decoders' own ``FieldKey`` name
/// (branch `spans`): the very `String`, so a lookup's `==` is met by its bits. Held to the text
/// (every key parses to its own text, as before) and to the storage: a name of 16 bytes or more
/// (on the heap when made from bytes) parses to the `String` whose bits are the ``FieldKey``'s.
struct InternedFieldKeyTests {
    /// The raw words of a `String` value (for a string on the heap or in the binary: where it is).
    static func words(_ s: String) -> (UInt64, UInt64) { unsafeBitCast(s, to: (UInt64, UInt64).self) }

    @Test func aFieldKeysNameParsesToThatVeryString() throws {
        let table = Set(InternedKeys.dialectFieldNames)
        var long = 0
        for field in FieldKey.dialectKeys where table.contains(field.name) {
            let parsed = try JSONParser.parse("{\"\(field.name)\": 1}", keys: .dialectFields)
            let key = try #require(parsed.objectValue?.members.first?.key)
            #expect(key == field.name)
            #expect(Self.words(key) == Self.words(field.name), "\(field.name)")
            if field.name.utf8.count > 15 { long += 1 }
        }
        // The ones that matter: OneSignal's and Pushwoosh's long names are among them.
        #expect(long >= 8)
    }

    @Test func theTableHoldsTheSameNamesAsBefore() {
        #expect(InternedKeys.dialectFields.count == Set(InternedKeys.dialectFieldNames).count)
    }
}
