import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 31, tenth pass: an app's idempotency scope (`<dialect>/<source_app_id>`) is made with
/// the app, not per request. Every read gives the same text as the formula before, and the one
/// the app holds (the getter before built a new string on every read: two per request).
struct IdempotencyScopeOnceTests {
    static func app(_ dialect: DialectName, _ source: String) -> AppConfiguration {
        AppConfiguration(name: "n", dialect: dialect, sourceAppId: source, openPushAppId: "app_1", openPushKey: nil, passThroughKey: true)
    }

    /// Where a string's UTF-8 bytes are stored (nil for a string that keeps no storage of its own).
    static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test(arguments: DialectName.allCases)
    func theScopeIsTheDialectAndTheSourceAppId(dialect: DialectName) {
        for source in ["5eb5a37e-b458-11e3-ac11-000c2940e62c", "A1B2C-3D4E5", "ünï/cödé id", ""] {
            #expect(Self.app(dialect, source).idempotencyScope == dialect.rawValue + "/" + source)
        }
    }

    @Test func everyReadIsTheTextTheAppHolds() {
        let app = Self.app(.onesignal, "5eb5a37e-b458-11e3-ac11-000c2940e62c")
        let first = app.idempotencyScope
        let second = app.idempotencyScope
        #expect(first == second)
        let firstStorage = Self.storage(first), secondStorage = Self.storage(second)
        #expect(firstStorage != nil && firstStorage == secondStorage, "the scope was made again for this read")
    }

    @Test func settingTheDialectOrTheSourceAppIdMakesItAgain() {
        var app = Self.app(.onesignal, "5eb5a37e-b458-11e3-ac11-000c2940e62c")
        app.dialect = .pushwoosh
        #expect(app.idempotencyScope == "pushwoosh/5eb5a37e-b458-11e3-ac11-000c2940e62c")
        app.sourceAppId = "A1B2C-3D4E5"
        #expect(app.idempotencyScope == "pushwoosh/A1B2C-3D4E5")
        app.name = "renamed"
        #expect(app.idempotencyScope == "pushwoosh/A1B2C-3D4E5")
    }
}
