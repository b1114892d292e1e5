import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The key two identical updates share (``UpdateRepeats/key(for:key:sourceApp:)``): none for
/// anything that holds a start (now decided before anything is hashed), the same for the same
/// updates, another for another body, key or source app.
struct UpdateRepeatsKeyTests {
    static let repeats = UpdateRepeats(window: .seconds(30))

    static func update(_ activity: String, event: String = "update") -> OpenPushRequest {
        OpenPushRequest(.update(OpenPushUpdate(appId: "app_a", activityId: activity, event: event)))
    }

    static let start = OpenPushRequest(.start(OpenPushStart(appId: "app_a", activityType: "Delivery")))

    @Test func aStartOrAnythingHoldingOneHasNoKey() {
        #expect(Self.repeats.key(for: [Self.start], key: "k", sourceApp: "onesignal/a") == nil)
        #expect(Self.repeats.key(for: [Self.update("x"), Self.start], key: "k", sourceApp: "onesignal/a") == nil)
        #expect(Self.repeats.key(for: [Self.start, Self.update("x")], key: "k", sourceApp: "onesignal/a") == nil)
        #expect(Self.repeats.key(for: [], key: "k", sourceApp: "onesignal/a") == nil)
    }

    @Test func theSameUpdatesShareAKeyAndAnyDifferenceGivesAnother() throws {
        let key = try #require(Self.repeats.key(for: [Self.update("x")], key: "k", sourceApp: "onesignal/a"))
        #expect(key.count == 64, "a SHA-256 in hex")
        #expect(Self.repeats.key(for: [Self.update("x")], key: "k", sourceApp: "onesignal/a") == key)
        #expect(Self.repeats.key(for: [Self.update("y")], key: "k", sourceApp: "onesignal/a") != key)
        #expect(Self.repeats.key(for: [Self.update("x", event: "end")], key: "k", sourceApp: "onesignal/a") != key)
        #expect(Self.repeats.key(for: [Self.update("x")], key: "k2", sourceApp: "onesignal/a") != key)
        #expect(Self.repeats.key(for: [Self.update("x")], key: "k", sourceApp: "onesignal/b") != key)
        #expect(UpdateRepeats(window: .zero).key(for: [Self.update("x")], key: "k", sourceApp: "onesignal/a") == nil)
    }
}
