import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The embedded legacy doubles in process: each answers its provider's documented success
/// shape for start and update/end, its documented error for an activity it never started,
/// validates the credential and app id shapes, and records what it received with every secret
/// as a fingerprint, keeping only the last `keep`.
@Suite struct LegacyDoublesTests {
    static let oneSignalApp = "5eb5a37e-b458-11e3-ac11-000c2940e62c"

    func post(_ service: LegacyDoubleService, _ target: String, _ body: String, headers: [(name: String, value: String)] = []) -> (status: Int, body: JSONObject, headers: [(name: String, value: String)]) {
        let response = service.handle(HTTPRequest(method: "POST", target: target, headers: headers, body: Array(body.utf8)))
        return (response.status, (try? JSONParser.parse(response.body))?.objectValue ?? [:], response.headers)
    }

    func view(_ service: LegacyDoubleService, _ target: String) throws -> JSONObject {
        let response = service.handle(HTTPRequest(method: "GET", target: target))
        #expect(response.status == 200)
        return try #require(try JSONParser.parse(response.body).objectValue)
    }

    @Test func theOneSignalDoubleStartsUpdatesAndEndsAndAnswers404ForAnActivityItNeverStarted() throws {
        let doubles = LegacyDoubleService()
        let key = [(name: "Authorization", value: "Key os-secret-key")]
        let start = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/activities/activity/DeliveryAttributes",
                         #"{"event":"start","activity_id":"order_1","name":"n","event_updates":{"stage":"baking"},"event_attributes":{}}"#, headers: key)
        #expect(start.status == 201 && start.body["notification_id"]?.stringValue?.count == 36, "\(start.body)")
        #expect(start.headers.contains { $0.name == "X-Legacy-Double" && $0.value == "onesignal" })
        let update = #"{"event":"update","name":"n","event_updates":{"stage":"out"}}"#
        let updated = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/live_activities/order_1/notifications", update, headers: key)
        #expect(updated.status == 201 && updated.body["id"]?.stringValue != nil, "\(updated.body)")
        let unknown = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/live_activities/order_2/notifications", update, headers: key)
        #expect(unknown.status == 404 && unknown.body["errors"] == .array([.string(OneSignalDouble.unknownActivity)]), "\(unknown.body)")
        let end = #"{"event":"end","name":"n","event_updates":{"stage":"done"}}"#
        #expect(post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/live_activities/order_1/notifications", end, headers: key).status == 201)
        // Ended is final: a later update is the same 404.
        #expect(post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/live_activities/order_1/notifications", update, headers: key).status == 404)
        // The same id under another app was never started there.
        let otherApp = "00000000-0000-4000-8000-000000000000"
        #expect(post(doubles, "/onesignal/api/v1/apps/\(otherApp)/activities/activity/T", #"{"activity_id":"order_1","name":"n","event_updates":{}}"#, headers: key).status == 201)
        let activities = try view(doubles, "/_doubles/activities?provider=onesignal")["activities"]?.arrayValue ?? []
        #expect(activities.count == 2 && activities.first?.objectValue?["open"] == .bool(false) && activities.last?.objectValue?["app"] == .string(otherApp), "\(activities)")
    }

    @Test func theOneSignalDoubleRefusesWhatOneSignalRefuses() {
        let doubles = LegacyDoubleService()
        let body = #"{"activity_id":"a","name":"n","event_updates":{}}"#
        let noKey = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/activities/activity/T", body)
        #expect(noKey.status == 403 && noKey.body["errors"] == .array([.string(OneSignalDouble.accessDenied)]))
        let bearer = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/activities/activity/T", body, headers: [("Authorization", "Bearer k")])
        #expect(bearer.status == 403)
        let notUUID = post(doubles, "/onesignal/apps/not-an-app/activities/activity/T", body, headers: [("Authorization", "Key k")])
        #expect(notUUID.status == 400 && notUUID.body["errors"] == .array([.string("app_id: must be a OneSignal app id (a UUID), got not-an-app")]))
        let update = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/live_activities/a/notifications", #"{"event":"stop","priority":7}"#, headers: [("Authorization", "Basic k")])
        #expect(update.status == 400 && update.body["errors"] == .array(["event: must be \"update\" or \"end\"", "event_updates: is required and must be an object",
                                                                          "name: is required", "priority: must be 5 or 10"].map(JSONValue.string)), "\(update.body)")
        #expect(post(doubles, "/onesignal/notifications", "{}", headers: [("Authorization", "Key k")]).status == 404)
    }

    @Test func thePushwooshDoubleAnswersMessagesPerNotificationAnd404ForAnUnknownLiveActivityId() throws {
        let doubles = LegacyDoubleService()
        let start = #"{"request":{"application":"DEMO1-23456","auth":"pw-secret-auth","notifications":[{"content":"c","live_activity":{"event":"start","content-state":{"s":1},"attributes-type":"T","attributes":{}},"live_activity_id":"LA_1","devices":["a1b2c3d4-device-token"]},{"content":"c","live_activity":{"content-state":{},"attributes-type":"T","attributes":{}},"live_activity_id":"LA_2","filter":"F"}]}}"#
        let started = post(doubles, "/pushwoosh/json/1.3/startLiveActivity", start)
        #expect(started.status == 200 && started.body["status_code"] == .int(200) && started.body["status_message"] == .string("OK"))
        #expect(started.body["response"]?.objectValue?["Messages"]?.arrayValue?.count == 2, "\(started.body)")
        let update = { (id: String, event: String) in
            #"{"request":{"application":"DEMO1-23456","auth":"pw-secret-auth","notifications":[{"live_activity":{"event":"\#(event)","content-state":{"s":2}},"live_activity_id":"\#(id)"}]}}"#
        }
        #expect(post(doubles, "/pushwoosh/json/1.3/updateLiveActivity", update("LA_1", "update")).body["status_code"] == .int(200))
        let unknown = post(doubles, "/pushwoosh/json/1.3/updateLiveActivity", update("LA_9", "update"))
        #expect(unknown.status == 404 && unknown.body["status_code"] == .int(404) && unknown.body["response"] == .null)
        #expect(unknown.body["status_message"] == .string("notifications[0].live_activity_id: no Live Activity LA_9 was started on this application (or it has ended)"))
        #expect(post(doubles, "/pushwoosh/json/1.3/updateLiveActivity", update("LA_2", "end")).body["status_code"] == .int(200))
        #expect(post(doubles, "/pushwoosh/json/1.3/updateLiveActivity", update("LA_2", "update")).status == 404)

        let badCode = post(doubles, "/pushwoosh/json/1.3/startLiveActivity", start.replacingOccurrences(of: "DEMO1-23456", with: "DEMO123456"))
        #expect(badCode.body["status_code"] == .int(210) && badCode.body["status_message"] == .string("application: must be a Pushwoosh application code (XXXXX-XXXXX)"))
        let noAuth = post(doubles, "/pushwoosh/json/1.3/startLiveActivity", start.replacingOccurrences(of: #""auth":"pw-secret-auth","#, with: ""))
        #expect(noAuth.body["status_code"] == .int(210) && noAuth.body["status_message"] == .string(PushwooshDouble.accessDenied))
        let missing = post(doubles, "/pushwoosh/json/1.3/startLiveActivity", #"{"request":{"application":"DEMO1-23456","auth":"x","notifications":[{"live_activity":{}}]}}"#)
        #expect(missing.body["status_message"] == .string("notifications[0].live_activity_id: is required; notifications[0].content: is required; "
                                                          + "notifications[0].live_activity.content-state: is required and must be an object; "
                                                          + "notifications[0].live_activity.attributes-type: is required; notifications[0].live_activity.attributes: is required and must be an object"))

        // What was recorded holds no secret in clear: the auth and the device token are fingerprints.
        let recorded = JSONWriter.string(.object(try view(doubles, "/_doubles/requests?provider=pushwoosh")))
        #expect(!recorded.contains("pw-secret-auth") && !recorded.contains("a1b2c3d4-device-token"))
        #expect(recorded.contains(Fingerprint.of("pw-secret-auth")) && recorded.contains(Fingerprint.of("a1b2c3d4-device-token")))
    }

    @Test func theBuzzKitDoubleGivesAStartAnIdAndAnswersNotFoundForAnActivityItNeverStarted() {
        let doubles = LegacyDoubleService()
        let bearer = [(name: "Authorization", value: "Bearer bk-secret-token")]
        let start = post(doubles, "/buzzkit/v1/live-activities/send", #"{"to":"alice","event":"start","attributesType":"T","attributes":{},"contentState":{"s":0}}"#, headers: bearer)
        let id = start.body["activityId"]?.stringValue ?? ""
        #expect(start.status == 200 && id.hasPrefix("bk_") && start.body["event"] == .string("start") && start.body["results"] == .array([]), "\(start.body)")
        let update = post(doubles, "/buzzkit/v1/live-activities/send", #"{"to":"alice","event":"update","activityId":"\#(id)","contentState":{"s":1}}"#, headers: bearer)
        #expect(update.status == 200 && update.body["activityId"] == .string(id))
        // Another workspace (token) never started it.
        let elsewhere = post(doubles, "/buzzkit/v1/live-activities/send", #"{"event":"end","activityId":"\#(id)","contentState":{}}"#, headers: [("Authorization", "Bearer other")])
        #expect(elsewhere.status == 404 && elsewhere.body["error"]?.objectValue?["code"] == .string("not_found"))
        let noToken = post(doubles, "/buzzkit/v1/live-activities/send", #"{"event":"start","attributesType":"T","contentState":{}}"#)
        #expect(noToken.status == 401 && noToken.body["error"]?.objectValue?["code"] == .string("unauthorized"))
        let bad = post(doubles, "/buzzkit/v1/live-activities/send", #"{"event":"update","priority":"urgent"}"#, headers: bearer)
        #expect(bad.status == 400 && bad.body["error"]?.objectValue?["message"] == .string("contentState: is required and must be an object; priority: must be high or normal; activityId: is required on update"))
    }

    @Test func theRecordsKeepTheLastNWithTheirCredentialAsAFingerprint() throws {
        var clock = Int64(1_767_225_600_000)
        let now = Mutex(clock)
        let doubles = LegacyDoubleService(keep: 3, now: { now.withLock { $0 += 1; return $0 } })
        for i in 1...5 {
            _ = post(doubles, "/onesignal/apps/\(Self.oneSignalApp)/activities/activity/T", #"{"activity_id":"a\#(i)","name":"n","event_updates":{}}"#, headers: [("Authorization", "Key os-secret-key")])
        }
        let view = try view(doubles, "/_doubles/requests")
        let records = view["requests"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(view["keep"] == .int(3) && view["forgotten"] == .int(2))
        #expect(records.map { $0["body"]?.objectValue?["activity_id"] } == ["a3", "a4", "a5"].map { .string($0) }, "\(records)")
        clock += 3
        #expect(records.map { $0["received_at"] } == [clock, clock + 1, clock + 2].map { JSONValue.int($0) })
        #expect(records.allSatisfy { $0["credential"] == .string(Fingerprint.of("Key os-secret-key")) && $0["status"] == .int(201) && $0["method"] == .string("POST") })
        #expect(records.first?["path"] == .string("/apps/\(Self.oneSignalApp)/activities/activity/T") && records.first?["seq"] == .int(3))
        #expect(!JSONWriter.string(.object(view)).contains("os-secret-key"))
        // The activities are bounded the same way.
        #expect(try self.view(doubles, "/_doubles/activities")["activities"]?.arrayValue?.count == 3)
        #expect(doubles.handle(HTTPRequest(method: "GET", target: "/_doubles/requests?provider=apns")).status == 400)
        #expect(doubles.handle(HTTPRequest(method: "POST", target: "/_doubles/requests")).status == 405)
    }

    @Test func aConfigurationNamesTheDoubleForALegacyProviderAndCheckConfigSaysWhatIsWrong() throws {
        let base = #"{"sandbox": {"embedded": true, "seed": "\#(CLIRunner.repoRoot.appendingPathComponent("config/demo-seed.json").path)"}, "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "a", "mode": "observe", "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "LEGACY_DOUBLES_TEST_UNSET"}, "callers": [{"key_sha256": "60e859f89e183de7b3dd9c20974a5181aac546a2593cb9b347d6e539a893f9f3"}]}]"#
        let good = try ProxyConfiguration.load(json: Array((base + #", "legacy": {"onesignal": "double"}, "legacy_doubles": {"listen": "127.0.0.1:0", "keep": 5}}"#).utf8), environment: [:])
        #expect(good.legacy.doubled == [.onesignal] && good.legacyDoubles.keep == 5)
        #expect(good.legacy.resolvingDoubles(at: "http://127.0.0.1:4242")[.onesignal] == "http://127.0.0.1:4242/onesignal")
        do {
            _ = try ProxyConfiguration.load(json: Array((base + #", "legacy": {"onesignal": "dubble"}, "legacy_doubles": {"listen": "10.0.0.1:8082", "keep": 0}}"#).utf8), environment: [:])
            Issue.record("a bad legacy_doubles was accepted")
        } catch {
            #expect(error.problems.map(\.description) == [
                "legacy.onesignal: must be an absolute http:// or https:// URL, or \"double\" for the embedded legacy double",
                "legacy_doubles.listen: must be a loopback address (127.0.0.1, [::1] or localhost): the doubles take anyone's requests",
                "legacy_doubles.keep: must be an integer from 1 to 1000000",
            ])
        }
    }

    @Test func theMigrationDemoConfigurationPassesCheckConfig() async throws {
        let out = try await CLIRunner.runAsync(["check-config", "config/demo-migration.json"], environment: [:])
        #expect(out.status == 0 && out.stdout.hasPrefix("config/demo-migration.json: ok\n"), "\(out.stdout)")
        let c = try ProxyConfiguration.load(fileAt: CLIRunner.repoRoot.appendingPathComponent("config/demo-migration.json").path, environment: [:])
        #expect(c.legacy.doubled == DialectName.allCases && c.sandbox.embedded && c.openPush == nil)
        #expect(Set(c.apps.map(\.dialect)) == Set(DialectName.allCases) && c.apps.allSatisfy { $0.mode == .observe })
    }
}
