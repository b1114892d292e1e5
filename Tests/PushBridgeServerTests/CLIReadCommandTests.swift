import Foundation
import Testing

/// The CLI's read commands leave no file behind, and every command answers `--help`.
@Suite(.serialized)
struct CLIReadCommandTests {
    @Test func readCommandsNeverCreateADatabaseFileThatDidNotExist() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands: [[String]] = [["scheduled", "list"], ["scheduled", "cancel", "sch_missing"], ["sandbox", "sends"], ["audit", "list"],
                                    ["audit", "show", "req_missing"], ["audit", "prune", "--older-than-days", "1"], ["report"], ["readiness"],
                                    ["rollout", "resume", "os"]]
        for (index, command) in commands.enumerated() {
            let path = directory.appendingPathComponent("missing-\(index).sqlite").path
            let out = try CLIRunner.run(command + ["--db", path])
            #expect(out.status != 0, "\(command): \(out.stdout)")
            #expect(!out.stderr.isEmpty, "\(command) says why")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(command) created \(left)")
        }
    }

    /// Every command and subcommand as `pushbridge --help` lists them: the real tree, read from
    /// the binary. An empty list becomes one case that fails, so these tests never run over nothing.
    static let commands: [[String]] = {
        let help = (try? CLIRunner.run(["--help"]).stdout) ?? ""
        let listed = help.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "commands:" }.dropFirst()
            .prefix { !$0.isEmpty }.map { line in
                line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0].split(separator: " ").map(String.init)
            }
        return listed.isEmpty ? [["(pushbridge --help listed no command)"]] : listed
    }()

    @Test func theListedCommandsAreTheWholeTree() {
        let known: [[String]] = [["serve"], ["translate"], ["sandbox"], ["sandbox", "sends"], ["audit"], ["audit", "list"], ["audit", "show"],
                                 ["audit", "prune"], ["scheduled"], ["scheduled", "list"], ["scheduled", "cancel"], ["report"], ["readiness"],
                                 ["replay"], ["check-config"], ["docs"], ["docs", "field-mapping"], ["rollout"], ["rollout", "resume"], ["rollout", "where"]]
        for command in known { #expect(Self.commands.contains(command), "pushbridge --help does not list \(command): \(Self.commands)") }
    }

    @Test(arguments: commands) func everyCommandAndSubcommandAnswersHelpWithExitZero(command: [String]) throws {
        for help in ["--help", "-h"] {
            let out = try CLIRunner.run(command + [help])
            #expect(out.status == 0, "\(command) \(help): \(out.status) \(out.stderr)")
            #expect(out.stdout.hasPrefix("usage: pushbridge \(command.joined(separator: " "))"), "\(command) \(help): \(out.stdout)")
        }
    }

    @Test(arguments: commands) func anUnknownOptionExitsTwoNamingIt(command: [String]) throws {
        let out = try CLIRunner.run(command + ["--no-such-flag"])
        #expect(out.status == 2, "\(command) --no-such-flag: \(out.status) \(out.stdout)")
        #expect(out.stderr.hasPrefix("pushbridge \(command.joined(separator: " ")): unknown option --no-such-flag"), "\(command): \(out.stderr)")
        #expect(out.stdout.isEmpty, "\(command) printed \(out.stdout)")
    }

    @Test func formatIsOneVocabularyAndAnUnknownFormatNamesTheAllowedOnes() throws {
        for command in [["report"], ["readiness"], ["replay", "captured.jsonl"]] {
            let out = try CLIRunner.run(command + ["--format", "pdf"])
            #expect(out.status == 2, "\(command): \(out.status)")
            #expect(out.stderr.contains("--format 'pdf' is not one of text, md, json, csv, html"), "\(command): \(out.stderr)")
        }
        let translate = try CLIRunner.run(["translate", "--path", "/json/1.3/startLiveActivity", "--format", "html"])
        #expect(translate.status == 2 && translate.stderr.contains("--format 'html' is not one of text, json"), "\(translate.stderr)")
        for command in [["audit", "list"], ["audit", "show", "req_x"], ["scheduled", "list"]] {
            let out = try CLIRunner.run(command + ["--format", "csv"])
            #expect(out.status == 2 && out.stderr.contains("--format 'csv' is not one of text, json"), "\(command): \(out.stderr)")
        }
        let markdown = try CLIRunner.run(["report", "--format", "markdown", "--db", "/nonexistent/audit.sqlite"])
        #expect(markdown.status == 1 && !markdown.stderr.contains("--format"), "markdown is md: \(markdown.stderr)")
        let missing = try CLIRunner.run(["report", "--format"])
        #expect(missing.status == 2 && missing.stderr.contains("--format needs a value (text|md|json|csv|html)"), "\(missing.stderr)")
    }

    @Test func aValueIsCheckedByItsOptionsRuleBeforeAnythingRuns() throws {
        let cases: [([String], String)] = [
            (["audit", "list", "--limit", "0"], "--limit takes a whole number ≥ 1, not '0'"),
            (["audit", "list", "--until", "soon"], "--until takes an ISO 8601 date"),
            (["report", "--since", "yesterday"], "--since takes an ISO 8601 date"),
            (["audit", "show"], "missing ID"),
            (["audit", "show", "A", "B"], "unexpected argument 'B'"),
            (["serve"], "missing --config FILE"),
            (["audit", "frobnicate"], "unknown command 'frobnicate'; the commands are list, show, prune"),
            (["scheduled", "list", "--all=yes"], "--all takes no value"),
        ]
        for (command, message) in cases {
            let out = try CLIRunner.run(command)
            #expect(out.status == 2 && out.stderr.contains(message), "\(command): \(out.status) \(out.stderr)")
        }
    }
}
