import Foundation
import Testing
import PushBridgeCore

struct TranslateCommandTests {
    let startPath = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"

    func json(_ output: CLIRunner.Output) throws -> JSONObject {
        try #require(try JSONParser.parse(output.stdout).objectValue)
    }

    @Test func referenceStartPrintsTheOpenPushRequestAndExitsZero() async throws {
        let out = try await CLIRunner.runAsync(["translate", "--json", "--path", startPath, "fixtures/onesignal-start-reference/body.json"])
        #expect(out.status == 0)
        let o = try json(out)
        let requests = try #require(o["requests"]?.arrayValue)
        #expect(requests.count == 1)
        #expect(requests[0].objectValue?["path"] == .string(startPath))
        #expect(requests[0].objectValue?["body"]?.objectValue?["activity_id"] == .string("order_88214"))
        #expect(o["error"] == .null)
        #expect(o["schedule"] == .null)
    }

    @Test func interruptionLevelAndSubtitleGiveTwoDropFindingsOnStdin() async throws {
        let body = try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/onesignal-start-interruption-level-and-subtitle/body.json"))
        let out = try await CLIRunner.runAsync(["translate", "--json", "--path", startPath], stdin: body)
        let findings = try #require(try json(out)["findings"]?.arrayValue).compactMap(\.objectValue)
        let drops = findings.filter { $0["kind"] == .string("dropped") }.compactMap { $0["field"]?.stringValue }
        #expect(drops == ["ios_interruption_level", "subtitle"])
        #expect(findings.allSatisfy { $0["severity"]?.stringValue != nil && $0["message"]?.stringValue != nil })
    }

    @Test func aPushwooshStartWithTwoNotificationsPrintsTwoRequests() async throws {
        let out = try await CLIRunner.runAsync(["translate", "--json", "--path", "/json/1.3/startLiveActivity", "fixtures/pushwoosh-start-two-notifications/body.json"])
        #expect(out.status == 0)
        let requests = try #require(try json(out)["requests"]?.arrayValue)
        #expect(requests.count == 2)
        #expect(Set(requests.compactMap { $0.objectValue?["body"]?.objectValue?["activity_id"]?.stringValue }).count == 2)
    }

    @Test(arguments: [
        ("/v1/live-activities/send", "buzzkit-reference-update-alert"), ("/json/1.3/updateLiveActivity", "pushwoosh-update-reference"),
        ("/apps/app_3f9c2b/live_activities/order_88214/notifications", "onesignal-update-reference"),
    ])
    func referenceExamplesPrintTheirGoldenTranslation(path: String, fixture: String) async throws {
        let out = try await CLIRunner.runAsync(["translate", "--json", "--path", path, "fixtures/\(fixture)/body.json"])
        let golden = try JSONParser.parse(Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/\(fixture)/expected.json"))))
        #expect(try JSONParser.parse(out.stdout) == golden)
    }

    @Test func rejectedRequestExitsOneWithTheError() async throws {
        let out = try await CLIRunner.runAsync(["translate", "--json", "--path", startPath, "fixtures/onesignal-start-priority-7-rejected/body.json"])
        #expect(out.status == 1)
        let error = try #require(try json(out)["error"]?.objectValue)
        #expect(error["message"]?.stringValue?.contains("priority") == true)
    }

    @Test func usageErrorsExitTwo() async throws {
        #expect(try await CLIRunner.runAsync(["translate"]).status == 2)
        #expect(try await CLIRunner.runAsync(["translate", "--path", "/nowhere", "fixtures/onesignal-start-reference/body.json"]).status == 2)
        #expect(try await CLIRunner.runAsync(["translate", "--bogus"]).status == 2)
    }

    @Test func tableOutputNamesEveryFinding() async throws {
        let out = try await CLIRunner.runAsync(["translate", "--path", startPath, "fixtures/onesignal-start-create-message-fields/body.json"])
        #expect(out.status == 0)
        for field in ["is_ios", "custom_data", "content_available", "apns_push_type_override", "big_picture", "my_own_flag"] {
            #expect(out.stdout.contains(field), "table lacks \(field)")
        }
        #expect(!out.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }
}
