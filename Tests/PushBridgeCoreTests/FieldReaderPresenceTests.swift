import Testing
@testable import PushBridgeCore

/// A ``FieldReader`` skips the scan of its members for a key whose presence bit its object does
/// not hold (issue 31, branch `translate6`): each lookup must still find what a plain scan of
/// the members finds (the first member whose key is `==`, JSON `null` as absent, the oracle
/// kept here), ``FieldReader/has(_:)-(FieldKey)`` what ``FieldReader/has(_:)-(String)`` finds,
/// and a reader that made the same lookups must leave the same members unread: over objects
/// parsed from bytes (the parser's fingerprints) and made in code (fingerprinted by the
/// reader), with non-ASCII keys, the Kelvin-sign look-alike of `K` (canonically equal), keys
/// one byte away, repeated keys (an object made in code may hold them) and nulls.
struct FieldReaderPresenceTests {
    static let keys: [String] = {
        var out = FieldKey.dialectKeys.map(\.name).prefix(40).flatMap { FieldKeyLookupTests.neighbours($0).prefix(8) }
        out += ["K", "\u{212A}", "Kind", "\u{212A}ind", "é", "e\u{301}", "", "a", String(repeating: "k", count: 40)]
        return out
    }()

    /// Keys and their canonically equal twins (`==` holds, the bytes differ: so not a
    /// dictionary, whose keys are compared by `==`).
    static let twinPairs: [(String, String)] = [("K", "\u{212A}"), ("Kind", "\u{212A}ind"), ("é", "e\u{301}")]

    /// The twin of a key, by its bytes.
    static func twin(_ key: String) -> String? {
        for (a, b) in twinPairs {
            if a.utf8.elementsEqual(key.utf8) { return b }
            if b.utf8.elementsEqual(key.utf8) { return a }
        }
        return nil
    }

    /// `count` objects of up to `maxMembers` members (a reader keeps the read flags of the
    /// first 64 members in a word, the rest in an array: branch `translate9`).
    static func objects(count: Int = 600, maxMembers: Int = 20) -> [JSONObject] {
        var g = RedactionOverBytesGeneratedTests.Generator(state: UInt64(631 + maxMembers))
        var out: [JSONObject] = []
        for n in 0..<count {
            var members: [JSONMember] = []
            for _ in 0..<g.next(maxMembers) {
                let k = g.pick(keys)
                let v: JSONValue = g.next(5) == 0 ? .null : .int(Int64(g.next(1_000)))
                // A third of the objects keep repeated keys (made in code, as the public
                // initializer allows); the others are parsed back from their bytes.
                if n % 3 == 0 || !members.contains(where: { $0.key == k }) { members.append(JSONMember(k, v)) }
            }
            // Half the objects hold a key with a canonically equal twin.
            if g.next(2) == 0 {
                let k = g.pick(twinPairs.flatMap { [$0.0, $0.1] })
                if !members.contains(where: { $0.key == k }) { members.append(JSONMember(k, .int(Int64(n)))) }
            }
            let made = JSONObject(members: members)
            if n % 3 == 0 {
                out.append(made)
            } else if case .object(var parsed)? = try? JSONParser.parse(JSONWriter.bytes(.object(made))) {
                // A sixth of them parsed and then given one more member in code: the parser's
                // fingerprints and one the reader must make, in one object.
                if n % 6 == 1 { parsed["added_in_code_\(n)"] = .int(1) }
                out.append(parsed)
            }
        }
        return out
    }

    @Test(arguments: [(600, 20, 24), (150, 150, 120)])
    func everyLookupFindsWhatAPlainScanFinds(_ count: Int, _ maxMembers: Int, _ lookups: Int) {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 7)
        var found = 0, skipped = 0, past64 = 0
        let objects = Self.objects(count: count, maxMembers: maxMembers)
        #expect(objects.count == count)
        for object in objects {
            var reader = FieldReader(object)
            var read = Set<Int>()
            for _ in 0..<lookups {
                // A third of the lookups are for a key the object holds (the first or a repeat),
                // and a third for the twin of a key it holds.
                let own = object.keys.compactMap(Self.twin)
                let name = switch g.next(3) {
                case 0 where !own.isEmpty: g.pick(own)
                case 1 where !object.isEmpty: g.pick(object.keys)
                default: g.pick(Self.keys)
                }
                let key = FieldKey(name)
                let first = object.members.firstIndex(where: { $0.key == name })
                let plain = first.map { object.members[$0].value }
                #expect(reader.has(key) == reader.has(name), "\(name) in \(object.keys)")
                #expect(reader.has(key) == (plain != nil && plain != .null))
                let value = reader.raw(key)
                #expect(value == (plain == .null ? nil : plain), "\(name) in \(object.keys)")
                if let first { read.insert(first); found += 1; if first >= 64 { past64 += 1 } } else { skipped += 1 }
            }
            let unread = object.members.indices.filter { !read.contains($0) }.map { object.members[$0].key }
            #expect(reader.unread.map(\.key) == unread, "\(object.keys)")
        }
        #expect(found > 2_000 && skipped > 2_000, "found \(found), absent \(skipped)")
        #expect(maxMembers < 64 || past64 > 1_000, "members past the 64th read: \(past64)")
    }
}
