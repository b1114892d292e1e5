import Testing
@testable import PushBridgeCore

/// Two loops of the JSON code rewritten in issue 31's ninth pass (branch `translate9`), each
/// held to the loop it replaced over generated trees (``JSONTreeGenerator``):
/// - `JSONWriter.write` walks an array's values and an object's members through their buffers
///   instead of `enumerated()` copies: the same bytes as the old walk (`oracle`).
/// - The parser's duplicate-key stack moves a top index back when an object ends instead of
///   removing the object's entries: the same answer, error and offset as a plain check that
///   compares every key of an object with the ones before it (kept here as `firstDuplicate`).
/// Both are equivalences, so neither fails on the code before; the mutant that never moves the
/// top back (an ended object's keys left on the stack) fails the second (it compares a sibling's
/// keys with members its object does not have: an index out of range).
struct JSONLoopOracleTests {
    /// The writer's walk before the ninth pass: members and values copied out by `enumerated()`
    /// (``OpenPushBodyRawWriterTests/oracle(_:into:)``, the array writer before `translate2`).
    static func oracle(_ value: JSONValue, into out: inout [UInt8]) { OpenPushBodyRawWriterTests.oracle(value, into: &out) }

    @Test func everyGeneratedTreeIsWrittenAsTheOldWalkWroteIt() throws {
        var g = JSONTreeGenerator(seed: 31)
        var nested = 0
        for _ in 0..<6_000 {
            let value = g.value(depth: 4)
            var old: [UInt8] = []
            Self.oracle(value, into: &old)
            #expect(JSONWriter.bytes(value) == old)
            // Through the fitting cursor the OpenPush body is written with, too.
            let fitted = [UInt8](unsafeUninitializedCapacity: old.count + 8) { buffer, initialized in
                var cursor = JSONFittingCursor(buffer)
                JSONWriter.write(value, to: &cursor)
                initialized = cursor.fits ? cursor.count : 0
            }
            #expect(fitted == old)
            if old.count > 60 { nested += 1 }
        }
        #expect(nested > 400, "the generator makes nested trees")
    }

    /// The first duplicate key of a document, as the parser must report it: the key's text
    /// and the offset of its opening quote. Keys are equal as Swift's `==` says (canonical
    /// equivalence: the Kelvin sign is "K"). Nil when every object's keys are unique.
    static func firstDuplicate(_ value: JSONValue, keyOffsets: inout [Int]) -> (key: String, at: Int)? {
        switch value {
        case .array(let a):
            for v in a { if let d = firstDuplicate(v, keyOffsets: &keyOffsets) { return d } }
        case .object(let o):
            var seen: [String] = []
            for m in o.members {
                let at = keyOffsets.removeFirst()
                if seen.contains(m.key) { return (m.key, at) }
                seen.append(m.key)
                if let d = firstDuplicate(m.value, keyOffsets: &keyOffsets) { return d }
            }
        default: break
        }
        return nil
    }

    /// The offsets of the keys' opening quotes in a compact document, in the order written.
    static func keyOffsets(_ bytes: [UInt8]) -> [Int] {
        var out: [Int] = []
        var i = 0, inString = false, stringStart = 0
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b == UInt8(ascii: "\"") {
                    inString = false
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ":") { out.append(stringStart) }
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
                stringStart = i
            }
            i += 1
        }
        return out
    }

    @Test func duplicateKeysAreFoundWhereThePlainCheckFindsThem() throws {
        var g = JSONTreeGenerator(seed: 9)
        var refused = 0, accepted = 0
        for round in 0..<6_000 {
            // Objects that may repeat a key, at every level, around children that share keys.
            let value: JSONValue = .object(g.object(depth: 3, unique: round % 3 == 0))
            let bytes = JSONWriter.bytes(value)
            var offsets = Self.keyOffsets(bytes)
            let expected = Self.firstDuplicate(value, keyOffsets: &offsets)
            for keys in [nil, InternedKeys.dialectFields] {
                do {
                    let parsed = try JSONParser.parse(bytes, keys: keys)
                    #expect(expected == nil, "missed \(expected.map { "\($0.key) at \($0.at)" } ?? "") in \(String(decoding: bytes, as: UTF8.self))")
                    #expect(parsed == value)
                    accepted += 1
                } catch {
                    guard let expected else {
                        Issue.record("refused \(String(decoding: bytes, as: UTF8.self)): \(error)")
                        continue
                    }
                    #expect(error == JSONParseError("duplicate key \"\(expected.key)\"", at: expected.at))
                    refused += 1
                }
            }
        }
        #expect(refused > 1_000 && accepted > 1_000)
    }

    @Test func siblingsAndChildrenMayReuseTheirParentsKeys() throws {
        let body = #"{"a":{"a":{"a":1},"b":{"a":2}},"b":[{"a":1,"b":2},{"a":3}],"c":{"a":{}}}"#
        #expect(try JSONParser.parse(body).objectValue?.keys == ["a", "b", "c"])
        #expect(throws: JSONParseError("duplicate key \"a\"", at: 37)) {
            try JSONParser.parse(#"{"a":{"x":{"y":1},"z":2},"b":{"c":0},"a":3}"#)
        }
    }
}
