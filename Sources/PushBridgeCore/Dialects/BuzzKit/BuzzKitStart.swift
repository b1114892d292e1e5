/// `event: "start"` → `POST /apps/{app}/activities/activity/{attributesType}`.
extension BuzzKitTranslator {
    /// The placeholder sent when `attributes` is `{}` (OpenPush requires a non-empty object;
    /// ActivityKit ignores keys its attributes type does not declare).
    static let placeholderAttributes: JSONObject = ["pushbridge_placeholder": .bool(true)]

    /// Builds the start; nil when a required field is missing.
    mutating func start(state: JSONObject?, priority: Int64?, stale: Int64?, alert: BuzzKitAlert) -> OpenPushRequest? {
        let type = requiredString("attributesType", "on a start (the ActivityAttributes type name, which OpenPush takes as the activity type)")
        if let type, OpenPushRules.isBlank(type) { reject("attributesType", "must name the ActivityAttributes type; it is blank") }
        if !reader.has("attributes") {
            reject("attributes", "is required on a start (the static ActivityAttributes; send {} when the type has none)")
        }
        var attributes = reader.object(.attributes)
        if attributes?.isEmpty == true {
            attributes = Self.placeholderAttributes
            note("attributes", .synthesized,
                 "is {}, but OpenPush requires a non-empty event_attributes: {\"pushbridge_placeholder\": true} is sent instead (ActivityKit ignores keys the attributes type does not declare)")
        }
        let to = requiredString("to", "on a start (the subscriber whose push-to-start tokens the activity starts on)")
        if let to, OpenPushRules.isBlank(to) {
            reject("to", "must name the subscriber on a start (BuzzKit starts the activity through that subscriber's push-to-start tokens); it is blank")
        }
        let activityId = startActivityId()
        drop("dismissalDate", row: "dismissalDate (start)")

        guard let type, let attributes, let to, let activityId else { return nil }
        var s = OpenPushStart(appId: appId, activityType: type)
        s.activityId = activityId
        s.name = Self.name(MessageText("BuzzKit start \(type) for \(to)").text)
        note("name", .synthesized, MessageText("BuzzKit has no message name and OpenPush requires one: \"\(s.name ?? "")\" is sent").text)
        s.eventAttributes = attributes
        s.eventUpdates = state
        let (headings, contents) = alert.startLanguageMaps(activityType: type, findings: &findings)
        s.headings = headings
        s.contents = contents
        s.includeAliases = ["external_id": .string(to)]
        s.staleDate = stale
        s.priority = priority
        s.iosSound = alert.sound
        return OpenPushRequest(.start(s))
    }

    /// The start's `activity_id`: the caller's `activityId` when present, otherwise synthesized.
    private mutating func startActivityId() -> String? {
        if reader.has(.activityId) {
            guard let id = reader.string(.activityId) else { return nil }
            return checkedActivityId(id) ? id : nil
        }
        _ = reader.raw(.activityId)
        let id = BuzzKitIds.startActivityId(requestId: context.requestId, body: body)
        let from = context.requestId == nil ? "a hash of the request body" : "the proxy's request id"
        note("activityId", .synthesized,
             MessageText("BuzzKit starts carry no activity id (the device assigns Activity.id), and OpenPush requires one: \"\(id)\" is sent, made from \(from), and returned as activityId in the reply").text)
        note("activityId", .caveat,
             MessageText("later BuzzKit updates name the device's Activity.id, which OpenPush does not know: send update and end for this activity with activityId \"\(id)\", or OpenPush answers 404").text)
        return id
    }

    /// Checks an activity id as OpenPush does (non-blank, no `/`), rejecting naming `activityId`.
    mutating func checkedActivityId(_ id: String) -> Bool {
        if OpenPushRules.isBlank(id) {
            reject("activityId", "must be a non-blank activity id")
            return false
        }
        if id.contains("/") {
            reject("activityId", MessageText("must not contain / (OpenPush activity ids cannot), got \"\(id)\"").text)
            return false
        }
        return true
    }

    /// A synthesized message name cut to OpenPush's 128 characters.
    static func name(_ text: String) -> String {
        text.count <= OpenPushLimits.nameMaxLength ? text : String(text.prefix(OpenPushLimits.nameMaxLength))
    }
}
