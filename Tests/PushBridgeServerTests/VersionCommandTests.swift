import Foundation
import PushBridgeTestSupport
import Testing

/// `pushbridge --version` (issue 32): the version declared in PushBridgeVersion.swift, and the
/// commit and build date, which an unstamped build (swift build, make run) says it does not
/// know; packaging/test-package.sh checks the stamped values of the packaged binary.
struct VersionCommandTests {
    /// The one line, with the version of the one place it is declared, exit status 0.
    @Test func versionPrintsTheDeclaredVersionCommitAndDate() throws {
        let source = try String(contentsOf: Repository.url("Sources/pushbridge/Version/PushBridgeVersion.swift"), encoding: .utf8)
        let declared = try #require(source.split(separator: "\n").first { $0.contains("static let version = \"") }?
            .split(separator: "\"").dropFirst().first.map(String.init))
        let out = try CLIRunner.run(["--version"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout == "pushbridge \(declared) (commit unknown, built unknown)\n")
        #expect(out.stderr.isEmpty)
    }
}
