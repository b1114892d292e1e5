import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 29 item 15 (the doubles): what `GET /_doubles/requests` shows of the requests a real
/// proxy forwarded to the legacy doubles carries no caller key, Pushwoosh `auth`, bearer token
/// or device token in clear, wherever a body or a path repeats one: each is its fingerprint.
@Suite(.serialized) struct LegacyDoublesScrubLiveTests {
    static let oneSignalKey = "demo-onesignal-key", pushwooshAuth = "demo-pushwoosh-auth", bearer = "demo-buzzkit-token"
    static let deviceToken = "hwid-device-token-7Qx91zK"

    /// The demo's three apps in observe, each dialect's legacy provider its double.
    static var demoOnDoubles: TestConfiguration {
        TestConfiguration.demo(audit: nil).with {
            $0.setMode(.observe)
            $0.readiness = nil
            for dialect in DialectName.allCases { $0.legacy[dialect] = TestConfiguration.legacyDouble }
            $0.legacyDoubles = .init(listen: "127.0.0.1:0", keep: 100)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func theRequestsViewFingerprintsEverySecretABodyOrPathRepeats() async throws {
        let proxy = try ProxyHarness(.live, configuration: Self.demoOnDoubles, environment: TestConfiguration.demoEnvironment)
        let doubles = try #require(proxy.runtime.legacyDoubles)
        let oneSignal = Array(#"{"event":"start","activity_id":"scrub_1","name":"Order","event_attributes":{"orderNumber":"1"},"event_updates":{"stage":"x"},"headings":{"en":"Hi"},"contents":{"en":"ref \#(Self.oneSignalKey)"},"include_aliases":{"external_id":["alice"]}}"#.utf8)
        let pushwoosh = Array(#"{"request":{"application":"DEMO1-23456","auth":"\#(Self.pushwooshAuth)","notifications":[{"content":"auth \#(Self.pushwooshAuth) to \#(Self.deviceToken)","title":"t","devices":["\#(Self.deviceToken)"],"live_activity":{"event":"start","title":"o","content-state":{"status":"x"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"scrub_2"}]}}"#.utf8)
        let buzzkit = Array(#"{"to":"alice","event":"start","activityId":"scrub_3","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"via \#(Self.bearer)"}}"#.utf8)
        let json = ("Content-Type", "application/json")
        #expect(try await proxy.send(path: "/apps/5eb5a37e-b458-11e3-ac11-000c2940e62c/activities/activity/DeliveryAttributes", body: oneSignal,
                                     headers: [json, ("Authorization", "Key \(Self.oneSignalKey)")]).status == 201)
        #expect(try await proxy.send(path: "/json/1.3/startLiveActivity", body: pushwoosh, headers: [json]).status == 200)
        #expect(try await proxy.send(path: "/v1/live-activities/send", body: buzzkit, headers: [json, ("Authorization", "Bearer \(Self.bearer)")]).status == 200)

        let port = try #require(UInt16(doubles.baseURL.split(separator: ":").last ?? ""))
        let view = try await RawHTTPClient.send(port: port, target: "/_doubles/requests")
        let received = try JSONParser.parse(view.body).objectValue?["requests"]?.arrayValue
        #expect(view.status == 200 && received?.count == 3, "\(view.text)")
        for secret in [Self.oneSignalKey, Self.pushwooshAuth, Self.bearer, Self.deviceToken] {
            #expect(!view.text.contains(secret), "\(secret) in clear: \(view.text)")
            #expect(view.text.contains(Fingerprint.of(secret)), "no fingerprint of \(secret): \(view.text)")
        }
        await proxy.stop()
    }
}
