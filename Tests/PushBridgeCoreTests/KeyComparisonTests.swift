import Foundation
import Testing
@testable import PushBridgeCore

/// The cheaper key lookups of issue 31 item 1 (``KeyFingerprint`` in the parser's duplicate
/// check and in ``FieldReader``, ``Swift/String/firstIndexOfStandalone(_:)`` for field names)
/// must answer exactly what the `String` comparisons they skip answered: Swift compares text by
/// canonical equivalence and finds Characters, not bytes, so each is checked against the
/// standard library over texts made to hit the cases where bytes and Characters part ways
/// (the Kelvin sign that equals `K`, combining marks and joiners after a `.` or `/`, a
/// prepended scalar before one, long keys that share their first six bytes).
struct KeyComparisonTests {
    /// Pieces whose concatenations make the generated texts.
    static let pieces = ["a", "K", "\u{212A}", ".", "/", "\u{301}", "é", "e\u{301}", "\u{200D}", "\u{600}", "\r", "\n", "👨", "abcdef", "_", "\u{338}"]

    /// Deterministic texts: every piece alone, then `count` concatenations of 1 to 5 pieces.
    static func texts(count: Int) -> [String] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var out = pieces
        for _ in 0..<count {
            out.append((0...next(5)).map { _ in pieces[next(pieces.count)] }.joined())
        }
        return out
    }

    @Test func aFingerprintNeverSaysTwoEqualKeysDifferAndTellsASCIIKeysApart() {
        let keys = Self.texts(count: 300) + ["abcdefgX", "abcdefgY", "abcdefg", "Kelvin", "\u{212A}elvin", ""]
        var told = 0
        for a in keys {
            for b in keys {
                let maybe = KeyFingerprint(a).mayEqual(KeyFingerprint(b))
                if a == b { #expect(maybe, "\(a.debugDescription) == \(b.debugDescription) but the fingerprints differ") }
                if a.utf8.allSatisfy({ $0 < 0x80 }), b.utf8.allSatisfy({ $0 < 0x80 }), a.utf8.count <= 6, b.utf8.count <= 6 {
                    #expect(maybe == (a == b), "\(a.debugDescription) vs \(b.debugDescription)")
                    told += 1
                }
            }
        }
        #expect(told > 100)
    }

    @Test func theParserFindsDuplicateKeysAsStringEqualityDoes() throws {
        // Canonically equal keys are duplicates, as they always were: "\u212A" is the Kelvin sign.
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"Kelvin":1,"\u212Aelvin":2}"#) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"abcdefgX":1,"b":{"abcdefgX":1},"abcdefgX":2}"#) }
        let v = try JSONParser.parse(#"{"abcdefgX":1,"abcdefgY":{"abcdefgX":2},"abcdefg":3}"#)
        #expect(v.objectValue?.keys == ["abcdefgX", "abcdefgY", "abcdefg"])
        // Past 16 keys the check hashes; the first 16 were fingerprinted.
        let many = (0..<20).map { "\"key_\($0)\":\($0)" }.joined(separator: ",")
        #expect(try JSONParser.parse("{\(many)}").objectValue?.count == 20)
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{\(many),\"key_3\":0}") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{\(many),\"key_19\":0}") }
    }

    @Test func aFieldReaderFindsWhatAStringComparisonFinds() {
        let keys = Self.texts(count: 200)
        var object = JSONObject()
        for (i, k) in keys.enumerated() where object[k] == nil { object.appendUnchecked(k, .int(Int64(i))) }
        for wanted in keys + ["missing", "Kelvin"] {
            var reader = FieldReader(object)
            let expected = object.members.first(where: { $0.key == wanted })?.value
            #expect(reader.raw(wanted) == expected, "\(wanted.debugDescription)")
            #expect(!reader.unread.contains(where: { $0.key == wanted }) || expected == nil)
        }
    }

    @Test func standaloneSearchesAnswerWhatCharacterSearchesAnswer() {
        var checked = 0
        for text in Self.texts(count: 2000) {
            for byte in [UInt8(ascii: "."), UInt8(ascii: "/")] {
                let character = Character(UnicodeScalar(byte))
                let expected = text.firstIndex(of: character)
                let found = text.firstIndexOfStandalone(byte)
                #expect(found.map { text.utf8.distance(from: text.startIndex, to: $0) } == expected.map { text.utf8.distance(from: text.startIndex, to: $0) },
                        "\(text.debugDescription) \(character)")
                checked += 1
            }
        }
        #expect(checked == 2 * (2000 + Self.pieces.count))
    }

    @Test func aCallerFieldSplitsAtTheDotAsBefore() {
        var start = OpenPushStart(appId: "app", activityType: "T")
        start.includeAliases = ["external_id": .string("u1")]
        let request = OpenPushRequest(.start(start), sourceFields: ["include_aliases": "include_external_user_ids"])
        #expect(request.callerField("include_aliases.external_id") == "include_external_user_ids")
        #expect(request.callerField("include_aliases") == "include_external_user_ids")
        #expect(request.callerField("headings.en") == nil)
        #expect(OpenPushRequest(.start(start)).callerField("include_aliases.external_id") == nil)
    }

    /// Every dialect's mapping table, which ``Swift/Array/row(_:_:)`` searches.
    static let tables: [[FieldMapping]] = [OneSignalFieldMappings.table, PushwooshFieldMappings.table, BuzzKitFieldMappings.table]

    @Test func everyMappingTableFieldIsASCIISoTheLengthPrefilterIsExact() {
        let fields = Self.tables.flatMap { $0.map(\.field) }
        #expect(fields.count > 50)
        for field in fields { #expect(field.utf8.allSatisfy { $0 < 0x80 }, "\(field.debugDescription)") }
    }

    @Test func aTableRowIsFoundAsAStringComparisonFindsIt() {
        var lookedUp = 0
        for table in Self.tables {
            let fields = table.map(\.field)
            let variants = fields + fields.map { $0.replacingOccurrences(of: "k", with: "\u{212A}") } + fields.map { $0 + "x" } + Self.texts(count: 50)
            for route in RouteKind.allCases {
                for field in variants {
                    #expect(table.row(route, field) == table.first { $0.route == route && $0.field == field }, "\(route) \(field.debugDescription)")
                    lookedUp += 1
                }
            }
        }
        #expect(lookedUp > 300)
    }

    @Test func controlCharactersAreFoundInTheBytesAsInTheScalars() {
        let pieces = ["a", "\u{1F}", "\u{20}", "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "\u{C2}", "\u{100}", "é", "👨", "/"]
        var state: UInt64 = 7
        var checked = 0
        for n in 0..<3000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let text = (0...(n % 4)).map { i in pieces[Int((state >> (8 * UInt64(i) + 3)) % UInt64(pieces.count))] }.joined()
            let expected = text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
            #expect(OpenPushPath.hasControlCharacter(text) == expected, "\(text.debugDescription)")
            checked += expected ? 1 : 0
        }
        #expect(checked > 100)
    }
}
