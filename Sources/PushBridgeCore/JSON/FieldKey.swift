/// A key a ``FieldReader`` is asked for, with its ``KeyFingerprint`` made when the key is
/// made. A decoder's keys are `static let`s (see `FieldKey+Dialects.swift`), so a lookup no
/// longer fingerprints its key from a `String` each time it runs (issue 31, branch
/// `translate2`: 18 lookups per OneSignal start). A string literal is a key too (fingerprinted
/// where it is written, as before), and ``init(_:)`` makes one from any `String`.
public struct FieldKey: ExpressibleByStringLiteral, Sendable {
    /// The key as it appears in the caller's body.
    public let name: String
    /// The summary that lets a lookup skip members whose keys cannot be this one.
    let fingerprint: KeyFingerprint

    /// A key from its text.
    public init(_ name: String) {
        self.name = name
        fingerprint = KeyFingerprint(name)
    }

    /// A key from a string literal.
    public init(stringLiteral name: String) { self.init(name) }
}
