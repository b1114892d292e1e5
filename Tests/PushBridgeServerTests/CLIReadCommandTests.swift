import Foundation
import Testing

/// The CLI's read commands leave no file behind, and every command answers `--help`.
@Suite(.serialized)
struct CLIReadCommandTests {
    @Test func readCommandsNeverCreateADatabaseFileThatDidNotExist() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands: [[String]] = [["scheduled", "list"], ["scheduled", "cancel", "sch_missing"], ["sandbox", "sends"], ["audit", "list"], ["report"]]
        for (index, command) in commands.enumerated() {
            let path = directory.appendingPathComponent("missing-\(index).sqlite").path
            let out = try CLIRunner.run(command + ["--db", path])
            #expect(out.status != 0, "\(command): \(out.stdout)")
            #expect(!out.stderr.isEmpty, "\(command) says why")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(command) created \(left)")
        }
    }

    @Test func everyCommandAndSubcommandAnswersHelpWithExitZero() throws {
        let commands: [[String]] = [["serve"], ["translate"], ["sandbox"], ["sandbox", "sends"], ["audit"], ["audit", "list"], ["audit", "show"],
                                    ["audit", "prune"], ["scheduled"], ["scheduled", "list"], ["scheduled", "cancel"], ["report"], ["replay"],
                                    ["check-config"], ["docs"]]
        for command in commands {
            let out = try CLIRunner.run(command + ["--help"])
            #expect(out.status == 0, "\(command) --help: \(out.status) \(out.stderr)")
            #expect(out.stdout.contains("usage") && out.stdout.contains("pushbridge \(command[0])"), "\(command) --help: \(out.stdout)")
        }
    }
}
