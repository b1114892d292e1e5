import Testing
@testable import PushBridgeCore

/// ``JSONNumber/int64Value`` reads a literal of at most 18 digits from its bytes (issue 31,
/// branch `translate9`), and must answer exactly what the general path answers: `Int64(literal)`
/// when the literal has no fraction and no exponent, nil otherwise. Held over every literal the
/// parser accepts around the 18-digit edge and Int64's ends, and over generated strings of
/// digits, signs, dots and exponents (``JSONNumber`` is also made from other text by tests and
/// callers). An equivalence, so it does not fail on the code before; it fails on the mutant that
/// reads 19 digits (they wrap past Int64.max: "-9999999999999999999" traps).
struct JSONShortDecimalTests {
    /// The general path, as `int64Value` was before the short read.
    static func oracle(_ literal: String) -> Int64? {
        let isInteger = !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        return isInteger ? Int64(literal) : nil
    }

    static let edges: [String] = {
        var out = ["0", "-0", "5", "10", "-1", "007", "-007", "", "-", "+1", "1.0", "1e3", "1E3", "-1.5e-3", " 1", "1 ", "1_0",
                   "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809"]
        for n in 1...21 {
            out.append(String(repeating: "9", count: n))
            out.append("-" + String(repeating: "9", count: n))
            out.append("1" + String(repeating: "0", count: n - 1))
        }
        return out
    }()

    @Test func edgeLiteralsReadAsTheGeneralPathReadsThem() {
        for literal in Self.edges {
            #expect(JSONNumber(validatedLiteral: literal).int64Value == Self.oracle(literal), "\(literal.debugDescription)")
        }
    }

    @Test func parsedNumbersReadAsTheGeneralPathReadsThem() throws {
        for literal in Self.edges where (try? JSONParser.parse(literal)) != nil {
            guard case .number(let n)? = try? JSONParser.parse(literal) else { Issue.record("\(literal)"); continue }
            #expect(n.int64Value == Self.oracle(n.literal), "\(literal)")
        }
    }

    @Test func generatedLiteralsReadAsTheGeneralPathReadsThem() {
        var g = JSONTreeGenerator(seed: 18)
        let pieces: [Character] = ["0", "1", "5", "9", "9", "9", "-", "+", ".", "e", "E", "/", ":", "a"]
        var short = 0
        for _ in 0..<40_000 {
            var literal = g.next(3) == 0 ? "-" : ""
            let length = g.next(23)
            for _ in 0..<length { literal.append(g.next(6) == 0 ? pieces[g.next(pieces.count)] : pieces[g.next(4)]) }
            let n = JSONNumber(validatedLiteral: literal)
            #expect(n.int64Value == Self.oracle(literal), "\(literal.debugDescription)")
            if JSONNumber.shortDecimal(literal) != nil { short += 1 }
        }
        #expect(short > 5_000, "the short read answers most integer literals")
    }
}
