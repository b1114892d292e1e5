import Foundation

extension ProxyRuntime {
    /// Serves the reloaded configuration's certificate on the proxy's listener when it serves
    /// HTTPS (the files were read and checked when the configuration was loaded). Switching it
    /// between HTTP and HTTPS needs a restart and is logged as such. The admin listener's
    /// certificate is its own (``AdminListener/apply(_:)``).
    func reloadCertificates(_ configuration: ProxyConfiguration) {
        if let server { replaceCertificate(on: server, with: configuration.tls, listener: "listen") }
    }

    private func replaceCertificate(on server: HTTPServer, with files: ProxyConfiguration.TLSFiles?, listener: String) {
        switch (server.servesTLS, files) {
        case (false, nil):
            return
        case (true, nil), (false, .some):
            log.warning("switching a listener between HTTP and HTTPS needs a restart; it stays as it is", ["listener": .string(listener)])
        case (true, .some(let files)):
            do {
                try server.replaceCertificate(files.certificate)
                Self.logCertificate("tls certificate reloaded", files.certificate, listener: listener, log: log)
            } catch {
                log.error("tls certificate reload failed; the old certificate stays", ["listener": .string(listener), "error": .string(error.message)])
            }
        }
    }

    /// An info line identifying the certificate a listener serves (never its key).
    static func logCertificate(_ message: String, _ certificate: TLSCertificate, listener: String, log: EventLog) {
        let notAfter = Int64(certificate.notAfter.timeIntervalSince1970 * 1000)
        log.info(message, ["listener": .string(listener), "serial": .string(certificate.serial), "sha256": .string(certificate.sha256),
                           "not_after": .string(RFC3339.format(milliseconds: notAfter))])
    }
}
