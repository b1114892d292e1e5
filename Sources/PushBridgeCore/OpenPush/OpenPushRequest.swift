/// One request PushBridge sends to OpenPush.
public struct OpenPushRequest: Sendable, Equatable {
    /// A start or an update/end, each in one box on the heap, so a request is copied (into a
    /// translation, an array, a check, the audit) by retaining that box rather than each of its
    /// twenty-odd strings and objects (issue 31: the copies of a request were about a tenth of a
    /// OneSignal start's translation). An update is an indirect case; a start keeps its fields
    /// in its own box (``OpenPushStart``), so `case .start(let s)` is one retain too, not a copy
    /// of every field out of the enum's box (issue 31, branch `translate4`).
    public enum Payload: Sendable, Equatable {
        /// `POST /apps/{app_id}/activities/activity/{type}`.
        case start(OpenPushStart)
        /// `POST /apps/{app_id}/live_activities/{id}/notifications`.
        indirect case update(OpenPushUpdate)
    }

    /// What is sent.
    public var payload: Payload
    /// When it is to be sent; nil for now.
    public var sendAt: SendTime?
    /// The caller's field path of an OpenPush body field where the dialect's usual mapping does
    /// not say it (a target list from a legacy or renamed key), e.g. `included_segments` →
    /// `notifications[0].filter_code`. Not sent.
    public var sourceFields: [String: String]

    /// A request.
    public init(_ payload: Payload, sendAt: SendTime? = nil, sourceFields: [String: String] = [:]) {
        self.payload = payload
        self.sendAt = sendAt
        self.sourceFields = sourceFields
    }

    /// The caller's path recorded for an OpenPush field (`include_aliases.external_id` falls
    /// back to what `include_aliases` came from), or nil to use the dialect's mapping.
    public func callerField(_ openPushField: String) -> String? {
        if sourceFields.isEmpty { return nil }
        if let f = sourceFields[openPushField] { return f }
        guard let dot = openPushField.firstIndexOfStandalone(UInt8(ascii: ".")) else { return nil }
        return sourceFields[String(openPushField[..<dot])]
    }

    /// Always POST.
    public var method: String { "POST" }

    /// The path on the OpenPush base URL.
    public var path: String {
        switch payload {
        case .start(let s): s.path
        case .update(let u): u.path
        }
    }

    /// The whole URL on the OpenPush base URL `base`: `base` followed by ``path``, in one string.
    public func url(on base: String) -> String {
        switch payload {
        case .start(let s): OpenPushPath.start(appId: s.appId, activityType: s.activityType, on: base)
        case .update(let u): OpenPushPath.update(appId: u.appId, activityId: u.activityId, on: base)
        }
    }

    /// The JSON body.
    public var body: JSONObject {
        switch payload {
        case .start(let s): s.body
        case .update(let u): u.body
        }
    }

    /// The alert's language maps, title first (what ``body`` holds under `headings` and
    /// `contents`), without building the body.
    public var alertMaps: (headings: JSONObject?, contents: JSONObject?) {
        switch payload {
        case .start(let s): (s.headings, s.contents)
        case .update(let u): (u.headings, u.contents)
        }
    }

    /// The OpenPush app id.
    public var appId: String {
        switch payload {
        case .start(let s): s.appId
        case .update(let u): u.appId
        }
    }

    /// The activity id, when known.
    public var activityId: String? {
        switch payload {
        case .start(let s): s.activityId
        case .update(let u): u.activityId
        }
    }

    /// "start", "update" or "end".
    public var event: String? {
        switch payload {
        case .start(let s): s.event
        case .update(let u): u.event
        }
    }

    /// The rule violations OpenPush would answer 400 for.
    public var violations: [RuleViolation] {
        switch payload {
        case .start(let s): OpenPushRules.validate(s)
        case .update(let u): OpenPushRules.validate(u)
        }
    }

    /// `{"method", "path", "body"}`.
    public var json: JSONValue {
        .object(["method": .string(method), "path": .string(path), "body": .object(body)])
    }
}
