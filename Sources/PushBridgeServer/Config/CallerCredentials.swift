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
        var matched = [Bool](repeating: false, count: apps.count)
        forEachApp(accepting: secret) { matched[$0] = true }
        return apps.indices.filter { matched[$0] }.map { apps[$0] }
    }

    /// Whether the app named `name` accepts `secret` (false for unknown apps). On every
    /// request's path: no array of the digest, the matches or the apps (issue 31: four
    /// allocations a request).
    public func verify(_ secret: String, forAppNamed name: String) -> Bool {
        var accepted = false
        forEachApp(accepting: secret) { if apps[$0].name == name { accepted = true } }
        return accepted
    }

    /// Calls `matched` with the index (in `apps`) of each entry whose digest is `secret`'s,
    /// in entry order: the secret hashed once into the stack, every entry compared in
    /// constant time and none skipped after a match.
    private func forEachApp(accepting secret: String, _ matched: (Int) -> Void) {
        Fingerprint.withSHA256(secret) { digest in
            for entry in entries where Fingerprint.constantTimeEquals(entry.digest, digest) {
                matched(entry.app)
            }
        }
    }
}
