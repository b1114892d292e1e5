import PushBridgeCore
import Testing

struct RedactionTests {
    private let fingerprint: (String) -> String = { "fp(\($0.count))" }

    @Test func secretKeysAreRedactedAtAnyDepthWhateverTheirType() {
        let body = #"{"a":{"API_KEY":"KEY_123456","nested":[{"token":12345678901},{"device_token":["TOK_ABCDEF"]}]},"Authorization":"Bearer XYZ_987654","keep":"ok"}"#
        let out = Redaction.inboundBody(Array(body.utf8), dialect: .onesignal, fingerprint: fingerprint)
        for secret in ["KEY_123456", "12345678901", "TOK_ABCDEF", "XYZ_987654"] { #expect(!out.contains(secret)) }
        #expect(out.contains(#""keep":"ok""#))
    }

    @Test func pushwooshDevicesAndAuthAreRedactedAndSweptFromOtherFields() {
        let body = #"{"request":{"auth":"SECRET_API_TOKEN","notifications":[{"devices":["tokA_111111"],"note":"see tokA_111111 and SECRET_API_TOKEN"}]}}"#
        let out = Redaction.inboundBody(Array(body.utf8), dialect: .pushwoosh, fingerprint: fingerprint)
        #expect(!out.contains("SECRET_API_TOKEN"))
        #expect(!out.contains("tokA_111111"))
        #expect(Redaction.secrets(inInbound: Array(body.utf8), dialect: .pushwoosh) == ["SECRET_API_TOKEN", "tokA_111111"])
        // The same key is not a secret in another dialect.
        #expect(Redaction.inboundBody(Array(#"{"devices":["x_1234567"]}"#.utf8), dialect: .buzzkit, fingerprint: fingerprint).contains("x_1234567"))
    }

    @Test func pushwooshTargetingIdsAreFingerprintedInTheTranslation() {
        var start = OpenPushStart(appId: "app", activityType: "T")
        start.includeSubscriptionIds = ["tokA_111111"]
        var update = OpenPushStart(appId: "app", activityType: "T")
        update.includeAliases = ["device": .string("tokB_222222")]
        let out = JSONWriter.string(Redaction.openPushRequests([OpenPushRequest(.start(start)), OpenPushRequest(.start(update))],
                                                               dialect: .pushwoosh, fingerprint: fingerprint))
        #expect(!out.contains("tokA_111111") && !out.contains("tokB_222222"))
        #expect(out.contains(#""include_aliases":{"device":"fp(11)"}"#))
        // OneSignal subscription ids are not tokens and are kept.
        let kept = JSONWriter.string(Redaction.openPushRequests([OpenPushRequest(.start(start))], dialect: .onesignal, fingerprint: fingerprint))
        #expect(kept.contains("tokA_111111"))
    }

    @Test func anUnparseableBodyBecomesItsSizeAndFingerprint() {
        let out = Redaction.inboundBody(Array(#"{"auth":"SECRET"#.utf8), dialect: .pushwoosh, fingerprint: fingerprint)
        #expect(out == #"{"unparseable":true,"bytes":15,"sha256":"fp(15)"}"#)
    }
}
