// Shared by every libFuzzer target in fuzz/. Compiled together with the PushBridgeCore sources
// into one module (see fuzz/build.sh), so it uses the core's internal names without an import.

/// What one fuzz input goes through: for every route of a dialect and two translation
/// contexts, decode → translate → validate → render (accepted and failed), and the JSON
/// parse/write round trip. A broken invariant traps, which libFuzzer reports as a crash.
enum FuzzHarness {
    /// A path per route of each dialect (OneSignal's app and activity ids are fixed).
    static func paths(for dialect: DialectName) -> [String] {
        switch dialect {
        case .onesignal:
            ["/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
             "/apps/app_3f9c2b/live_activities/order_88214/notifications"]
        case .pushwoosh: ["/json/1.3/startLiveActivity", "/json/1.3/updateLiveActivity"]
        case .buzzkit: ["/v1/live-activities/send"]
        }
    }

    /// The default context and one with every mapping configured.
    static let contexts: [TranslationContext] = [
        TranslationContext(now: 1_781_049_600, requestId: "fuzz"),
        TranslationContext(now: 1_781_049_600, targetAppId: "app_target", sourceAppId: "ws_1",
                           segmentMap: ["Active": "seg_1"], deviceTargeting: .alias("external_id"),
                           deviceTargetingConfigured: true),
    ]

    /// Runs one input through a dialect.
    static func run(_ dialect: DialectName, _ bytes: [UInt8]) {
        roundTrip(bytes)
        routeAndPath(String(decoding: bytes.prefix(512), as: UTF8.self))
        let implementation = Dialects.named(dialect)
        for path in paths(for: dialect) {
            guard let route = InboundRoute.match(path: path), route.dialect == dialect else {
                fatalError("route \(path) does not match \(dialect)")
            }
            for context in contexts {
                check(implementation, route: route, translation: implementation.translate(route: route, body: bytes, context: context))
            }
        }
    }

    /// The input as a request path: matching never traps, and a path segment that decodes
    /// encodes back to something that decodes to the same text.
    static func routeAndPath(_ text: String) {
        _ = InboundRoute.match(path: text)
        _ = InboundRoute.match(path: "/apps/" + text + "/activities/activity/T")
        if let decoded = PathEncoding.decodeSegment(Substring(text)) {
            precondition(PathEncoding.decodeSegment(Substring(PathEncoding.encodeSegment(decoded))) == decoded, "path segment round trip")
        }
    }

    /// Invariants of one translation and of every answer rendered for it.
    static func check(_ dialect: any Dialect, route: InboundRoute, translation: Translation) {
        if let error = translation.error {
            precondition(translation.requests.isEmpty, "a rejected translation carries requests")
            precondition(translation.findings.contains { $0.kind == .rejected }, "a rejected translation has no rejected finding")
            expectJSON(dialect.render(failure: .badRequest(error), route: route))
            return
        }
        for request in translation.requests {
            let encoded = JSONWriter.bytes(.object(request.body))
            roundTrip(encoded, mustParse: true)
        }
        _ = translation.json
        let accepted = translation.requests.indices.map { UpstreamResult.accepted(id: "msg_\($0)", replayed: $0 % 2 == 1) }
        let failed = translation.requests.map { _ in UpstreamResult.failed(message: "upstream reset") }
        let rejected = translation.requests.map { _ in UpstreamResult.rejected(status: 429, message: "slow down", retryAfter: 3) }
        for results in [accepted, failed, rejected] {
            expectJSON(dialect.render(results: results, for: translation))
        }
        expectJSON(dialect.render(failure: .upstream("timed out"), route: route))
    }

    /// A rendered answer has an HTTP status and a body that parses.
    static func expectJSON(_ response: DialectResponse) {
        precondition((100...599).contains(response.status), "status \(response.status)")
        roundTrip(response.body, mustParse: true)
    }

    /// Parses `bytes`; when they parse, writing the value and parsing it again gives the same
    /// value and the same bytes.
    static func roundTrip(_ bytes: [UInt8], mustParse: Bool = false) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            precondition(!mustParse, "PushBridge wrote JSON it cannot read: \(error) in \(String(decoding: bytes, as: UTF8.self).prefix(200))")
            return
        }
        let written = JSONWriter.bytes(value)
        let reparsed: JSONValue
        do {
            reparsed = try JSONParser.parse(written)
        } catch {
            fatalError("written JSON does not parse: \(error)")
        }
        precondition(reparsed == value, "JSON round trip changed the value")
        precondition(JSONWriter.bytes(reparsed) == written, "JSON writing is not stable")
    }
}
