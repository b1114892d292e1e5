import Testing
@testable import PushBridgeCore

/// A ``FieldReader`` lookup by a `static let` ``FieldKey`` (its fingerprint made once, issue
/// 31, branch `translate2`) finds exactly what the lookup by a `String` it replaced found:
/// for every key the dialects read, over 400 generated objects holding the key, keys one byte
/// away, the same first six bytes at other lengths, the Kelvin-sign look-alike, non-ASCII keys
/// and nulls; and marks the same members read.
struct FieldKeyLookupTests {
    /// Keys near `key`: equal, one byte changed at each offset, cut, extended, case-changed,
    /// with `K` spelled as the Kelvin sign (canonically equal to `K`).
    static func neighbours(_ key: String) -> [String] {
        var out = [key, key + "x", String(key.dropLast()), key.uppercased(), "é" + key, key + "\u{301}"]
        let bytes = Array(key.utf8)
        for i in bytes.indices {
            var b = bytes
            b[i] ^= 0x01
            out.append(String(decoding: b, as: UTF8.self))
        }
        out.append(String(key.map { $0 == "k" ? "\u{212A}" : $0 }))
        return out
    }

    static func objects() -> [JSONObject] {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 2_026)
        let keys = FieldKey.dialectKeys.map(\.name)
        return (0..<400).map { _ in
            var o = JSONObject()
            for _ in 0..<g.next(12) {
                let near = neighbours(keys[g.next(keys.count)])
                let k = near[g.next(near.count)]
                if o[k] == nil { o.appendUnchecked(k, g.next(5) == 0 ? .null : .int(Int64(g.next(1_000)))) }
            }
            return o
        }
    }

    @Test func everyDialectKeyFindsWhatItsStringFound() {
        #expect(FieldKey.dialectKeys.count >= 40)
        var found = 0
        for object in Self.objects() {
            for key in FieldKey.dialectKeys {
                #expect(key.fingerprint == KeyFingerprint(key.name))
                var byKey = FieldReader(object), byString = FieldReader(object)
                let new = byKey.raw(key), old = byString.raw(key.name)
                #expect(new == old, "\(key.name) in \(JSONWriter.string(.object(object)))")
                #expect(byKey.unread.map(\.key) == byString.unread.map(\.key))
                // And against a plain comparison of every member, the oracle before fingerprints.
                let plain = object.members.first(where: { $0.key == key.name })?.value
                #expect(new == (plain == .null ? nil : plain))
                if new != nil { found += 1 }
            }
        }
        // The generated objects do hold the keys, not only their neighbours.
        #expect(found > 200, "only \(found) lookups found their key")
    }
}
