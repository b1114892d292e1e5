@testable import PushBridgeServer
import Testing

/// The one byte-bounded cut that log values, metric labels and audit bodies share: never more
/// bytes than allowed, never half a character.
@Suite struct UTF8PrefixTests {
    @Test func aStringThatFitsIsReturnedWhole() {
        #expect("héllo".utf8Prefix(maxBytes: 6) == "héllo")
        #expect("".utf8Prefix(maxBytes: 0) == "")
    }

    @Test func asciiIsCutAtTheLimit() {
        #expect("abcdef".utf8Prefix(maxBytes: 4) == "abcd")
        #expect("abcdef".utf8Prefix(maxBytes: 0) == "")
    }

    @Test(arguments: [
        ("aé", 2, "a"), ("aé", 3, "aé"),            // é is 2 bytes
        ("a€b", 3, "a"), ("a€b", 4, "a€"),          // € is 3 bytes
        ("a🚚b", 4, "a"), ("a🚚b", 5, "a🚚"),       // 🚚 is 4 bytes
    ])
    func aMultiByteCharacterIsDroppedWholeNeverCut(text: String, limit: Int, expected: String) {
        let cut = text.utf8Prefix(maxBytes: limit)
        #expect(cut == expected)
        #expect(cut.utf8.count <= limit)
    }
}
