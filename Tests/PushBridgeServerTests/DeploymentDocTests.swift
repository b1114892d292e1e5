import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// docs/deployment.md as a newcomer follows it: the "Try it on one machine" shell blocks run
/// in one shell, in order, as written (only its ports moved to free ones, its folder into this
/// test's, and `make release`'s binary replaced by the tests' build), each checked against
/// the `# →` lines under it; every nginx block and deploy/nginx-pushbridge.conf is accepted
/// by `nginx -t`; every JSON block is JSON; and every `proxy_read_timeout` outlasts the
/// longest answer `check-config` states for the defaults.
@Suite(.serialized) struct DeploymentDocTests {
    static var doc: String {
        get throws { try String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("docs/deployment.md"), encoding: .utf8) }
    }

    /// The fenced blocks opened with "```" + `language` in `text`, in order.
    static func blocks(_ text: Substring, _ language: String) -> [String] {
        var blocks: [String] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let block = current { blocks.append(block.joined(separator: "\n")); current = nil } else if line == "```" + language { current = [] } else { current = nil }
                continue
            }
            current?.append(String(line))
        }
        return blocks
    }

    @Test(.timeLimit(.minutes(3)))
    func theTryItBlocksRunAsWrittenAndPrintWhatTheyPromise() async throws {
        let text = try Self.doc
        let start = try #require(text.range(of: "#### Try it on one machine")).lowerBound
        let end = try #require(text.range(of: "#### What each instance needs")).lowerBound
        let blocks = Self.blocks(text[start..<end], "sh")
        #expect(blocks.count == 5, "\(blocks.count) shell blocks")
        let folder = try TemporaryDirectory("pushbridge-deploy-doc")
        _ = try CLIRunner.shell(["chmod", "755", folder.url.path])
        var replacements = [("/tmp/pushbridge-try.XXXXXX", folder.url.appendingPathComponent("try.XXXXXX").path), (".build/release/pushbridge", CLIRunner.binary.path)]
        for port in ["55432", "8091", "8092", "8081", "8088"] {
            #expect(text[start..<end].contains(port))
            replacements.append((port, String(PostgresTestCluster.freePort())))
        }
        let fixed = blocks.map { block in replacements.reduce(block) { $0.replacingOccurrences(of: $1.0, with: $1.1) } }
        // Whatever a failed run leaves (instances, nginx, the cluster) is stopped on exit.
        let cleanup = """
            cleanup() {
              kill $(jobs -p) 2>/dev/null || true
              [ -n "${try:-}" ] && [ -f "$try/nginx.pid" ] && { kill "$(cat "$try/nginx.pid")" 2>/dev/null || true; }
              [ -n "${try:-}" ] && [ -d "$try/pg" ] && runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$try/pg" -m immediate -w stop >/dev/null 2>&1 || true
              [ -n "${try:-}" ] && rm -rf "$try"
              return 0
            }
            trap cleanup EXIT
            set -euo pipefail
            """
        let script = cleanup + "\n" + fixed.enumerated().map { "echo '@@ block \($0.offset) @@'\n\($0.element)" }.joined(separator: "\n")
        let result = try await CLIRunner.shellAsync(["bash", "-c", script])
        #expect(result.status == 0, "exit \(result.status)\n\(result.stdout)\n\(result.stderr)")
        let promised = Self.checkPromises(Array(fixed.enumerated()), result)
        #expect(promised >= 7, "\(promised) promised lines")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(left.isEmpty, "the last block left \(left)")
    }

    /// Checks every `# → ` line of each block against the output between its `@@ block N @@`
    /// marker and the next one in `result`; returns how many lines were promised.
    static func checkPromises(_ blocks: [(offset: Int, element: String)], _ result: CLIRunner.Output) -> Int {
        var promised = 0
        for (index, block) in blocks {
            let output = result.stdout.components(separatedBy: "@@ block \(index) @@").dropFirst().first?.components(separatedBy: "@@ block ").first ?? ""
            for line in block.split(separator: "\n") where line.hasPrefix("# → ") {
                promised += 1
                let expected = String(line.dropFirst(4))
                #expect(DemoReadmeTests.matches(expected, output), "block \(index) promised: \(expected)\ngot: \(output)\n\(result.stderr)")
            }
        }
        return promised
    }

    @Test func everyNginxBlockAndTheExampleFileAreAcceptedByNginx() throws {
        let folder = try TemporaryDirectory("pushbridge-deploy-nginx")
        let cert = folder.url.appendingPathComponent("cert.pem").path, key = folder.url.appendingPathComponent("key.pem").path
        let made = try CLIRunner.shell(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=push.example.com"])
        #expect(made.status == 0, "\(made.stderr)")
        let example = try String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("deploy/nginx-pushbridge.conf"), encoding: .utf8)
        let configs = Self.blocks(try Self.doc[...], "nginx") + [example]
        #expect(configs.count == 3)
        for (index, config) in configs.enumerated() {
            let file = folder.url.appendingPathComponent("nginx-\(index).conf")
            try Data(config.replacingOccurrences(of: "/etc/ssl/push/fullchain.pem", with: cert).replacingOccurrences(of: "/etc/ssl/push/privkey.pem", with: key).utf8).write(to: file)
            let checked = try CLIRunner.shell(["nginx", "-t", "-q", "-p", folder.url.path, "-c", file.path, "-g", "pid \(folder.url.path)/nginx.pid; error_log stderr;"])
            #expect(checked.status == 0, "nginx refuses block \(index):\n\(config)\n\(checked.stderr)")
        }
    }

    @Test func everyFrontProxyTimeoutOutlastsTheLongestAnswerAndEveryJSONBlockIsJSON() throws {
        let text = try Self.doc
        let demo = try ProxyConfiguration.load(fileAt: CLIRunner.repoRoot.appendingPathComponent("config/demo.json").path, environment: [:])
        let longest = demo.handlerDeadline
        #expect(longest == .seconds(101), "the defaults' longest answer is \(longest)")
        let example = try String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("deploy/nginx-pushbridge.conf"), encoding: .utf8)
        var timeouts: [Int] = []
        for source in [text, example] {
            for line in source.split(separator: "\n") {
                guard let range = line.range(of: "proxy_read_timeout ") else { continue }
                let digits = line[range.upperBound...].prefix { $0.isNumber }
                if let seconds = Int(digits) { timeouts.append(seconds) }
            }
        }
        #expect(timeouts.count >= 4, "\(timeouts)")
        for seconds in timeouts { #expect(Duration.seconds(seconds) > longest, "proxy_read_timeout \(seconds)s gives up before PushBridge answers (\(longest))") }
        let json = Self.blocks(text[...], "json")
        #expect(!json.isEmpty)
        for block in json { #expect((try? JSONParser.parse(Array(block.utf8)))?.objectValue != nil, "not a JSON object:\n\(block)") }
    }
}
