/// A secret value read from the environment. Its descriptions, debug descriptions and mirror
/// show only a short fingerprint, so printing a configuration never prints a key.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The clear value; use only to put it on the wire.
    public let value: String

    /// Wraps a value.
    public init(_ value: String) { self.value = value }

    /// `secret(sha256:…)`.
    public var description: String { "secret(\(Fingerprint.of(value)))" }
    /// Same as `description`.
    public var debugDescription: String { description }
    /// A mirror without the value.
    public var customMirror: Mirror { Mirror(self, children: ["fingerprint": Fingerprint.of(value)]) }

    /// Constant-time equality.
    public static func == (a: Secret, b: Secret) -> Bool { Fingerprint.constantTimeEquals(a.value, b.value) }
}
