import CMicroHTTPD
import COpenSSL
import Foundation

/// A PEM certificate chain and its private key, read from files and checked before a server
/// uses them: the key belongs to the leaf, and the leaf is valid now. libmicrohttpd serves
/// them through GnuTLS; the checks use OpenSSL so that a bad pair is refused with a message
/// that says what is wrong, not GnuTLS's "failed to set up x509 credentials".
public struct TLSCertificate: Sendable, CustomStringConvertible {
    /// The GnuTLS priority string the server uses: GnuTLS's defaults with every protocol
    /// version below TLS 1.2 removed.
    public static let priorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

    /// The certificate chain file (leaf first, then intermediates).
    public let certificateChainPath: String
    /// The private key file.
    public let privateKeyPath: String
    /// The leaf's serial number, upper-case hex.
    public let serial: String
    /// SHA-256 of the leaf's DER encoding, lower-case hex.
    public let sha256: String
    /// The leaf's subject, one line.
    public let subject: String
    /// When the leaf expires.
    public let notAfter: Date
    /// Certificates in the chain file.
    public let certificateCount: Int
    /// The chain as read (PEM).
    let chainPEM: [UInt8]
    /// The key as read (PEM). Never printed: ``description`` shows the certificate only.
    let keyPEM: [UInt8]

    /// Reads and checks the pair. Throws ``HTTPServerError`` naming the file and the problem:
    /// unreadable, no PEM certificate, an unreadable or encrypted key, a key that does not
    /// match the leaf, a leaf that is expired or not yet valid at `now`.
    public static func load(certificateChainPath: String, privateKeyPath: String, now: Date = Date()) throws(HTTPServerError) -> TLSCertificate {
        guard let chain = FileManager.default.contents(atPath: certificateChainPath) else {
            throw HTTPServerError("cannot read the certificate chain \(certificateChainPath)")
        }
        guard let key = FileManager.default.contents(atPath: privateKeyPath) else {
            throw HTTPServerError("cannot read the private key \(privateKeyPath)")
        }
        let chainBytes = Array(chain), keyBytes = Array(key)
        var inspection = pb_tls_inspection()
        let status = chainBytes.withUnsafeBufferPointer { c in
            keyBytes.withUnsafeBufferPointer { k in
                c.withMemoryRebound(to: CChar.self) { c in
                    k.withMemoryRebound(to: CChar.self) { k in
                        pb_tls_inspect(c.baseAddress, Int32(c.count), k.baseAddress, Int32(k.count), &inspection)
                    }
                }
            }
        }
        guard status == 0 else {
            throw HTTPServerError("\(certificateChainPath) holds no PEM certificate")
        }
        guard inspection.key_readable == 1 else {
            throw HTTPServerError("\(privateKeyPath) holds no readable PEM private key (an encrypted key is not supported)")
        }
        guard inspection.key_matches == 1 else {
            throw HTTPServerError("the private key \(privateKeyPath) does not match the certificate in \(certificateChainPath)")
        }
        let certificate = TLSCertificate(
            certificateChainPath: certificateChainPath, privateKeyPath: privateKeyPath,
            serial: withUnsafeBytes(of: inspection.serial_hex) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
            sha256: withUnsafeBytes(of: inspection.sha256) { Fingerprint.hex($0) },
            subject: withUnsafeBytes(of: inspection.subject) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
            notAfter: Date(timeIntervalSince1970: TimeInterval(inspection.not_after)),
            certificateCount: Int(inspection.certificate_count), chainPEM: chainBytes, keyPEM: keyBytes)
        let notBefore = Date(timeIntervalSince1970: TimeInterval(inspection.not_before))
        if certificate.notAfter <= now {
            throw HTTPServerError("the certificate in \(certificateChainPath) expired at \(certificate.notAfter) (serial \(certificate.serial))")
        }
        if notBefore > now {
            throw HTTPServerError("the certificate in \(certificateChainPath) is not valid before \(notBefore) (serial \(certificate.serial))")
        }
        return certificate
    }

    /// The certificate (subject, serial, fingerprint, expiry), never the key.
    public var description: String {
        "TLSCertificate(subject: \(subject), serial: \(serial), sha256: \(sha256), notAfter: \(notAfter))"
    }

    /// Whether libmicrohttpd was built with TLS (Debian's links GnuTLS).
    public static var serverSupportIsAvailable: Bool { pb_mhd_tls_supported() == 1 }
}
