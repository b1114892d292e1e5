/// Translates one BuzzKit send body into one OpenPush request. Reads every field, collects
/// every error (so the caller learns about all of them at once), and accounts for every key.
struct BuzzKitTranslator {
    /// The root object's reader.
    var reader: FieldReader
    /// Findings so far, in the order they were made.
    var findings: [Finding] = []
    /// Errors found outside the reader (rules rather than types).
    var errors: [TranslationError] = []
    /// The translation context.
    let context: TranslationContext
    /// The raw body (hashed for a start id when there is no request id).
    let body: [UInt8]
    /// The OpenPush app id.
    let appId: String

    /// The translation of a raw body.
    static func translate(body parsed: ParsedBody, context: TranslationContext) -> Translation {
        let body = parsed.bytes
        let source = context.sourceAppId ?? "buzzkit"
        var t = Translation(dialect: .buzzkit, route: .send, sourceApp: source)
        switch BodyDecoding.object(parsed) {
        case .failure(let error):
            t.error = error
            t.findings = [Finding(field: error.field, kind: .rejected, message: error.message), perTokenCaveat]
        case .success(let object):
            var tr = BuzzKitTranslator(reader: FieldReader(object), context: context, body: body, appId: context.openPushApp(for: source))
            let request = tr.run()
            let allErrors = tr.reader.errors + tr.errors
            if let error = TranslationError.combine(allErrors) {
                // Only the rejections matter when nothing is sent: the other findings describe a
                // request that does not exist.
                t.error = error
                tr.findings = allErrors.map { Finding(field: $0.field, kind: .rejected, message: $0.message) }
            } else if let request {
                t.requests = [request]
            }
            t.findings = tr.findings + [perTokenCaveat]
        }
        return t
    }

    /// The caveat every BuzzKit translation carries.
    static let perTokenCaveat = Finding(field: "results (response)", kind: .caveat,
                                        message: "BuzzKit replies with one APNs result per registered token; OpenPush does not report per-token outcomes, so PushBridge replies with \"results\": [] and \"resultsAvailable\": false. Check delivery in OpenPush's message statistics instead.")

    /// Reads the body and builds the request; nil when the event is unknown or a rule broke.
    mutating func run() -> OpenPushRequest? {
        let eventText = requiredString("event", "(\"start\", \"update\" or \"end\")")
        let event = eventText.flatMap(BuzzKitEvent.init(rawValue:))
        if let eventText, event == nil {
            reject("event", MessageText("must be \"start\", \"update\" or \"end\", got \"\(eventText)\"").text)
        }
        let state = contentState()
        let priority = priority(event: event)
        let stale = isoDate("staleDate", target: "stale_date")
        let alert = BuzzKitAlert.read(&reader, findings: &findings)
        guard let event else { return nil }
        let request: OpenPushRequest?
        switch event {
        case .start:
            request = start(state: state, priority: priority, stale: stale, alert: alert)
        case .update, .end:
            request = update(event: event, state: state, priority: priority, stale: stale, alert: alert)
        }
        reader.consumeNulls()
        FieldAccounting.dropUnread(reader, table: BuzzKitFieldMappings.table, route: .send, tablePrefix: "", dialect: "BuzzKit", into: &findings)
        guard let request, reader.errors.isEmpty, errors.isEmpty else { return nil }
        return request
    }

    /// The BuzzKit field an OpenPush body field comes from (for `OpenPushCheck`'s findings).
    static func callerField(_ openPush: String) -> String {
        switch openPush {
        case "activity_id": "activityId"
        case "activity_type": "attributesType"
        case "event_updates": "contentState"
        case "event_attributes": "attributes"
        case "stale_date": "staleDate"
        case "priority": "priority"
        case "ios_sound", "sound": "alert.sound"
        case "ios_relevance_score": "relevanceScore"
        case "dismissal_date": "dismissalDate"
        case "headings", "headings.en": "alert.title"
        case "contents", "contents.en": "alert.body"
        case "include_aliases", "include_aliases.external_id", "targeting": "to"
        default: openPush
        }
    }

    /// Records an error naming the caller's field.
    mutating func reject(_ field: String, _ rule: String) {
        errors.append(TranslationError(field: field, rule: rule))
    }

    /// A required string: absent or null is rejected with `why` (a wrong type by the reader).
    /// `why` is made only when it is used.
    mutating func requiredString(_ key: FieldKey, _ why: @autoclosure () -> String) -> String? {
        if !reader.has(key) {
            _ = reader.raw(key)
            reject(key.name, MessageText("is required \(why())").text)
            return nil
        }
        return reader.string(key)
    }

    /// Records a finding.
    mutating func note(_ field: String, _ kind: FindingKind, _ message: String, severity: Severity? = nil) {
        findings.append(Finding(field: field, kind: kind, severity: severity, message: message))
    }

    /// Marks an event-specific key read and drops it with its table row's note.
    mutating func drop(_ key: FieldKey, row: String) {
        guard reader.has(key) else { _ = reader.raw(key); return }
        _ = reader.raw(key)
        note(key.name, .dropped, BuzzKitFieldMappings.note(row))
    }

    /// `contentState`: a required non-empty object, carried as `event_updates`.
    mutating func contentState() -> JSONObject? {
        if !reader.has(.contentState) {
            _ = reader.raw(.contentState)
            reject("contentState", "is required (the ActivityKit content state, sent to OpenPush as event_updates)")
            return nil
        }
        guard let o = reader.object(.contentState) else { return nil }
        if o.isEmpty { reject("contentState", "must be a non-empty object (ActivityKit content state; OpenPush requires a non-empty event_updates)") }
        return o
    }

    /// `priority`: "high" (default) → 10, "normal" → 5, anything else rejected.
    mutating func priority(event: BuzzKitEvent?) -> Int64? {
        guard let v = reader.raw(.priority) else {
            let why = event == .update ? "OpenPush would send an update at 5" : "OpenPush's own default is also 10 here, but it is sent so the meaning never depends on OpenPush's defaults"
            note("priority", .defaulted, MessageText("absent, and BuzzKit's default is high, so priority 10 is sent explicitly (\(why))").text)
            return 10
        }
        switch v.stringValue {
        case "high": return 10
        case "normal": return 5
        default:
            let got = v.stringValue.map { MessageText("\"\($0)\"").text } ?? JSONWriter.string(v)
            reject("priority", MessageText("must be \"high\" or \"normal\", got \(got)").text)
            return nil
        }
    }

    /// An ISO 8601 date field converted to Unix seconds with a `converted` finding; nil when
    /// absent or invalid (invalid is rejected naming the field).
    mutating func isoDate(_ key: FieldKey, target: String) -> Int64? {
        guard let text = reader.string(key) else { return nil }
        guard let seconds = TimestampConversion.unixSeconds(iso: text) else {
            reject(key.name, MessageText("must be an ISO 8601 date-time such as 2026-09-03T21:00:00.000Z, got \"\(text)\"").text)
            return nil
        }
        guard seconds >= 0, seconds < OpenPushLimits.millisecondThreshold else {
            reject(key.name, MessageText("\"\(text)\" is outside the range OpenPush accepts as Unix seconds (1970 to year 5138)").text)
            return nil
        }
        let fraction = BuzzKitDates.hasNonZeroFraction(text) ? "; the fraction of a second is truncated" : ""
        note(key.name, .converted, MessageText("ISO 8601 \"\(text)\" sent as \(target) \(seconds) (Unix seconds, which OpenPush takes)\(fraction)").text,
             severity: fraction.isEmpty ? .info : .warning)
        return seconds
    }
}

extension FieldReader {
    /// Marks unread `null` members read: null means absent, so nothing is lost by not sending it.
    mutating func consumeNulls() {
        for m in unread where m.value == .null { _ = raw(FieldKey(m.key)) }
    }
}
