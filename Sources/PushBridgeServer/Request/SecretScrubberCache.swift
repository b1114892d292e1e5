import PushBridgeCore
import Synchronization

/// The scrubbers of the secret sets requests arrive with before authentication (the configured
/// keys and the presented credential: the same few sets, request after request), kept so that
/// each set's automaton and its secrets' fingerprints are made once, not at every request.
///
/// At most ``capacity`` sets, the oldest made dropped first: a caller presenting a new
/// credential at every request only makes each one's scrubber, as before, and the memory held
/// stays bounded. A set is found by its secrets, in order, so a reload that changes a key
/// makes a new scrubber (and the old one ages out).
final class SecretScrubberCache: Sendable {
    /// The proxy's cache (``Inbound/unauthenticatedScrubber(configured:credential:)``).
    static let unauthenticated = SecretScrubberCache(capacity: 32)

    /// How many sets it keeps.
    let capacity: Int
    /// How a set's scrubber is made (the proxy's: ``SecretScrubber`` with ``Fingerprint/of(_:)``).
    private let make: @Sendable ([String]) -> SecretScrubber
    /// The sets kept, oldest first.
    private let entries: Mutex<[(secrets: [String], scrubber: SecretScrubber)]>

    /// A cache of at most `capacity` sets (at least one), each made by `make`.
    init(capacity: Int, make: @escaping @Sendable ([String]) -> SecretScrubber = { SecretScrubber(secrets: $0, fingerprint: Fingerprint.of) }) {
        self.capacity = max(1, capacity)
        self.make = make
        var entries: [(secrets: [String], scrubber: SecretScrubber)] = []
        entries.reserveCapacity(self.capacity)
        self.entries = Mutex(entries)
    }

    /// The scrubber of `secrets`: the one kept for the same secrets, or a new one, then kept.
    func scrubber(for secrets: [String]) -> SecretScrubber {
        if let kept = entries.withLock({ $0.first { $0.secrets == secrets }?.scrubber }) { return kept }
        // Made outside the lock: another thread may make the same set meanwhile; one is kept.
        let made = make(secrets)
        entries.withLock { entries in
            guard !entries.contains(where: { $0.secrets == secrets }) else { return }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append((secrets: secrets, scrubber: made))
        }
        return made
    }

    /// The set kept for `configured` followed by `credential` (if any), with its scrubber,
    /// found by comparing in place: no array of the set is made to look for it. Nil when no
    /// such set is kept (``scrubber(for:)`` makes and keeps one).
    func kept(configured: [String], then credential: String?) -> (secrets: [String], scrubber: SecretScrubber)? {
        let count = configured.count + (credential == nil ? 0 : 1)
        return entries.withLock { entries in
            entries.first { entry in
                entry.secrets.count == count && entry.secrets.prefix(configured.count).elementsEqual(configured)
                    && credential.map { entry.secrets[configured.count] == $0 } ?? true
            }
        }
    }

    /// How many sets are kept now.
    var count: Int { entries.withLock { $0.count } }
}
