import Foundation
import Testing
@testable import PushBridgeServer

/// `pushbridge check-config` as a process: one precise line per problem, the file named.
@Suite(.serialized) struct CheckConfigCommandTests {
    /// The folder the configuration files of this suite's tests are written to, removed with the suite.
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("pushbridge-check") }

    func write(_ text: String) throws -> String {
        let file = folder.url("config-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    @Test func anUnsetCallerKeyVariableIsOneLineNamingItAndNothingElse() async throws {
        let file = try write("""
            {"openpush": {"base_url": "http://127.0.0.1:9"}, "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "a",
              "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "CHECK_OP_KEY"}, "callers": [{"key_env": "CHECK_CALLER_KEY"}]}]}
            """)
        let out = try await CLIRunner.runAsync(["check-config", file], environment: ["CHECK_OP_KEY": "k"])
        #expect(out.status == 1)
        #expect(out.stdout == "apps[0].callers[0].key_env: environment variable CHECK_CALLER_KEY is not set\n", "\(out.stdout)")
    }

    @Test func malformedJSONNamesTheFileAndWhere() async throws {
        let file = try write("{\n  \"listen\": \"127.0.0.1:8080\",\n  \"apps\": [,]\n}\n")
        let out = try await CLIRunner.runAsync(["check-config", file], environment: [:])
        #expect(out.status == 1)
        #expect(out.stdout.hasPrefix("\(file): not valid JSON at line 3, column 12 (byte 43): "), "\(out.stdout)")
        #expect(out.stdout.split(separator: "\n").count == 1)
    }

    @Test func aFileThatCannotBeReadSaysWhy() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-none-\(UUID().uuidString).json").path
        let gone = try await CLIRunner.runAsync(["check-config", missing], environment: [:])
        #expect(gone.status == 1 && gone.stdout == "\(missing): cannot read the configuration file: no such file\n", "\(gone.stdout)")
        let directory = try await CLIRunner.runAsync(["check-config", FileManager.default.temporaryDirectory.path], environment: [:])
        #expect(directory.stdout.hasSuffix(": cannot read the configuration file: it is a directory\n"), "\(directory.stdout)")
    }

    @Test func theDemoNeedsNoEnvironmentWithItsEmbeddedSandbox() async throws {
        let out = try await CLIRunner.runAsync(["check-config", "config/demo.json"], environment: [:])
        #expect(out.status == 0 && out.stdout.hasPrefix("config/demo.json: ok\n"), "\(out.stdout)")
        // A real upstream still needs its key: the fallback is the embedded sandbox's own seed only.
        let real = try write(try String(contentsOfFile: CLIRunner.repoRoot.appendingPathComponent("config/demo.json").path, encoding: .utf8)
            .replacingOccurrences(of: "\"log_format\"", with: "\"openpush\": {\"base_url\": \"http://127.0.0.1:9\"}, \"log_format\""))
        let needsKey = try await CLIRunner.runAsync(["check-config", real], environment: [:])
        #expect(needsKey.status == 1 && needsKey.stdout.contains("apps[0].openpush.rest_key_env: environment variable PUSHBRIDGE_DEMO_OPENPUSH_KEY is not set"))
    }

    @Test func aValidFileSaysTheLongestAnswerAndTheFrontProxyTimeoutItNeeds() async throws {
        let defaults = try await CLIRunner.runAsync(["check-config", "config/demo.json"], environment: [:])
        #expect(defaults.status == 0)
        #expect(defaults.stdout.contains("longest answer: 101 s = delivery.max_wait_ms 65 s + 3 × limits.upstream_timeout_ms 10 s + 2 × delivery.backoff_max_ms 2 s + 2 s for the audit\n"),
                "\(defaults.stdout)")
        #expect(defaults.stdout.contains("nginx proxy_read_timeout 110s"), "\(defaults.stdout)")
        let file = try write("""
            {"openpush": {"base_url": "http://127.0.0.1:9"}, "limits": {"upstream_timeout_ms": 3000},
             "delivery": {"max_wait_ms": 30000, "max_attempts": 2, "backoff_max_ms": 500},
             "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "a",
              "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "CHECK_OP_KEY"}, "callers": [{"key_env": "CHECK_OP_KEY"}]}]}
            """)
        let tuned = try await CLIRunner.runAsync(["check-config", file], environment: ["CHECK_OP_KEY": "k"])
        #expect(tuned.stdout.contains("longest answer: 38.5 s = delivery.max_wait_ms 30 s + 2 × limits.upstream_timeout_ms 3 s + 1 × delivery.backoff_max_ms 0.5 s + 2 s for the audit"),
                "\(tuned.stdout)")
        #expect(tuned.stdout.contains("nginx proxy_read_timeout 50s"), "\(tuned.stdout)")
    }
}
