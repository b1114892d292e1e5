/// What happens to each documented BuzzKit field of `POST /v1/live-activities/send`
/// (`buzzkit-live-activities.md`). BuzzKit has one route for start, update and end, so every row
/// is on `RouteKind.send`; where the treatment differs by `event`, the row's field names the
/// events in parentheses, e.g. `dismissalDate (start)`. Plain field names (`timestamp`) are the
/// rows `FieldAccounting` finds for keys the translation leaves unread.
enum BuzzKitFieldMappings {
    /// The whole table, in the order of BuzzKit's field list.
    static let table: [FieldMapping] = [
        FieldMapping(.send, "to (start)", "include_aliases.external_id", nil,
                     "Required on start: the subscriber's id in your system becomes the external_id alias, whose push-to-start tokens OpenPush targets."),
        FieldMapping(.send, "to (update, end)", "—", .caveat,
                     "Not forwarded: OpenPush targets an update or end by activity id alone and updates every device holding that activity, not only this subscriber's."),
        FieldMapping(.send, "event", "event", nil,
                     "Required: start goes to the start route, update and end to the notifications route of the activity."),
        FieldMapping(.send, "activityId", "activity_id (start) / {activity_id} path (update, end)", nil,
                     "Required on update and end (non-blank, no /, not . or .., no control characters); on a start it is used as activity_id when present."),
        FieldMapping(.send, "activityId (start, absent)", "activity_id", .synthesized,
                     "BuzzKit starts carry no id (the device assigns Activity.id): bk_ + the proxy request id (or an FNV-1a hash of the body) is sent, with a caveat that updates must use it."),
        FieldMapping(.send, "attributesType", "{activity_type} path (start)", nil,
                     "Required on start: the ActivityAttributes type name, forced as the APNs attributes-type; not . or .., no control characters."),
        FieldMapping(.send, "attributesType (update, end)", "—", .dropped,
                     "attributesType applies to a start only; OpenPush's update/end route has no activity type, so it is not forwarded"),
        FieldMapping(.send, "contentState", "event_updates", nil,
                     "Required non-empty object, carried unchanged (ActivityKit content state)."),
        FieldMapping(.send, "attributes (start)", "event_attributes", nil,
                     "Required on start, carried unchanged (ActivityKit static attributes)."),
        FieldMapping(.send, "attributes (start, {})", "event_attributes", .synthesized,
                     "OpenPush requires a non-empty object: {\"pushbridge_placeholder\": true} is sent; ActivityKit ignores the extra key."),
        FieldMapping(.send, "attributes (update, end)", "—", .dropped,
                     "attributes are static and apply to a start only; OpenPush's update/end route does not accept them, so they are not forwarded"),
        FieldMapping(.send, "alert.title", "headings.en", .escaped,
                     "Carried; {{ and {% are Liquid-escaped so the text arrives literally. On a start, when missing (or blank), made from alert.body; an update sends only what was given. Over 512 rendered characters: caveat (OpenPush cuts it)."),
        FieldMapping(.send, "alert.body", "contents.en", .escaped,
                     "Carried; {{ and {% are Liquid-escaped so the text arrives literally. On a start, when missing (or blank), made from alert.title; an update sends only what was given. Over 2,048 rendered characters: caveat (OpenPush cuts it)."),
        FieldMapping(.send, "alert (start, absent)", "headings.en, contents.en", .synthesized,
                     "OpenPush requires alert text on a start: made from attributesType (warning: devices show it; send alert from the backend)."),
        FieldMapping(.send, "alert.sound", "ios_sound", nil, "Carried; on an update or end without alert text it cannot play on OpenPush (caveat)."),
        FieldMapping(.send, "staleDate", "stale_date", .converted, "ISO 8601 converted to Unix seconds (fraction truncated); unparseable is rejected."),
        FieldMapping(.send, "dismissalDate (start)", "—", .dropped,
                     "dismissalDate applies to an end only; OpenPush rejects dismissal_date on a start, so it is not forwarded (send it with the end event)"),
        FieldMapping(.send, "dismissalDate (update)", "—", .dropped,
                     "dismissalDate applies to an end only; OpenPush rejects dismissal_date on an update, so it is not forwarded (send it with the end event)"),
        FieldMapping(.send, "dismissalDate (end)", "dismissal_date", .converted, "ISO 8601 converted to Unix seconds (fraction truncated); unparseable is rejected."),
        FieldMapping(.send, "priority", "priority", nil, "\"high\" → 10, \"normal\" → 5; any other value is rejected."),
        FieldMapping(.send, "priority (absent)", "priority", .defaulted,
                     "BuzzKit's default is high: 10 is sent explicitly (OpenPush would send an update at 5)."),
        FieldMapping(.send, "timestamp", "—", .dropped,
                     "OpenPush always generates the aps timestamp itself, so the caller's time cannot be carried; Apple drops updates whose timestamp is not increasing, so ordering follows OpenPush's send time"),
    ]

    /// The reply's fields (see `BuzzKitResponses`).
    static let responses: [FieldMapping] = [
        FieldMapping(.send, "id", "notification_id / id", nil, "HTTP 200: OpenPush's message id (PushBridge's id for a held start)."),
        FieldMapping(.send, "event", "event", nil, "The event that was sent."),
        FieldMapping(.send, "activityId", "activity_id", nil,
                     "The id OpenPush knows the activity by; on a start without activityId it is the synthesized one, which later updates and ends must use."),
        FieldMapping(.send, "results", "—", .caveat,
                     "BuzzKit replies with one APNs result per token; OpenPush does not report per-token outcomes, so PushBridge replies with an empty results list and resultsAvailable: false."),
        FieldMapping(.send, "resultsAvailable", "—", nil, "PushBridge's own: always false, saying results is empty because OpenPush does not report per-token outcomes."),
        FieldMapping(.send, "error", "OpenPush's error message", nil,
                     "{code, message} with the HTTP status of the cause: PushBridge's own refusals (400 invalid_request naming the field), OpenPush's 4xx with its status and message, 429 with Retry-After, 502 upstream_error."),
    ]

    /// The note of a row (the message of drop findings made outside `FieldAccounting`).
    static func note(_ field: String) -> String {
        table.row(.send, field)?.note ?? field
    }
}
