import Testing
@testable import PushBridgeServer

struct FingerprintTests {
    @Test func fingerprintIsShortSHA256AndHidesTheSecret() {
        // SHA-256("abc") = ba7816bf8f01cfea…
        #expect(Fingerprint.of("abc") == "sha256:ba7816bf8f01")
        #expect(!Fingerprint.of("secret-key").contains("secret"))
    }

    @Test func theShortFingerprintIsTheDigestsFirstSixBytesWhateverTheText() {
        for secret in ["", "abc", "bench-onesignal-key", "ñandú-ключ-🔑", String(repeating: "k", count: 1_000), "a\u{0}b"] {
            #expect(Fingerprint.of(secret) == Fingerprint.short(digest: Fingerprint.sha256(secret)), "\(secret.utf8.count) bytes")
        }
        // SHA-256("") = e3b0c44298fc…
        #expect(Fingerprint.of("") == "sha256:e3b0c44298fc")
    }

    @Test func constantTimeEqualsComparesContents() {
        #expect(Fingerprint.constantTimeEquals("k1", "k1"))
        #expect(!Fingerprint.constantTimeEquals("k1", "k2"))
        #expect(!Fingerprint.constantTimeEquals("k1", "k12"))
    }

    @Test func hexWritesTwoLowerCaseDigitsPerByteAndRoundTrips() {
        #expect(Fingerprint.hex([0x00, 0x0F, 0x10, 0xA5, 0xFF]) == "000f10a5ff")
        let all = (0...255).map { UInt8($0) }
        #expect(Fingerprint.hex(all) == all.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        #expect(Fingerprint.bytes(fromHex: Fingerprint.hex(all)) == all)
        #expect(Fingerprint.hex([UInt8]()) == "")
    }
}
