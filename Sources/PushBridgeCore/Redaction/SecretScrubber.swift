/// Replaces every occurrence of a set of secrets in a text by the secret's fingerprint, in one
/// pass over the text whatever the number of secrets (an Aho–Corasick automaton over bytes):
/// building costs the secrets' total length, scrubbing the text's length. A run of 64 or more
/// hex digits (an APNs token's shape) is fingerprinted too, so a device token is caught where
/// no key names it.
///
/// Overlapping occurrences are replaced as one region; a region that is exactly one secret
/// becomes that secret's fingerprint, any other region the fingerprint of its own text.
/// Secrets shorter than ``Redaction/minimumSweepLength`` bytes are ignored (a one-character
/// "token" would erase that character everywhere).
public struct SecretScrubber: Sendable {
    /// Hex runs at least this long are taken for device tokens.
    public static let tokenRunLength = 64

    /// The automaton, built once and shared by every copy of the scrubber: a request's scrubber
    /// is passed down every walk of its documents, and a copy is then one reference instead of
    /// eight arrays.
    private let automaton: Automaton

    /// A scrubber for `secrets`, replacing each by `fingerprint(secret)`.
    public init<S: Sequence>(secrets: S, fingerprint: (String) -> String) where S.Element == String {
        var seen = Set<String>()
        let swept = secrets.filter { $0.utf8.count >= Redaction.minimumSweepLength && seen.insert($0).inserted }
        var trie = Trie(capacity: swept.reduce(1) { $0 + $1.utf8.count })
        for secret in swept { trie.insert(secret, replacement: fingerprint(secret)) }
        trie.linkFailures()
        automaton = Automaton(trie)
    }

    /// True when no secret is swept (hex runs still are).
    public var isEmpty: Bool { automaton.replacements.isEmpty }

    /// `text` with every secret and every hex run of ``tokenRunLength`` or more replaced;
    /// `fingerprint` names a region that is not exactly one secret (a hex run, an overlap).
    public func scrub(_ text: String, fingerprint: (String) -> String) -> String {
        var text = text
        guard let out = text.withUTF8({ automaton.scrubbed($0, fingerprint) }) else { return text }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text` (UTF-8) scrubbed like ``scrub(_:fingerprint:)``, or nil when
    /// nothing in it is to be replaced.
    func scrubbed(_ text: UnsafeBufferPointer<UInt8>, fingerprint: (String) -> String) -> [UInt8]? {
        automaton.scrubbed(text, fingerprint)
    }

    /// `bytes` (UTF-8 text) scrubbed like ``scrub(_:fingerprint:)``, or the same bytes when
    /// nothing matched.
    public func scrub(bytes: [UInt8], fingerprint: (String) -> String) -> [UInt8] {
        bytes.withUnsafeBufferPointer { automaton.scrubbed($0, fingerprint) } ?? bytes
    }
}
