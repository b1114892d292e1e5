import Foundation

/// A certificate authority made at test time with the `openssl` command-line tool (Debian's
/// `openssl` package), in a temporary folder: it issues server certificates for 127.0.0.1
/// with a chosen serial and lifetime.
struct TestCertificateAuthority {
    /// The folder of the authority's and its certificates' files, removed with the last copy.
    let folder: TemporaryDirectory
    var directory: URL { folder.url }
    var certificatePath: String { directory.appendingPathComponent("ca.pem").path }
    private var keyPath: String { directory.appendingPathComponent("ca.key").path }

    /// A leaf certificate and its key.
    struct Issued {
        var certificatePath: String
        var keyPath: String
        /// The serial, upper-case hex as `openssl x509 -serial` prints it.
        var serial: String
    }

    init() throws {
        folder = try TemporaryDirectory("pushbridge-ca")
        try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", certificatePath,
                          "-days", "2", "-subj", "/CN=PushBridge Test CA"])
    }

    /// Issues a certificate for `127.0.0.1` and `localhost`, valid for `days` (a negative count
    /// makes one that has already expired), written as `name.pem` and `name.key`.
    func issue(_ name: String, serial: String, days: Int = 1) throws -> Issued {
        let key = directory.appendingPathComponent("\(name).key").path
        let request = directory.appendingPathComponent("\(name).csr").path
        let certificate = directory.appendingPathComponent("\(name).pem").path
        let extensions = directory.appendingPathComponent("\(name).ext").path
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(to: URL(fileURLWithPath: extensions))
        try Self.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"])
        try Self.openssl(["x509", "-req", "-in", request, "-CA", certificatePath, "-CAkey", keyPath, "-set_serial", "0x\(serial)",
                          "-days", String(days), "-extfile", extensions, "-out", certificate])
        return Issued(certificatePath: certificate, keyPath: key, serial: serial.uppercased())
    }

    /// The `tls` configuration object for an issued pair.
    static func configuration(_ issued: Issued) -> TestConfiguration.TLS {
        TestConfiguration.TLS(certificateChain: issued.certificatePath, privateKey: issued.keyPath)
    }

    /// The serial of the certificate served on 127.0.0.1:`port` (after a verified handshake
    /// against this authority), or nil when the handshake failed.
    func servedSerial(port: UInt16) throws -> String? {
        let out = try Self.run("/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) -CAfile '\(certificatePath)' -verify_return_error </dev/null 2>/dev/null | openssl x509 -noout -serial"])
        guard out.status == 0, let line = out.stdout.split(separator: "\n").first, line.hasPrefix("serial=") else { return nil }
        return String(line.dropFirst("serial=".count))
    }

    /// `curl` over HTTPS trusting only this authority: the status, or nil when it failed.
    func curl(port: UInt16, path: String, headers: [String] = []) throws -> (status: Int?, body: String, error: String) {
        let out = try Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", certificatePath, "-w", "\n%{http_code}"]
                               + headers.flatMap { ["-H", $0] } + ["https://127.0.0.1:\(port)\(path)"])
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = lines.last.flatMap { Int($0) }.flatMap { $0 == 0 ? nil : $0 }
        return (status, lines.dropLast().joined(separator: "\n"), out.stderr)
    }

    /// Whether `openssl s_client` limited to `version` (`-tls1_1`, `-tls1_2`, `-tls1_3`)
    /// completes a verified handshake. TLS 1.1 needs OpenSSL's security level 0 on the client
    /// side so that the refusal is the server's.
    func handshakeSucceeds(port: UInt16, version: String) throws -> Bool {
        let out = try Self.run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", certificatePath,
                                                   "-verify_return_error", version, "-cipher", "DEFAULT@SECLEVEL=0"], stdin: Data())
        return out.status == 0 && out.stdout.contains("Verify return code: 0 (ok)")
    }

    private static func openssl(_ arguments: [String]) throws {
        let out = try run("/usr/bin/openssl", arguments)
        guard out.status == 0 else { throw RawHTTPClient.Failure(description: "openssl \(arguments.first ?? ""): \(out.stderr)") }
    }

    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> CLIRunner.Output {
        try CLIRunner.runProcess(URL(fileURLWithPath: executable), arguments, stdin: stdin)
    }
}
