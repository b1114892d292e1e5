import PushBridgeCore
@testable import PushBridgeServer
import Synchronization
import Testing

/// The scrubbers of the secret sets requests arrive with are made once per set
/// (``SecretScrubberCache``), not at every request, and scrub exactly as a new one would.
struct SecretScrubberCacheTests {
    /// How many scrubbers a cache made.
    final class Made: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    /// A cache of `capacity` sets that counts how many scrubbers it made.
    static func counting(capacity: Int) -> (SecretScrubberCache, Made) {
        let made = Made()
        return (SecretScrubberCache(capacity: capacity) { secrets in
            made.add()
            return SecretScrubber(secrets: secrets, fingerprint: Fingerprint.of)
        }, made)
    }

    static let configured = ["os-rest-key-0123456789", "pw-api-token-abcdefghij"]

    @Test func theSameSecretsGetTheScrubberMadeForThemOnce() {
        let (cache, made) = Self.counting(capacity: 4)
        let secrets = Self.configured + ["caller-key-zyxwvutsrq"]
        let text = "sent caller-key-zyxwvutsrq and os-rest-key-0123456789"
        let fresh = SecretScrubber(secrets: secrets, fingerprint: Fingerprint.of).scrub(text, fingerprint: Fingerprint.of)
        for _ in 0..<5 {
            #expect(cache.scrubber(for: secrets).scrub(text, fingerprint: Fingerprint.of) == fresh)
        }
        #expect(made.count == 1)
        #expect(!fresh.contains("caller-key-zyxwvutsrq") && !fresh.contains("os-rest-key-0123456789"))
    }

    @Test func aKeptSetIsFoundFromTheConfiguredKeysAndTheCredentialWithoutItsArray() {
        let (cache, made) = Self.counting(capacity: 4)
        #expect(cache.kept(configured: Self.configured, then: "caller-key-zyxwvutsrq") == nil)
        let text = "sent caller-key-zyxwvutsrq and os-rest-key-0123456789"
        let withCredential = cache.scrubber(for: Self.configured + ["caller-key-zyxwvutsrq"]).scrub(text, fingerprint: Fingerprint.of)
        let without = cache.scrubber(for: Self.configured).scrub(text, fingerprint: Fingerprint.of)
        #expect(withCredential != without, "the credential is scrubbed by the first set only")
        let found = cache.kept(configured: Self.configured, then: "caller-key-zyxwvutsrq")
        #expect(found?.secrets == Self.configured + ["caller-key-zyxwvutsrq"])
        #expect(found?.scrubber.scrub(text, fingerprint: Fingerprint.of) == withCredential)
        let foundWithout = cache.kept(configured: Self.configured, then: nil)
        #expect(foundWithout?.secrets == Self.configured && foundWithout?.scrubber.scrub(text, fingerprint: Fingerprint.of) == without)
        // Another credential, another order of the keys, a prefix of the keys: none is that set.
        #expect(cache.kept(configured: Self.configured, then: "other-key-0000000000") == nil)
        #expect(cache.kept(configured: Self.configured.reversed(), then: "caller-key-zyxwvutsrq") == nil)
        #expect(cache.kept(configured: [Self.configured[0]], then: Self.configured[1]) != nil, "the same secrets in the same order")
        #expect(cache.kept(configured: [Self.configured[0]], then: nil) == nil)
        #expect(made.count == 2)
    }

    @Test func anotherCredentialGetsItsOwnScrubberAndTheOldestSetIsDroppedPastTheCapacity() {
        let (cache, made) = Self.counting(capacity: 2)
        let a = Self.configured + ["credential-a-0000000000"], b = Self.configured + ["credential-b-1111111111"]
        let c = Self.configured
        _ = cache.scrubber(for: a)
        let scrubbedB = cache.scrubber(for: b).scrub("credential-b-1111111111 credential-a-0000000000", fingerprint: Fingerprint.of)
        #expect(scrubbedB.contains("credential-a-0000000000") && !scrubbedB.contains("credential-b-1111111111"),
                "b's scrubber sweeps b's credential, not a's")
        #expect(made.count == 2)
        _ = cache.scrubber(for: c)
        #expect(made.count == 3 && cache.count == 2)
        _ = cache.scrubber(for: b)
        #expect(made.count == 3, "b is still kept")
        _ = cache.scrubber(for: a)
        #expect(made.count == 4 && cache.count == 2, "a was the oldest and went")
    }

    @Test func theProxysScrubberBeforeAuthenticationSweepsTheKeysAndTheCredential() {
        let (extra, scrubber) = Inbound.unauthenticatedScrubber(configured: Self.configured, credential: "presented-credential-42")
        #expect(extra == Self.configured + ["presented-credential-42"])
        let text = "presented-credential-42 / pw-api-token-abcdefghij"
        #expect(scrubber.scrub(text, fingerprint: Fingerprint.of)
                == SecretScrubber(secrets: extra, fingerprint: Fingerprint.of).scrub(text, fingerprint: Fingerprint.of))
        #expect(scrubber.scrub(text, fingerprint: Fingerprint.of).contains(Fingerprint.of("presented-credential-42")))
    }
}
