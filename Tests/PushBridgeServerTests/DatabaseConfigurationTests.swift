import Foundation
import Testing
@testable import PushBridgeServer

/// `audit_db` as a PostgreSQL URI and `instance_name`.
struct DatabaseConfigurationTests {
    private func load(_ top: String) throws(ConfigurationError) -> ProxyConfiguration {
        let json = #"{\#(top) "openpush": {"base_url": "http://127.0.0.1:9"}, "apps": [{"name": "n", "dialect": "onesignal", "source_app_id": "s", "openpush": {"app_id": "a1", "rest_key_env": "OP"}, "callers": [{"key_env": "OS"}]}]}"#
        return try ProxyConfiguration.load(json: Array(json.utf8), environment: ["OP": "op-key", "OS": "os-key"])
    }

    private func problems(_ top: String) -> [String] {
        do { _ = try load(top); return [] } catch { return error.problems.map(\.description) }
    }

    @Test func aPostgresURIIsAcceptedWithItsTLSParametersAndRefusedWithAPassword() throws {
        let uri = "postgresql://pushbridge@db.internal:5432/audit?sslmode=verify-full&sslrootcert=/etc/ssl/db.pem"
        #expect(try load(#""audit_db": "\#(uri)","#).auditDatabasePath == uri)
        let refused = problems(#""audit_db": "postgres://pushbridge:hunter2@db.internal/audit","#)
        #expect(refused.count == 1)
        #expect(refused.first?.hasPrefix("audit_db:") == true)
        #expect(refused.first?.contains("PGPASSWORD") == true)
        #expect(refused.first?.contains("hunter2") == false)
        #expect(problems(#""audit_db": "postgresql://u@h/db?password=hunter2","#).count == 1)
        let passphrase = problems(#""audit_db": "postgresql://u@h/db?sslmode=verify-full&sslpassword=hunter2","#)
        #expect(passphrase.count == 1)
        #expect(passphrase.first?.contains("hunter2") == false)
    }

    @Test func instanceNameDefaultsToHostAndPidAndCanBeSet() throws {
        let defaulted = try load("")
        #expect(defaulted.instanceName == "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)")
        #expect(try load(#""instance_name": "edge-2","#).instanceName == "edge-2")
        #expect(problems(#""instance_name": "","#).count == 1)
        #expect(problems(#""instance_name": "a\nb","#).count == 1)
    }
}
