import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer
#if canImport(Glibc)
import Glibc
#endif

/// What a device received, readable while the proxy runs: the embedded sandbox on its own
/// address (`sandbox.listen`) and its read-only views on the admin listener; `pushbridge
/// sandbox` says where it listens at once and logs a line per request.
@Suite(.serialized) struct SandboxViewsLiveTests {
    @Test func theEmbeddedSandboxsViewsShowWhatEachDeviceReceived() async throws {
        let views = TestConfiguration.demo(audit: nil).with {
            $0.apps = [TestApp.os.with { $0.restKeyEnv = "UNSET_KEY" }]
            $0.readiness = nil
            $0.admin = .init(tokenEnv: "VIEWS_ADMIN_TOKEN")
        }
        // No OpenPush key in the environment: the embedded sandbox's seed gives it.
        let proxy = try ProxyHarness(.inProcess, configuration: views, environment: ["VIEWS_ADMIN_TOKEN": "views-token", "OS_KEY": ProxyHarness.oneSignalKey])
        let sandboxPort = try #require(proxy.runtime.sandboxServer?.port)
        let adminPort = try #require(proxy.runtime.adminServer?.port)
        let started = try await proxy.send(path: ReadinessRun.path, body: ReadinessRun.start("views_1"))
        #expect(started.status == 201, "\(String(decoding: started.body, as: UTF8.self))")

        let sends = try await RawHTTPClient.send(port: sandboxPort, target: "/_sandbox/sends")
        let send = try #require(try JSONParser.parse(sends.body).objectValue?["sends"]?.arrayValue?.last?.objectValue)
        #expect(send["activity_id"] == .string("views_1"))
        let deliveries = send["deliveries"]?.arrayValue ?? []
        #expect(deliveries.compactMap { $0.objectValue?["subscription_id"]?.stringValue } == ["sub_ios_alice", "sub_ios_bob"])
        let aps = deliveries.first?.objectValue?["payload"]?.objectValue?["aps"]?.objectValue
        #expect(aps?["event"] == .string("start") && aps?["alert"]?.objectValue?["title"] == .string("On the way"))

        let devices = try await RawHTTPClient.send(port: sandboxPort, target: "/_sandbox/devices?app_id=app_3f9c2b")
        let subscriptions = (try JSONParser.parse(devices.body).objectValue?["devices"]?.arrayValue ?? []).compactMap { $0.objectValue?["subscription_id"]?.stringValue }
        #expect(subscriptions == ["sub_ios_alice", "sub_ios_bob"])
        let activities = try await RawHTTPClient.send(port: sandboxPort, target: "/_sandbox/activities")
        let opened = (try JSONParser.parse(activities.body).objectValue?["activities"]?.arrayValue ?? []).filter { $0.objectValue?["activity_id"] == .string("views_1") }
        #expect(opened.count == 2 && opened.allSatisfy { $0.objectValue?["ended_at"] == .null })

        // The admin listener serves the same views behind its token, and nothing that writes.
        let auth = [("Authorization", "Bearer views-token")]
        let adminSends = try await RawHTTPClient.send(port: adminPort, target: "/_sandbox/sends", headers: auth)
        let denied = try await RawHTTPClient.send(port: adminPort, target: "/_sandbox/sends")
        let clock = try await RawHTTPClient.send(port: adminPort, method: "POST", target: "/_sandbox/clock", headers: auth, body: Array(#"{"advance_seconds": 60}"#.utf8))
        #expect(adminSends.status == 200 && adminSends.body == sends.body)
        #expect(denied.status == 401 && clock.status == 404)
        await proxy.stop()
    }

    @Test(.timeLimit(.minutes(1))) func pushbridgeSandboxSaysWhereItListensAtOnceAndLogsEveryRequest() async throws {
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = ["sandbox", "--listen", "127.0.0.1:0", "--seed", "config/demo-seed.json"]
        process.currentDirectoryURL = CLIRunner.repoRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let lines = LineReader(out.fileHandleForReading)
        // Read while the process runs: a block-buffered stdout would show nothing until exit.
        let listening = try #require(await lines.next(within: 10), "no listening line while running")
        #expect(listening.hasPrefix("pushbridge sandbox listening on http://127.0.0.1:"), "\(listening)")
        let port = try #require(UInt16(listening.split(separator: ":")[2].prefix { $0.isNumber }))
        let reply = try await RawHTTPClient.send(port: port, target: "/_sandbox/sends")
        #expect(reply.status == 200)
        let access = try #require(await lines.next(within: 10), "no access line for the request")
        #expect(access.contains("msg=request method=GET path=/_sandbox/sends status=200 duration_ms="), "\(access)")
        process.terminate()
        try await offPool { process.waitUntilExit() }
    }
}

/// Lines from a pipe, read on their own thread as they arrive.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line, or nil when none came within `seconds` (or the pipe closed).
    func next(within seconds: Double) async -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = try? await offPool { [handle] in handle.availableData }
            guard let chunk, !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
        return nil
    }
}
