import Testing
@testable import PushBridgeCore

/// The OpenPush body counted, then written through a raw cursor (issue 31, branch
/// `translate2`) is byte for byte what the array writer it replaced wrote from the body's
/// tree, over 3,000 generated starts and updates: every optional field present or absent,
/// strings with quotes, backslashes, control bytes and non-ASCII at any offset, integers at
/// both ends of 64 bits, nested objects and arrays.
struct OpenPushBodyRawWriterTests {
    /// The array writer before `translate2`, kept here as the oracle (strings through
    /// ``JSONWriter/writeEscaped(_:into:)``, the byte-by-byte writer).
    static func oracle(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.literal.utf8)
        case .string(let s): JSONWriter.writeEscaped(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                oracle(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeEscaped(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                oracle(m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static let integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 1_781_049_600, -1_781_049_600, .max, .min, .max - 1, .min + 1, 1 << 53]

    /// A string of 0 to 40 bytes: plain, with something to escape, or non-ASCII.
    static func text(_ g: inout RedactionOverBytesGeneratedTests.Generator) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "👨‍🍳", "—", "/", "{{", "}}"]
        var s = ""
        for _ in 0..<g.next(41) { s += g.next(4) == 0 ? g.pick(pieces) : "x" }
        return s
    }

    /// A JSON value up to `depth` levels deep.
    static func value(_ g: inout RedactionOverBytesGeneratedTests.Generator, depth: Int) -> JSONValue {
        switch g.next(depth > 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(g.next(2) == 0)
        case 2: return .int(integers[g.next(integers.count)])
        case 3: return .number(JSONNumber(Double(g.next(1_000_000)) / 7))
        case 4: return .string(text(&g))
        case 5: return .array((0..<g.next(4)).map { _ in value(&g, depth: depth - 1) })
        default: return .object(object(&g, depth: depth - 1))
        }
    }

    static func object(_ g: inout RedactionOverBytesGeneratedTests.Generator, depth: Int) -> JSONObject {
        var o = JSONObject()
        for i in 0..<g.next(5) { o[text(&g) + "\(i)"] = value(&g, depth: depth) }
        return o
    }

    /// Generated requests: half starts, half updates, each optional field present one time in two.
    static func requests(count: Int) -> [OpenPushRequest] {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 31)
        func maybe<T>(_ make: () -> T) -> T? { g.next(2) == 0 ? make() : nil }
        func int() -> Int64 { integers[g.next(integers.count)] }
        return (0..<count).map { i in
            if i % 2 == 0 {
                var s = OpenPushStart(appId: text(&g), activityType: text(&g))
                s.event = maybe { text(&g) }
                s.activityId = maybe { text(&g) }
                s.name = maybe { text(&g) }
                s.eventAttributes = maybe { object(&g, depth: 2) }
                s.eventUpdates = maybe { object(&g, depth: 2) }
                s.headings = maybe { object(&g, depth: 1) }
                s.contents = maybe { object(&g, depth: 1) }
                s.includeAliases = maybe { object(&g, depth: 1) }
                s.includeSubscriptionIds = maybe { (0..<g.next(3)).map { _ in text(&g) } }
                s.includedSegments = maybe { (0..<g.next(3)).map { _ in text(&g) } }
                s.excludedSegments = maybe { (0..<g.next(3)).map { _ in text(&g) } }
                s.filters = maybe { (0..<g.next(3)).map { _ in value(&g, depth: 2) } }
                s.staleDate = maybe(int)
                s.dismissalDate = maybe(int)
                s.priority = maybe(int)
                s.relevanceScore = maybe { JSONNumber(Double(g.next(100)) / 100) }
                s.iosSound = maybe { text(&g) }
                s.sound = maybe { text(&g) }
                s.idempotencyKey = maybe { text(&g) }
                return OpenPushRequest(.start(s))
            }
            var u = OpenPushUpdate(appId: text(&g), activityId: text(&g), event: maybe { text(&g) })
            u.name = maybe { text(&g) }
            u.eventUpdates = maybe { object(&g, depth: 2) }
            u.headings = maybe { object(&g, depth: 1) }
            u.contents = maybe { object(&g, depth: 1) }
            u.staleDate = maybe(int)
            u.dismissalDate = maybe(int)
            u.priority = maybe(int)
            u.relevanceScore = maybe { JSONNumber(Int64(g.next(3))) }
            u.iosSound = maybe { text(&g) }
            u.sound = maybe { text(&g) }
            return OpenPushRequest(.update(u))
        }
    }

    @Test func generatedBodiesAreTheBytesTheArrayWriterWrote() throws {
        let requests = Self.requests(count: 3_000)
        #expect(requests.count == 3_000)
        var escaped = 0
        for request in requests {
            var old: [UInt8] = []
            Self.oracle(.object(request.body), into: &old)
            let new = request.bodyBytes
            #expect(new == old, "\(String(decoding: new, as: UTF8.self)) vs \(String(decoding: old, as: UTF8.self))")
            if old.contains(0x5C) { escaped += 1 }
            // The redaction's copy writes through the array sink: the same bytes after a prefix.
            var appended: [UInt8] = [7]
            switch request.payload {
            case .start(let s): s.writeBody(into: &appended)
            case .update(let u): u.writeBody(into: &appended)
            }
            #expect(appended == [7] + old)
        }
        // The generated inputs reach the escape path, not only plain strings.
        #expect(escaped > 1_000, "only \(escaped) bodies had an escape")
    }

    @Test func integersAreWrittenAsStringWritesThem() {
        var values = Self.integers
        var g = RedactionOverBytesGeneratedTests.Generator(state: 7)
        for _ in 0..<2_000 { values.append(Int64(bitPattern: UInt64(g.next(Int.max)) &* UInt64(g.next(1 << 20) + 1))) }
        for v in values {
            var out: [UInt8] = []
            JSONWriter.putDigits(v, to: &out)
            #expect(out == Array(String(v).utf8), "\(v)")
        }
    }
}
