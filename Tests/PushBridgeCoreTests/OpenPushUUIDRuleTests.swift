import Testing
@testable import PushBridgeCore

/// `OpenPushRules.isUUID` reads the string's own bytes (issue 31, branch `translate4`) instead of
/// an array copied from them: the same answer as the array reading it replaced (kept here as the
/// oracle) for UUIDs of both cases and every byte of them replaced by each kind of byte, cut,
/// extended, with non-ASCII, combining marks, and small and large strings.
struct OpenPushUUIDRuleTests {
    /// The old reading: the bytes copied into an array, then checked.
    static func oracle(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !((0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)) {
                return false
            }
        }
        return true
    }

    static let replacements = ["0", "9", "a", "f", "A", "F", "g", "G", "-", " ", "\u{0}", "\u{7F}", "é", "e\u{301}", "\u{301}", "😀", "/", ":", "@", "`", "", "00"]

    @Test func everyByteReplacedGivesTheArrayReadingsAnswer() {
        let bases = ["5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2", "5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2", "00000000-0000-0000-0000-000000000000"]
        var valid = 0, invalid = 0
        for base in bases {
            #expect(OpenPushRules.isUUID(base))
            let chars = Array(base)
            for i in chars.indices {
                for r in Self.replacements {
                    var c = chars
                    c.replaceSubrange(i...i, with: Array(r))
                    let s = String(c)
                    let answer = OpenPushRules.isUUID(s)
                    #expect(answer == Self.oracle(s), "\(s.unicodeScalars.map { $0.value })")
                    if answer { valid += 1 } else { invalid += 1 }
                }
            }
            for cut in [0, 1, 15, 35] { #expect(OpenPushRules.isUUID(String(base.prefix(cut))) == Self.oracle(String(base.prefix(cut)))) }
            for extra in ["0", "-", " ", "é"] { #expect(OpenPushRules.isUUID(base + extra) == false) }
        }
        #expect(valid > 100 && invalid > 1_000, "\(valid) \(invalid)")
        // A string not made from a literal (built at run time), and one from a substring.
        let built = (0..<5).map { ["5f7a2c1e", "9b40", "4a2d", "8c31", "6e0b7d94a1f2"][$0] }.joined(separator: "-")
        #expect(OpenPushRules.isUUID(built))
        #expect(OpenPushRules.isUUID(String("x" + built + "x").dropFirst().dropLast().description))
        #expect(!OpenPushRules.isUUID(""))
    }
}
