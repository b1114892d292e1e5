import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// docs/migration.md's rehearsal as a team follows it: its shell blocks run in one shell, in
/// order, as written, on `config/demo-migration.json` (only its ports moved to free ones and its
/// files into this test's folder, and `make release`'s binary replaced by the tests' build),
/// each checked against the `# →` lines under it. A block that starts with
/// `# needs: pushbridge COMMAND` runs only when this build's `pushbridge COMMAND --help`
/// prints its own usage; the others always run: observe, shadow, openpush and legacy off.
@Suite(.serialized) struct MigrationPlaybookTests {
    /// One shell block of the rehearsal and the command it needs, if any.
    struct Block {
        var text: String
        var needs: String?
    }

    static func rehearsal() throws -> [Block] {
        let doc = try String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("docs/migration.md"), encoding: .utf8)
        let start = try #require(doc.range(of: "## Rehearsal: the whole playbook on this machine")).lowerBound
        return DeploymentDocTests.blocks(doc[start...], "sh").map { text in
            let first = text.split(separator: "\n").first.map(String.init) ?? ""
            let needs = first.hasPrefix("# needs: pushbridge ") ? String(first.dropFirst("# needs: pushbridge ".count)) : nil
            return Block(text: text, needs: needs)
        }
    }

    /// Whether this build's `pushbridge COMMAND --help` is that command's own usage (an unknown
    /// command gets the general `usage: pushbridge COMMAND` text, also with exit status 0).
    static func buildHas(_ command: String) async throws -> Bool {
        let help = try await CLIRunner.runAsync([command, "--help"])
        return help.status == 0 && help.stdout.hasPrefix("usage: pushbridge \(command)")
    }

    @Test func theProbeForACommandTellsAKnownCommandFromAnUnknownOne() async throws {
        #expect(try await Self.buildHas("readiness"))
        #expect(try await !Self.buildHas("no-such-command"))
    }

    @Test func everyJSONBlockOfThePlaybookIsAJSONObjectWithTheFixedStageNames() throws {
        let doc = try String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("docs/migration.md"), encoding: .utf8)
        let blocks = DeploymentDocTests.blocks(doc[...], "json")
        #expect(blocks.count >= 5)
        for block in blocks { #expect((try? JSONParser.parse(Array(block.utf8)))?.objectValue != nil, "not a JSON object:\n\(block)") }
        let modes = blocks.compactMap { (try? JSONParser.parse(Array($0.utf8)))?.objectValue?["mode"]?.stringValue }
        #expect(modes == ["observe", "shadow", "rollout", "openpush"], "\(modes)")
        let rollout = blocks.compactMap { (try? JSONParser.parse(Array($0.utf8)))?.objectValue?["rollout"]?.objectValue }.first
        #expect(rollout?.keys == ["percent", "cohort_key", "fallback_to_legacy", "segment_starts"])
    }

    @Test(.timeLimit(.minutes(2)))
    func makeRunOnTheMigrationDemoSaysWhereTheProxyTheSandboxAndTheDoublesListen() async throws {
        let made = try CLIRunner.shell(["make", "-n", "run", "CONFIG=config/demo-migration.json"])
        #expect(made.stdout.contains("serve --config config/demo-migration.json --welcome config/demo-migration-welcome.txt"), "\(made.stdout)")

        let folder = try TemporaryDirectory("pushbridge-migration-welcome")
        var config = try #require(try JSONParser.parse(Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("config/demo-migration.json")))).objectValue)
        config["listen"] = .string("127.0.0.1:0")
        config["audit_db"] = .string(folder.url("audit.sqlite").path)
        for key in ["sandbox", "legacy_doubles", "admin"] {
            var listener = try #require(config[key]?.objectValue)
            listener["listen"] = .string("127.0.0.1:0")
            config[key] = .object(listener)
        }
        let file = folder.url("demo-migration.json").path
        try Data(JSONWriter.bytes(.object(config))).write(to: URL(fileURLWithPath: file))
        let log = folder.url("serve.log").path, out = folder.url("serve.out").path
        let serve = try await ServeProcess.start(config: file, environment: [:], logPath: log, extra: ["--welcome", "config/demo-migration-welcome.txt"], stdoutPath: out)
        let listening = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").first { $0.contains("msg=listening") }.map(String.init) ?? ""
        let doubles = try #require(LogfmtParser.parse(listening)?.first { $0.key == "legacy_doubles" }?.value)
        #expect(await eventually { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("docs/migration.md walks the playbook") })
        let welcome = try String(contentsOfFile: out, encoding: .utf8)
        #expect(welcome.contains("Legacy doubles  \(doubles)    ") && welcome.contains("Proxy           http://127.0.0.1:\(serve.port)    "), "\(welcome)")
        #expect(!welcome.contains("{"), "a placeholder was left: \(welcome)")
        let admin = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").first { $0.contains("msg=\"admin listener started\"") }
        let adminAddress = try #require(admin.flatMap { LogfmtParser.parse(String($0))?.first { $0.key == "address" }?.value })
        #expect(welcome.contains("Admin page      http://\(adminAddress)/admin/    "), "\(welcome)")
        // The rehearsal's admin page opens with what the welcome says: any user name, the demo token as the password.
        let adminPort = try #require(UInt16(adminAddress.split(separator: ":").last ?? ""))
        let page = try await RawHTTPClient.send(port: adminPort, target: "/admin/",
                                                headers: [("Authorization", "Basic " + Data("me:\(ProxyConfiguration.demoAdminToken)".utf8).base64EncodedString())])
        #expect(page.status == 200 && page.text.contains("demo-onesignal"), "\(page.status)")
        let port = try #require(UInt16(doubles.split(separator: ":").last ?? ""))
        let view = try await RawHTTPClient.send(port: port, target: "/_doubles/requests")
        #expect(view.status == 200 && view.text.hasPrefix(#"{"requests":[]"#), "\(view.text)")
        #expect(try await serve.terminate() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func theRehearsalRunsAsWrittenObserveShadowOpenPushAndLegacyOffOnTheDoubles() async throws {
        let blocks = try Self.rehearsal()
        #expect(blocks.count == 8, "\(blocks.count) shell blocks")
        #expect(blocks.compactMap(\.needs) == ["rollout", "activities"], "\(blocks.compactMap(\.needs))")

        let folder = try TemporaryDirectory("pushbridge-migration-doc")
        let dir = folder.url.path
        var config = try #require(try JSONParser.parse(Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("config/demo-migration.json")))).objectValue)
        #expect(config["listen"] == .string("127.0.0.1:8080") && config["audit_db"] == .string("var/demo-migration-audit.sqlite"))
        var replacements: [(String, String)] = [("mkdir -p var ", "mkdir -p \(dir) "), ("config/demo-migration.json", "\(dir)/demo-migration.json"),
                                                ("var/demo-migration-audit.sqlite", "\(dir)/audit.sqlite"), ("var/", "\(dir)/"),
                                                (".build/release/pushbridge", CLIRunner.binary.path)]
        var ports: [String: String] = [:]
        for port in ["8080", "8081", "8082", "9090"] {
            ports[port] = "127.0.0.1:\(PostgresTestCluster.freePort())"
            replacements.append(("127.0.0.1:\(port)", ports[port]!))
        }
        config["listen"] = .string(ports["8080"]!)
        config["audit_db"] = .string("\(dir)/audit.sqlite")
        var sandbox = try #require(config["sandbox"]?.objectValue)
        sandbox["listen"] = .string(ports["8081"]!)
        config["sandbox"] = .object(sandbox)
        var doubles = try #require(config["legacy_doubles"]?.objectValue)
        #expect(doubles["listen"] == .string("127.0.0.1:8082"))
        doubles["listen"] = .string(ports["8082"]!)
        config["legacy_doubles"] = .object(doubles)
        var admin = try #require(config["admin"]?.objectValue)
        #expect(admin["listen"] == .string("127.0.0.1:9090"))
        admin["listen"] = .string(ports["9090"]!)
        config["admin"] = .object(admin)
        try Data(JSONWriter.bytes(.object(config))).write(to: URL(fileURLWithPath: "\(dir)/demo-migration.json"))

        // The blocks whose command this build has; the rest are named in the output.
        var included: [(offset: Int, element: String)] = []
        var skipped: [String] = []
        for (index, block) in blocks.enumerated() {
            if let needs = block.needs, try await !Self.buildHas(needs) {
                skipped.append("block \(index) (needs pushbridge \(needs))")
                continue
            }
            included.append((index, replacements.reduce(block.text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }))
        }
        // This build has every command the playbook names: no block may be left out.
        #expect(skipped.isEmpty, "not run, this build lacks the command: \(skipped.joined(separator: ", "))")
        #expect(included.count == blocks.count && included.count >= 8, "\(included.count) of \(blocks.count) blocks")

        let script = """
            cleanup() { kill $(jobs -p) 2>/dev/null || true; }
            trap cleanup EXIT
            set -euo pipefail
            """ + "\n" + included.map { "echo '@@ block \($0.offset) @@'\n\($0.element)" }.joined(separator: "\n")
        let result = try await CLIRunner.shellAsync(["bash", "-c", script])
        let log = (try? String(contentsOfFile: "\(dir)/migration.log", encoding: .utf8)) ?? ""
        #expect(result.status == 0, "exit \(result.status)\n\(result.stdout)\n\(result.stderr)\nproxy log:\n\(log)")
        let promised = DeploymentDocTests.checkPromises(included, result)
        #expect(promised >= 20, "\(promised) promised lines")
        // The proxy was stopped by the last block and stopped cleanly.
        #expect(log.contains("msg=stopped"), "\(log)")
    }
}
