@testable import PushBridgeServer
import Testing

/// Issue 31, the log's cost: the keys of the lines written per request are checked once
/// (``LogLineKeys``); only keys the general path writes as they are, unredacted, are plain.
struct LogLineKeysTests {
    @Test func theRequestsOwnKeysArePlain() {
        #expect(EventLog.accessKeys.plain)
        #expect(EventLog.findingKeys.plain)
    }

    @Test func keysTheGeneralPathWouldChangeAreNotPlain() {
        for keys in [["request_id", "msg"], ["ts"], ["level"], ["app", "app"], ["a b"], [""], ["api_key"], ["Caller-Token"],
                     [String(repeating: "k", count: 65)]] {
            #expect(!LogLineKeys(keys).plain, "\(keys)")
        }
        #expect(LogLineKeys([String(repeating: "k", count: 64), "a.b-c_D9"]).plain)
    }

    @Test func matchIsTheKeysInTheirOrder() {
        let keys = LogLineKeys(["a", "b"])
        #expect(keys.match([LogField("a", 1), LogField("b", 2)]))
        #expect(!keys.match([LogField("b", 1), LogField("a", 2)]))
        #expect(!keys.match([LogField("a", 1)]))
    }

    /// Plain keys written as they are give the general path's line, byte for byte.
    @Test(arguments: ProxyConfiguration.LogFormat.allCases)
    func plainKeysGiveTheGeneralPathsLine(format: ProxyConfiguration.LogFormat) {
        let encoder = LogLineEncoder(format: format, maxValueBytes: 16)
        let fields = EventLog.accessKeys.names.enumerated().map { LogField($0.element, $0.offset % 2 == 0 ? .string("v \($0.offset)\n\"é\" and more than sixteen bytes") : .int(Int64($0.offset))) }
        let plain = encoder.encode(milliseconds: 1_796_000_000_123, level: .info, message: "request", fields: fields, plainKeys: true)
        let general = encoder.encode(milliseconds: 1_796_000_000_123, level: .info, message: "request", fields: fields)
        #expect(plain == general)
    }
}
