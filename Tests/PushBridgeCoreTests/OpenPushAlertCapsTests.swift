import Testing
@testable import PushBridgeCore

/// `OpenPushCheck.alertCaps` no longer measures a text of at most its cap in UTF-8 bytes (issue
/// 31, branch `translate6`): its caveats must be those of measuring every text, as before (the
/// oracle kept here, through `LiquidEscaping.rendered`), for titles and bodies of every length
/// around both caps in bytes and in characters: ASCII, two-, three- and four-byte characters,
/// combining marks (one character of several scalars), PushBridge's escapes (ten bytes, two
/// characters) and Liquid tags.
struct OpenPushAlertCapsTests {
    /// The caveats as the check made them before: every text measured.
    static func oracle(_ request: OpenPushRequest) -> [Finding] {
        var out: [Finding] = []
        for (key, map, cap, what) in [("headings", request.alertMaps.headings, OpenPushLimits.alertTitleCap, "alert title"),
                                      ("contents", request.alertMaps.contents, OpenPushLimits.alertBodyCap, "alert body")] {
            for m in map?.members ?? [] {
                guard let text = m.value.stringValue else { continue }
                let rendered = LiquidEscaping.rendered(text)
                guard rendered.length > cap else { continue }
                let measure = rendered.hasTemplateTags
                    ? "is \(rendered.length) characters before Liquid fills in its tags, over OpenPush's cap of \(cap) for the \(what): unless the values make it shorter, OpenPush cuts it to \(cap)"
                    : "is \(rendered.length) characters as OpenPush renders it, over its cap of \(cap) for the \(what): OpenPush cuts it to \(cap) characters"
                out.append(Finding(field: "caller.\(key).\(m.key)", kind: .caveat, message: "\(measure). Shorten the text to keep its end"))
            }
        }
        return out
    }

    /// Texts of `length` units of one kind, with a tail that shifts them by a few bytes.
    static func texts(around cap: Int) -> [String] {
        let units = ["a", "é", "€", "😀", "e\u{301}", "{{ '{{' }}", "{{ name }}"]
        var out: [String] = []
        for unit in units {
            let per = unit.utf8.count
            for n in Set([cap / per - 2, cap / per - 1, cap / per, cap / per + 1, cap / per + 2, cap - 1, cap, cap + 1, cap + 2]) where n >= 0 {
                for tail in ["", "a", "ab", "é", "😀"] {
                    out.append(String(repeating: unit, count: n) + tail)
                }
            }
        }
        return out
    }

    @Test func theCaveatsAreThoseOfMeasuringEveryText() {
        var caveats = 0
        let titles = Self.texts(around: OpenPushLimits.alertTitleCap), bodies = Self.texts(around: OpenPushLimits.alertBodyCap)
        for (i, title) in titles.enumerated() {
            for body in [bodies[i % bodies.count], bodies[(i * 7) % bodies.count]] {
                var s = OpenPushStart(appId: "app", activityType: "Delivery")
                s.headings = ["en": .string(title), "fr": .string(body)]
                s.contents = ["en": .string(body), "de": .string(title), "n": .int(1)]
                let request = OpenPushRequest(.start(s))
                let found = OpenPushCheck.alertCaps(request) { "caller.\($0)" }
                let expected = Self.oracle(request)
                #expect(found == expected, "\(title.utf8.count) / \(body.utf8.count) bytes")
                caveats += expected.count
            }
        }
        #expect(caveats > 200, "only \(caveats) caveats")
    }
}
