import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The README's demo, as a newcomer runs it: `pushbridge serve` on `make run`'s configuration
/// (config/demo.json, only its addresses and files moved to free ports and a temporary folder)
/// with `make run`'s welcome text, then every command of the README's shell blocks, each
/// checked against the `# →` lines under it (and `# log →` against the proxy's stderr).
@Suite(.serialized) struct DemoReadmeTests {
    /// A README command and what it promises.
    struct Step {
        var command: String
        var expected: [String] = []
        var logged: [String] = []
    }

    /// The commands of the fenced `sh` blocks from "## Try it" to the next section after the verdict.
    static func steps(_ readme: String) -> [Step] {
        let start = readme.range(of: "## Try it")!.lowerBound
        let end = readme.range(of: "## See a translation without running anything")!.lowerBound
        var steps: [Step] = [], pending: [String] = [], inBlock = false
        for line in readme[start..<end].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inBlock = line == "```sh"; continue }
            guard inBlock else { continue }
            if pending.isEmpty, line.hasPrefix("#") || line.isEmpty {
                if line.hasPrefix("# → ") { steps[steps.count - 1].expected.append(String(line.dropFirst(4))) }
                if line.hasPrefix("# log → ") { steps[steps.count - 1].logged.append(String(line.dropFirst(8))) }
                continue
            }
            pending.append(line)
            let text = pending.joined(separator: "\n")
            if !line.hasSuffix("\\"), !line.hasSuffix("|"), isComplete(text) {
                steps.append(Step(command: text))
                pending = []
            }
        }
        return steps
    }

    /// Whether bash parses `text` as whole commands (no open quote, loop or continuation).
    static func isComplete(_ text: String) -> Bool {
        (try? CLIRunner.shell(["bash", "-n", "-c", text]).status) == 0
    }

    /// Whether one line of `output` holds the parts of `pattern` between its `…`, in order.
    static func matches(_ pattern: String, _ output: String) -> Bool {
        let parts = pattern.components(separatedBy: "…").filter { !$0.isEmpty }
        return output.split(separator: "\n").contains { line in
            var rest = Substring(line)
            for part in parts {
                guard let range = rest.range(of: part) else { return false }
                rest = rest[range.upperBound...]
            }
            return true
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func everyCommandOfTheReadmeGivesTheAnswerItPromisesOnMakeRunsConfiguration() async throws {
        let folder = try TemporaryDirectory("pushbridge-readme")
        let dir = folder.url
        let root = CLIRunner.repoRoot
        var demo = try #require(try JSONParser.parse(Array(try Data(contentsOf: root.appendingPathComponent("config/demo.json")))).objectValue)
        var sandbox = try #require(demo["sandbox"]?.objectValue)
        #expect(demo["listen"] == .string("127.0.0.1:8080") && sandbox["listen"] == .string("127.0.0.1:8081") && demo["audit_db"] == .string("var/demo-audit.sqlite"))
        sandbox["listen"] = .string("127.0.0.1:0")
        demo["sandbox"] = .object(sandbox)
        demo["listen"] = .string("127.0.0.1:0")
        let audit = dir.appendingPathComponent("demo-audit.sqlite").path
        demo["audit_db"] = .string(audit)
        let config = dir.appendingPathComponent("demo.json").path
        try Data(JSONWriter.bytes(.object(demo))).write(to: URL(fileURLWithPath: config))

        // No environment at all: the demo needs no key.
        let log = dir.appendingPathComponent("serve.log").path, out = dir.appendingPathComponent("serve.out").path
        let serve = try await ServeProcess.start(config: config, environment: [:], logPath: log, extra: ["--welcome", "config/demo-welcome.txt"], stdoutPath: out)
        let listening = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").first { $0.contains("msg=listening") }.map(String.init) ?? ""
        let sandboxAddress = try #require(LogfmtParser.parse(listening)?.first { $0.key == "openpush" }?.value).replacingOccurrences(of: "http://", with: "")
        let proxyAddress = "127.0.0.1:\(serve.port)"

        // The welcome: once, for a person, with the real addresses.
        #expect(await eventually { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("README.md walks through the rest") })
        let welcome = try String(contentsOfFile: out, encoding: .utf8)
        for promised in ["Proxy        http://\(proxyAddress)", "Sandbox      http://\(sandboxAddress)", "Audit        \(audit)", "demo-onesignal-key",
                         "demo-pushwoosh-auth", "demo-buzzkit-token", "readiness --config config/demo.json", "report --config config/demo.json"] {
            #expect(welcome.contains(promised), "the welcome lacks \(promised):\n\(welcome)")
        }
        #expect(welcome.components(separatedBy: "curl -s").count - 1 == 3 && welcome.components(separatedBy: "PushBridge demo is running").count == 2)

        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let steps = Self.steps(readme)
        #expect(steps.count == 13, "\(steps.map(\.command))")
        #expect(steps.reduce(0) { $0 + $1.expected.count } >= 20)
        let replacements = [("127.0.0.1:8080", proxyAddress), ("127.0.0.1:8081", sandboxAddress), ("var/demo-audit-scheduled.sqlite", dir.appendingPathComponent("demo-audit-scheduled.sqlite").path),
                            ("var/demo-audit.sqlite", audit), ("config/demo.json", config), ("var/report.html", dir.appendingPathComponent("report.html").path),
                            (".build/release/pushbridge", CLIRunner.binary.path)]
        for step in steps {
            let command = replacements.reduce(step.command) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            let result = try await CLIRunner.shellAsync(["bash", "-c", command])
            #expect(result.status == 0, "\(step.command)\n→ exit \(result.status): \(result.stderr)")
            for promised in step.expected {
                let expected = replacements.reduce(promised) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
                #expect(Self.matches(expected, result.stdout), "\(step.command)\npromised: \(expected)\ngot: \(result.stdout)")
            }
            for expected in step.logged {
                #expect(await eventually(5) { Self.matches(expected, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "") }, "the proxy's log lacks \(expected)")
            }
        }
        #expect(try await serve.terminate() == 0)
    }
}

extension CLIRunner {
    /// Runs a program found on PATH (`bash`, …) in the repository root.
    static func shell(_ arguments: [String]) throws -> Output {
        try runProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments, directory: repoRoot)
    }

    /// `shell` on its own thread.
    static func shellAsync(_ arguments: [String]) async throws -> Output {
        try await offPool { try shell(arguments) }
    }
}
