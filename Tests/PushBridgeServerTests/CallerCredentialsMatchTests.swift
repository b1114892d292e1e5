import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 31, tenth pass: a caller's credential is checked against an app with its digest on
/// the stack and no arrays. `verify` and `apps(presenting:)` answer exactly what the matcher
/// before answered (copied here as the oracle) over apps sharing secrets, apps with several
/// callers, pass-through apps and unknown names.
struct CallerCredentialsMatchTests {
    /// The matcher before: the digest, the matches and the apps each an array.
    static func oldApps(_ apps: [AppConfiguration], presenting secret: String) -> [AppConfiguration] {
        let entries = apps.enumerated().flatMap { i, app in app.passThroughKey ? [] : app.callers.map { (app: i, digest: $0.digest) } }
        let digest = Fingerprint.sha256(secret)
        var matched = [Bool](repeating: false, count: apps.count)
        for entry in entries where Fingerprint.constantTimeEquals(entry.digest, digest) { matched[entry.app] = true }
        return apps.indices.filter { matched[$0] }.map { apps[$0] }
    }

    static func app(_ name: String, _ dialect: DialectName, _ secrets: [String], passThrough: Bool = false) -> AppConfiguration {
        AppConfiguration(name: name, dialect: dialect, sourceAppId: "src-" + name, openPushAppId: "app_1", openPushKey: nil,
                         callers: secrets.map { CallerCredential(secret: $0) }, passThroughKey: passThrough)
    }

    static let apps = [
        app("a", .onesignal, ["one", "shared"]),
        app("b", .pushwoosh, ["two"]),
        app("c", .buzzkit, ["shared", "three", "üñí 🚀 long secret that is over sixteen bytes"]),
        app("d", .onesignal, ["shared"], passThrough: true),
        app("e", .onesignal, []),
        app("f", .pushwoosh, ["two", "two"]),
    ]

    @Test func verifyAndTheMatchedAppsAreWhatTheyWere() {
        let credentials = CallerCredentials(apps: Self.apps)
        let secrets = ["one", "two", "three", "shared", "üñí 🚀 long secret that is over sixteen bytes", "", "none", "ONE", "one "]
        for secret in secrets {
            let old = Self.oldApps(Self.apps, presenting: secret)
            #expect(credentials.apps(presenting: secret).map(\.name) == old.map(\.name), "\(secret)")
            for name in Self.apps.map(\.name) + ["unknown", ""] {
                #expect(credentials.verify(secret, forAppNamed: name) == old.contains { $0.name == name }, "\(secret) for \(name)")
            }
        }
    }

    @Test func noAppsMatchesNothing() {
        let credentials = CallerCredentials(apps: [])
        #expect(credentials.apps(presenting: "one").isEmpty)
        #expect(!credentials.verify("one", forAppNamed: "a"))
    }
}
