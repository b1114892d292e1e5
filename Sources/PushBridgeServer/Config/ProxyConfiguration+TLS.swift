import Foundation
import PushBridgeCore

extension ProxyConfiguration {
    /// HTTPS on a listener: a PEM certificate chain and its private key, checked when the
    /// configuration is loaded (readable, matching, valid now) and read again on every reload.
    public struct TLSFiles: Sendable {
        /// The certificate chain file, leaf first (`certificate_chain`).
        public var certificateChainPath: String
        /// The private key file, unencrypted PEM (`private_key`).
        public var privateKeyPath: String
        /// The pair as read and checked when the configuration was loaded.
        public var certificate: TLSCertificate

        /// Reads and checks the pair; throws ``HTTPServerError`` saying what is wrong with it.
        public init(certificateChainPath: String, privateKeyPath: String) throws(HTTPServerError) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
            self.certificate = try TLSCertificate.load(certificateChainPath: certificateChainPath, privateKeyPath: privateKeyPath)
        }
    }

    /// The `tls` object at `path` (`tls`, `admin.tls`): `{"certificate_chain": FILE,
    /// "private_key": FILE}`; every problem is reported under `path`.
    static func decodeTLS(_ value: JSONValue?, at path: String, _ r: ConfigReader) -> TLSFiles? {
        guard let o = r.object(value, at: path, allowed: ["certificate_chain", "private_key"]) else { return nil }
        let chain = r.string(o, "certificate_chain", at: path, required: true)
        let key = r.string(o, "private_key", at: path, required: true)
        guard let chain, let key else { return nil }
        guard TLSCertificate.serverSupportIsAvailable else {
            r.report(path, "the installed libmicrohttpd was built without TLS support")
            return nil
        }
        do {
            return try TLSFiles(certificateChainPath: chain, privateKeyPath: key)
        } catch {
            r.report(path, error.message)
            return nil
        }
    }
}
