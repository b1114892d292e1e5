import PushBridgeCore
import Testing

/// Redaction rebuilds only what it changes; these pin the exact text it produces when it
/// changes a key, a value deep in an array, keys that collide, or nothing at all.
struct RedactionSharingTests {
    private let fingerprint: (String) -> String = { "fp(\($0.count))" }

    @Test func aDocumentWithoutSecretsComesBackByteForByte() throws {
        let body = #"{"b":[1,{"c":"x"},[true,null]],"a":{"z":"zz","y":2.5},"e":"é"}"#
        let out = Redaction.inboundBody(Array(body.utf8), dialect: .onesignal, fingerprint: fingerprint)
        #expect(out == body)
    }

    @Test func onlyTheSecretMembersChangeAndOrderIsKept() {
        let body = #"{"k1":"v","list":[{"x":1},{"token":"TOKEN_123456","y":[2]},"plain"],"api_key":null,"tail":{"rest_api_key":7}}"#
        let out = Redaction.inboundBody(Array(body.utf8), dialect: .onesignal, fingerprint: fingerprint)
        #expect(out == #"{"k1":"v","list":[{"x":1},{"token":"fp(12)","y":[2]},"plain"],"api_key":null,"tail":{"rest_api_key":"fp(1)"}}"#)
    }

    @Test func aSecretRepeatedInValuesAndKeysIsSweptThere() {
        let body = #"{"auth":"SECRET_99","notes":["see SECRET_99 twice SECRET_99"],"by":{"SECRET_99":"k","other":"keep"}}"#
        let out = Redaction.inboundBody(Array(body.utf8), dialect: .pushwoosh, fingerprint: fingerprint)
        #expect(out == #"{"auth":"fp(9)","notes":["see fp(9) twice fp(9)"],"by":{"fp(9)":"k","other":"keep"}}"#)
    }

    @Test func keysThatBecomeTheSameKeyKeepTheLaterValue() {
        let value = JSONValue.object(["A_SECRET_1": .string("first"), "fp(10)": .string("second"), "n": .array([.string("A_SECRET_1")])])
        let out = Redaction.sweep(value, secrets: ["A_SECRET_1"], fingerprint: fingerprint)
        #expect(JSONWriter.string(out) == #"{"fp(10)":"second","n":["fp(10)"]}"#)
    }

    @Test func encodedSegmentsOfPlainIdsAreThemselvesAndOthersAreEscaped() {
        #expect(PathEncoding.encodeSegment("app_3f9c2b-X.~") == "app_3f9c2b-X.~")
        #expect(PathEncoding.encodeSegment("a b/c?é") == "a%20b%2Fc%3F%C3%A9")
        #expect(PathEncoding.encodeSegment("") == "")
    }
}

/// The key-length shortcut must not let a secret key through in any spelling.
struct RedactionKeyFilterTests {
    @Test func everySecretKeyIsFoundInAnyCaseAndOthersOfTheSameLengthAreNot() {
        let fingerprint: (String) -> String = { "fp(\($0.count))" }
        for key in Redaction.secretKeys.union(["devices"]) {
            for spelling in [key, key.uppercased(), key.prefix(1).uppercased() + key.dropFirst()] {
                let out = Redaction.inboundBody(Array(#"{"\#(spelling)":"VALUE_123456","x":{"\#(spelling)":7}}"#.utf8), dialect: .pushwoosh, fingerprint: fingerprint)
                #expect(!out.contains("VALUE_123456") && !out.contains(":7"), "\(spelling)")
            }
        }
        // Same lengths as secret keys, not secret: kept.
        let kept = Redaction.inboundBody(Array(#"{"auto":"a","tokens":"b","api_kez":"c"}"#.utf8), dialect: .pushwoosh, fingerprint: fingerprint)
        #expect(kept == #"{"auto":"a","tokens":"b","api_kez":"c"}"#)
        // A non-ASCII spelling that lower-cases to a secret key (Kelvin sign K) is still found.
        let kelvin = Redaction.inboundBody(Array(#"{"to\#u{212A}en":"VALUE_123456"}"#.utf8), dialect: .onesignal, fingerprint: fingerprint)
        #expect(!kelvin.contains("VALUE_123456"))
    }
}
