import Testing
@testable import PushBridgeServer

struct EventLogRedactionTests {
    static let secret = "os_v2_app_SECRETSECRETSECRET"

    @Test(arguments: ProxyConfiguration.LogFormat.allCases)
    func secretNamedFieldsAreAlwaysFingerprinted(format: ProxyConfiguration.LogFormat) throws {
        let keys = ["authorization", "Authorization", "auth", "api_key", "API-KEY", "rest_key", "token", "bearer", "device_token",
                    "caller_api_key", "live_activity_token", "onesignal_rest_key"]
        let collector = LineCollector()
        let log = EventLog(format: format, minimumLevel: .debug, sink: collector.sink)
        for key in keys {
            log.log(.debug, "oops", [LogField(key, .string(Self.secret))])
            log.log(.error, "oops", [LogField(key, .string("Basic " + Self.secret))])
        }
        #expect(collector.lines.count == keys.count * 2)
        #expect(!collector.output.contains("SECRET"))
        let pairs = try EventLogTests.pairs(collector.lines[0], format)
        #expect(pairs[3].key == "authorization")
        #expect(pairs[3].value == Fingerprint.of(Self.secret))
    }

    @Test func nonStringSecretsAreFingerprintedToo() {
        let collector = LineCollector()
        EventLog(sink: collector.sink).info("m", ["token": 123_456_789, "auth": true])
        #expect(!collector.output.contains("123456789"))
        #expect(collector.output.contains("token=" + Fingerprint.of("123456789")))
        #expect(collector.output.contains("auth=" + Fingerprint.of("true")))
    }

    @Test(arguments: [
        ("authorization", true), ("x-auth", true), ("push_token", true), ("key_fingerprint", false), ("request_id", false),
        ("tokens", false), ("author", false), ("route", false),
    ])
    func whichKeysAreSecret(key: String, secret: Bool) {
        #expect(LogRedaction.isSecret(key: key) == secret)
    }
}
