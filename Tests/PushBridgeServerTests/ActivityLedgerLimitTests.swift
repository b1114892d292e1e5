import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// `limits.max_activities`: the activity ledger's cap, read from the configuration with the
/// rest of `limits`, and refused with its path when it is not a positive integer.
struct ActivityLedgerLimitTests {
    private func load(_ limits: String) throws(ConfigurationError) -> ProxyConfiguration {
        let json = #"{"openpush": {"base_url": "http://127.0.0.1:9"}, "limits": {\#(limits)}, "apps": [{"name": "n", "dialect": "onesignal", "source_app_id": "s", "openpush": {"app_id": "a1", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "OS_KEY"}]}]}"#
        return try ProxyConfiguration.load(json: Array(json.utf8), environment: ["OP_KEY": "op-secret-1111", "OS_KEY": "os-secret-2222"])
    }

    @Test func theCapDefaultsToAMillionAndIsReadFromLimits() throws {
        #expect(try load("").auditLimits.maxActivities == 1_000_000)
        #expect(try load(#""max_activities": 5000"#).auditLimits.maxActivities == 5000)
    }

    @Test(arguments: ["0", "-3", "\"many\"", "1.5"]) func aCapThatIsNotAPositiveIntegerIsRefusedWithItsPath(value: String) {
        do {
            _ = try load(#""max_activities": \#(value)"#)
            Issue.record("max_activities \(value) was accepted")
        } catch {
            #expect(error.problems.map(\.description).contains { $0.contains("limits.max_activities") }, "\(error.problems)")
        }
    }
}
