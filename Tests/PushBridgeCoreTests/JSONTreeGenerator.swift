@testable import PushBridgeCore

/// Generated JSON trees for the tests that hold a rewritten parser or writer loop to the loop
/// it replaced: objects and arrays nested up to four deep, keys drawn from a few short names
/// (so that siblings, parents and children share keys, and some objects repeat one), strings
/// that need escapes and strings that do not, numbers kept as literals.
struct JSONTreeGenerator {
    /// The generator's state (a linear congruential generator: the same trees every run).
    private var state: UInt64

    /// A generator whose trees are fixed by `seed`.
    init(seed: UInt64) { state = seed }

    /// A number in `0..<n`.
    mutating func next(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(truncatingIfNeeded: state >> 33) % n
    }

    /// The keys objects are made from: few, so that they repeat across levels.
    static let keys = ["a", "b", "en", "x", "event_attributes", "included_segments", "k\u{e9}", "K", "\u{212A}", "q\"uote", "long_key_of_twenty_b"]
    /// The strings values are made from.
    static let strings = ["", "On the way", "Arriving in about 22 minutes", "tab\there", "quote\"d", "back\\slash", "caf\u{e9}", "\u{1F}", "a/b", String(repeating: "z", count: 40)]
    /// The number literals values are made from.
    static let numbers = ["0", "-1", "22", "10", "3.5", "1e3", "-0.25E-2", "9223372036854775807"]

    /// A value nested at most `depth` more levels.
    mutating func value(depth: Int) -> JSONValue {
        switch next(depth > 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(next(2) == 0)
        case 2: return .number(JSONNumber(validatedLiteral: Self.numbers[next(Self.numbers.count)]))
        case 3, 4: return .string(Self.strings[next(Self.strings.count)])
        case 5: return .array((0..<next(5)).map { _ in value(depth: depth - 1) })
        default: return .object(object(depth: depth - 1, unique: true))
        }
    }

    /// An object of up to six members; with `unique` false, a key may be used twice.
    mutating func object(depth: Int, unique: Bool) -> JSONObject {
        var members: [JSONMember] = []
        for _ in 0..<next(7) {
            let key = Self.keys[next(Self.keys.count)]
            if unique, members.contains(where: { $0.key == key }) { continue }
            members.append(JSONMember(key, value(depth: depth)))
        }
        return JSONObject(members: members)
    }
}
