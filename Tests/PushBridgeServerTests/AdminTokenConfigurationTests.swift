import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The admin token of `config/demo-migration.json`: a local demo (the embedded sandbox as the
/// whole of OpenPush, the admin listener on loopback) without `admin.token_env` set uses the
/// documented demo token; anything else still needs the variable, named in the problem.
struct AdminTokenConfigurationTests {
    /// The rehearsal's file with `edit` applied, loaded with `environment`.
    static func load(_ environment: [String: String], _ edit: (inout JSONObject) -> Void = { _ in }) throws(ConfigurationError) -> ProxyConfiguration {
        var config = (try? JSONParser.parse(Array((try? Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("config/demo-migration.json"))) ?? Data())))?.objectValue ?? [:]
        if var sandbox = config["sandbox"]?.objectValue {
            sandbox["seed"] = .string(CLIRunner.repoRoot.appendingPathComponent("config/demo-seed.json").path)
            config["sandbox"] = .object(sandbox)
        }
        edit(&config)
        return try ProxyConfiguration.load(json: JSONWriter.bytes(.object(config)), environment: environment)
    }

    @Test func theRehearsalEnablesTheAdminPageWithTheDemoTokenUnlessTheVariableIsSet() throws {
        let demo = try Self.load([:])
        #expect(demo.admin?.token.value == ProxyConfiguration.demoAdminToken && demo.admin?.listen.description == "127.0.0.1:9090")
        let chosen = try Self.load(["PUSHBRIDGE_DEMO_ADMIN_TOKEN": "chosen-token"])
        #expect(chosen.admin?.token.value == "chosen-token")
    }

    @Test func aRealOpenPushOrAnAdminListenerBeyondLoopbackNeedsTheVariable() {
        let edits: [(inout JSONObject) -> Void] = [
            { $0["openpush"] = .object(["base_url": .string("https://api.openpush.example")]) },
            { if var admin = $0["admin"]?.objectValue { admin["listen"] = .string("0.0.0.0:9090"); $0["admin"] = .object(admin) } },
        ]
        for edit in edits {
            #expect {
                try Self.load(["PUSHBRIDGE_DEMO_OPENPUSH_KEY": "op-key"], edit)
            } throws: { error in
                "\(error)".contains("admin.token_env: environment variable PUSHBRIDGE_DEMO_ADMIN_TOKEN is not set")
            }
        }
    }
}
