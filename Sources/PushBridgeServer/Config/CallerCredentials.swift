/// Finds which app a presented credential belongs to. The secret is hashed once; its digest is
/// compared with every configured digest using `CRYPTO_memcmp`, without stopping at a match,
/// so timing reveals neither the secret nor which app it matched.
public struct CallerCredentials: Sendable {
    private let entries: [(app: Int, digest: [UInt8])]
    private let apps: [AppConfiguration]

    /// A matcher over the apps' caller credentials (pass-through apps never match).
    public init(apps: [AppConfiguration]) {
        self.apps = apps
        entries = apps.enumerated().flatMap { i, app in
            app.passThroughKey ? [] : app.callers.map { (app: i, digest: $0.digest) }
        }
    }

    /// Every app accepting `secret`, in configuration order.
    public func apps(presenting secret: String) -> [AppConfiguration] {
        let digest = Fingerprint.sha256(secret)
        var matched = [Bool](repeating: false, count: apps.count)
        for entry in entries where Fingerprint.constantTimeEquals(entry.digest, digest) {
            matched[entry.app] = true
        }
        return apps.indices.filter { matched[$0] }.map { apps[$0] }
    }

    /// Whether the app named `name` accepts `secret` (false for unknown apps).
    public func verify(_ secret: String, forAppNamed name: String) -> Bool {
        apps(presenting: secret).contains { $0.name == name }
    }
}
