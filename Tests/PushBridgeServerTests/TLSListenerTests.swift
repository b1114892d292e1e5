import Foundation
import Glibc
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// HTTPS served by libmicrohttpd's GnuTLS, checked from outside with a CA made at test time:
/// curl and `openssl s_client` handshakes, the official OneSignal Python client, a plain HTTP
/// request on the TLS port, bad certificates at start-up, and a certificate renewed on SIGHUP.
@Suite(.serialized)
struct TLSListenerTests {
    @Test func servesHTTPSWithTheConfiguredCertificateAndOnlyTLS12AndUp() async throws {
        let (ca, leaf, _, proxy) = try Self.httpsProxy(serial: "1A2B01")
        let port = proxy.port
        let (health, served, tls12, tls13, tls11) = try await offPool {
            (try ca.curl(port: port, path: "/healthz"), try ca.servedSerial(port: port),
             try ca.handshakeSucceeds(port: port, version: "-tls1_2"), try ca.handshakeSucceeds(port: port, version: "-tls1_3"),
             try ca.handshakeSucceeds(port: port, version: "-tls1_1"))
        }
        await proxy.stop()
        #expect(health.status == 200, "curl: \(health.error)")
        #expect(health.body.contains(#""status":"ok""#))
        #expect(served == leaf.serial)
        #expect(tls12 && tls13)
        #expect(!tls11, "a TLS 1.1 handshake must be refused")
        #expect(proxy.log.lines.contains { $0.contains(#"msg="serving tls""#) && $0.contains("serial=\(leaf.serial)") })
    }

    @Test func officialOneSignalClientTalksHTTPSTrustingTheTestCA() async throws {
        let (ca, _, upstream, proxy) = try Self.httpsProxy(serial: "1A2B02")
        let script = CLIRunner.repoRoot.appendingPathComponent("Tests/python/onesignal_live_activity.py").path
        let env = ProcessInfo.processInfo.environment.merging(
            ["PB_HOST": "https://127.0.0.1:\(proxy.port)", "PB_CA": ca.certificatePath, "PB_KEY": ProxyHarness.oneSignalKey,
             "PB_APP": "app_3f9c2b", "PB_ACTIVITY": "py_tls_1"]) { $1 }
        let output = try await offPool { try PythonRunner.run(script: script, environment: env) }
        await proxy.stop()
        #expect(output.status == 0, "python: \(output.stdout) \(output.stderr)")
        let calls = output.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)).objectValue?["call"]?.stringValue }
        #expect(calls == ["start", "update", "end"])
        #expect(upstream.all.map(\.path).last == "/apps/app_3f9c2b/live_activities/py_tls_1/notifications")
    }

    @Test func plainHTTPOnTheTLSPortIsClosedWithoutAnAnswerAndTLSGoesOn() async throws {
        let (ca, _, _, proxy) = try Self.httpsProxy(serial: "1A2B03")
        let port = proxy.port
        let plain = try await offPool { try PlainProbe.send(port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeoutSeconds: 5) }
        let after = try await offPool { try ca.curl(port: port, path: "/healthz") }
        await proxy.stop()
        #expect(plain.closed, "the server must close the connection, not leave it hanging")
        #expect(!plain.bytes.starts(with: Array("HTTP/".utf8)), "no HTTP answer in clear text on the TLS port")
        #expect(after.status == 200, "curl after the plain request: \(after.error)")
    }

    @Test func anExpiredCertificateOrAForeignKeyIsRefusedAtStartUpWithWhatIsWrong() async throws {
        let ca = try TestCertificateAuthority()
        let expired = try ca.issue("expired", serial: "1A2B04", days: -1)
        let good = try ca.issue("good", serial: "1A2B05")
        let other = try ca.issue("other", serial: "1A2B06")
        let foreignKey = TestCertificateAuthority.Issued(certificatePath: good.certificatePath, keyPath: other.keyPath, serial: good.serial)
        let folder = try TemporaryDirectory("pushbridge-tls")
        let directory = folder.url
        var messages: [String] = []
        for (name, pair) in [("expired", expired), ("foreign", foreignKey)] {
            let config = try Self.configuration(audit: "\(directory.path)/\(name).sqlite", tls: pair).write(to: directory.appendingPathComponent("\(name).json").path)
            let out = try await CLIRunner.runAsync(["serve", "--config", config], environment: ProxyHarness.environment)
            #expect(out.status == 1, "\(name): \(out.stderr)")
            messages.append(out.stderr)
        }
        #expect(messages[0].contains("tls: the certificate in \(expired.certificatePath) expired at"), "\(messages[0])")
        #expect(messages[1].contains("tls: the private key \(other.keyPath) does not match the certificate in \(good.certificatePath)"), "\(messages[1])")
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/expired.sqlite"), "nothing may start with a bad certificate")
    }

    @Test func sighupServesTheRenewedCertificateAndKeepsTheOldOneWhenTheNewOneIsBad() async throws {
        let ca = try TestCertificateAuthority()
        let first = try ca.issue("first", serial: "1A2B07")
        let renewed = try ca.issue("renewed", serial: "1A2B08")
        let expired = try ca.issue("expired", serial: "1A2B09", days: -1)
        // The configuration names fixed paths; renewing overwrites them, as certbot's deploy hook would.
        let live = TestCertificateAuthority.Issued(certificatePath: ca.directory.appendingPathComponent("live.pem").path,
                                                   keyPath: ca.directory.appendingPathComponent("live.key").path, serial: "")
        try Self.install(first, as: live)
        let config = try Self.configuration(audit: "\(ca.directory.path)/audit.sqlite", tls: live).write(to: ca.directory.appendingPathComponent("proxy.json").path)
        let server = try await ServeProcess.start(config: config, environment: ProxyHarness.environment, logPath: ca.directory.appendingPathComponent("serve.log").path)
        let port = server.port
        let before = try await offPool { try ca.servedSerial(port: port) }

        try Self.install(renewed, as: live)
        kill(server.process.processIdentifier, SIGHUP)
        let after = try await Self.waitForServedSerial(renewed.serial, ca: ca, port: port)
        let health = try await offPool { try ca.curl(port: port, path: "/healthz") }

        try Self.install(expired, as: live)
        kill(server.process.processIdentifier, SIGHUP)
        let refused = try await Self.waitForLog(server.logPath) { $0.contains("configuration reload failed") && $0.contains("expired at") }
        let stillServed = try await offPool { try ca.servedSerial(port: port) }
        let status = try await server.terminate()

        #expect(before == first.serial)
        #expect(after == renewed.serial, "the renewed certificate must be served after SIGHUP")
        #expect(health.status == 200, "curl: \(health.error)")
        #expect(refused, "an expired replacement must be refused in the log")
        #expect(stillServed == renewed.serial, "a bad replacement keeps the certificate in service")
        #expect(status == 0)
    }

    @Test func theAdminListenerServesHTTPSToo() async throws {
        let ca = try TestCertificateAuthority()
        let leaf = try ca.issue("admin", serial: "1A2B0A")
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with {
            $0.admin = .init(tokenEnv: "OS_KEY", tls: TestCertificateAuthority.configuration(leaf))
        })
        let adminPort = try #require(proxy.runtime.adminServer?.port)
        let (report, served) = try await offPool {
            (try ca.curl(port: adminPort, path: "/admin/report?format=json", headers: ["Authorization: Bearer \(ProxyHarness.oneSignalKey)"]),
             try ca.servedSerial(port: adminPort))
        }
        let plainMain = try await RawHTTPClient.send(port: proxy.port, target: "/healthz")
        await proxy.stop()
        #expect(report.status == 200, "curl: \(report.error) \(report.body)")
        #expect(served == leaf.serial)
        #expect(plainMain.status == 200, "the main listener stays plain HTTP")
    }

    /// A proxy serving HTTPS with a certificate of a new test CA, in front of a recording sandbox.
    /// `pushbridge serve` on HTTPS with `tls`: app `os` before the embedded sandbox, its audit at `audit`.
    private static func configuration(audit: String, tls: TestCertificateAuthority.Issued) -> TestConfiguration {
        TestConfiguration(upstream: nil, apps: [.os]).with {
            $0.auditDatabase = audit
            $0.sandbox = .init()
            $0.tls = TestCertificateAuthority.configuration(tls)
        }
    }

    private static func httpsProxy(serial: String) throws -> (TestCertificateAuthority, TestCertificateAuthority.Issued, RecordingSandbox, ProxyHarness) {
        let ca = try TestCertificateAuthority()
        let leaf = try ca.issue("server", serial: serial)
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.tls = TestCertificateAuthority.configuration(leaf) })
        return (ca, leaf, upstream, proxy)
    }

    private static func install(_ issued: TestCertificateAuthority.Issued, as live: TestCertificateAuthority.Issued) throws {
        for (from, to) in [(issued.certificatePath, live.certificatePath), (issued.keyPath, live.keyPath)] {
            try? FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
    }

    /// Polls the served serial until it is `serial` (or 15 s pass); returns the last one seen.
    private static func waitForServedSerial(_ serial: String, ca: TestCertificateAuthority, port: UInt16) async throws -> String? {
        var seen: String?
        _ = try await firstValue(within: 15) { () async throws -> Bool? in
            seen = try await offPool { try ca.servedSerial(port: port) }
            return seen == serial ? true : nil
        }
        return seen
    }

    /// Polls a log file until a line matches (or 15 s pass).
    private static func waitForLog(_ path: String, _ matches: (String) -> Bool) async throws -> Bool {
        await firstValue(within: 15) { () -> Bool? in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains(where: { matches(String($0)) }) ? true : nil
        } ?? false
    }
}

/// A plain TCP client that reads until the server closes or the timeout passes.
enum PlainProbe {
    /// What came back, and whether the server closed the connection before the timeout.
    static func send(port: UInt16, _ text: String, timeoutSeconds: Int) throws -> (bytes: [UInt8], closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPClient.Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) == 0 else { throw RawHTTPClient.Failure(description: "connect failed: errno \(errno)") }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n]; continue }
            if n == 0 || errno == ECONNRESET { return (received, true) }
            return (received, false)
        }
    }
}
