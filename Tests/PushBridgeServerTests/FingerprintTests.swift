import Testing
@testable import PushBridgeServer

struct FingerprintTests {
    @Test func fingerprintIsShortSHA256AndHidesTheSecret() {
        // SHA-256("abc") = ba7816bf8f01cfea…
        #expect(Fingerprint.of("abc") == "sha256:ba7816bf8f01")
        #expect(!Fingerprint.of("secret-key").contains("secret"))
    }

    @Test func constantTimeEqualsComparesContents() {
        #expect(Fingerprint.constantTimeEquals("k1", "k1"))
        #expect(!Fingerprint.constantTimeEquals("k1", "k2"))
        #expect(!Fingerprint.constantTimeEquals("k1", "k12"))
    }
}
