/// Pushwoosh's documented fields — the English reference, the newer Spanish one
/// (`apns_priority`, `subtitle`, `ios_sound`, `content`/`title` on update) and the older variant
/// (`filter_code`, `users`) — on both routes, with their OpenPush target and treatment.
/// `FieldAccounting` takes drop reasons from these rows; `docs/field-mapping.md` is generated
/// from them.
enum PushwooshFieldMappings {
    /// Rows shared by both routes (the envelope).
    private static func envelope(_ r: RouteKind) -> [FieldMapping] {
        [
            FieldMapping(r, "request", "—", nil, "The envelope; everything Pushwoosh reads is inside it."),
            FieldMapping(r, "application", "path app_id", nil, "Pushwoosh application code; mapped to the OpenPush app id by configuration (unchanged without one)."),
            FieldMapping(r, "auth", "—", nil, "Pushwoosh API token: required, never forwarded, logged or echoed; OpenPush is called with PushBridge's own REST key."),
            FieldMapping(r, "notifications", "one OpenPush request each", nil, "Non-empty array; notification i becomes request i, and one untranslatable notification rejects the whole request."),
            FieldMapping(r, "notifications[].live_activity", "—", nil, "Required object holding the Live Activity fields below."),
            FieldMapping(r, "notifications[].live_activity.title", "—", .dropped,
                         "live_activity.title has no OpenPush field (OpenPush would silently ignore it); put alert text in the notification's title/content instead."),
            FieldMapping(r, "notifications[].apns_priority", "priority", nil,
                         "10 → 10, 5 → 5; any other value of any type (\"10\" the string too) is read as 5 as Pushwoosh does, without a validation error (coerced); absent → 5, Pushwoosh's default (defaulted)."),
            FieldMapping(r, "notifications[].live_activity.relevance-score", "ios_relevance_score", .rescaled,
                         "Pushwoosh scores from 1 (≤ 100 recommended) become score/100 clamped to [0, 1]; never forwarded raw."),
            FieldMapping(r, "notifications[].live_activity.stale-date", "stale_date", nil,
                         "Unix seconds; a value ≥ 1e11 is read as milliseconds and converted."),
            FieldMapping(r, "notifications[].ios_sound", "ios_sound", nil,
                         "Sound file name; it only plays with an alert (content/title), and a caveat says so when there is none (on update a subtitle sets off Pushwoosh's alert but not OpenPush's)."),
        ]
    }

    /// Pushwoosh's answer (`{"status_code", "status_message", "response": {"Messages": [...]}}`)
    /// on both routes.
    static let responses: [FieldMapping] = [RouteKind.start, .update].flatMap { r in [
        FieldMapping(r, "status_code", "HTTP status of each OpenPush answer", nil,
                     "200 when every notification was accepted or scheduled; otherwise the worst: 500 (OpenPush failed or could not be reached) over 429 (throttled, HTTP 429 with Retry-After) over 210 (refused: PushBridge's own argument errors, or OpenPush answering 4xx). HTTP 200 except 429 and 500."),
        FieldMapping(r, "status_message", "OpenPush's messages", nil,
                     "\"OK\", or every notification by index: notifications[i] accepted as <id>, scheduled as <id>, or why it failed, so only what failed is retried."),
        FieldMapping(r, "response.Messages", "notification_id / id", nil,
                     "One entry per notification, in the order of notifications[]: Messages[i] is the OpenPush message id (or PushBridge's id for a held start) of notifications[i], null where it failed, so positions always line up. response is null when nothing was sent."),
    ] }

    /// Every row, start then update.
    static let table: [FieldMapping] = envelope(.start) + [
        FieldMapping(.start, "notifications[].content", "contents.en", nil,
                     "Alert body. `{{`/`{%` are escaped (escaped); when blank it is synthesized from title (synthesized)."),
        FieldMapping(.start, "notifications[].title", "headings.en", nil,
                     "Alert title. `{{`/`{%` are escaped (escaped); when blank it is synthesized from content (synthesized). At least one of content/title must be non-blank."),
        FieldMapping(.start, "notifications[].subtitle", "—", .dropped,
                     "OpenPush has no subtitle, and Pushwoosh documents it on updateLiveActivity only; the text is not sent — fold it into title or content."),
        FieldMapping(.start, "notifications[].live_activity.event", "event", nil, "Optional; must be \"start\". OpenPush always receives \"start\"."),
        FieldMapping(.start, "notifications[].live_activity.content-state", "event_updates", nil, "Required non-empty object, carried unchanged."),
        FieldMapping(.start, "notifications[].live_activity.attributes-type", "path activity_type", nil, "Required; the ActivityAttributes type name in the OpenPush path; not '.' or '..', no control characters."),
        FieldMapping(.start, "notifications[].live_activity.attributes", "event_attributes", nil,
                     "Required object; `{}` becomes {\"pushbridge_placeholder\": true} (synthesized) because OpenPush requires a non-empty object and ActivityKit ignores extra keys."),
        FieldMapping(.start, "notifications[].live_activity.dismissal-date", "—", .dropped,
                     "dismissal-date is not documented on startLiveActivity and OpenPush rejects dismissal_date on a start; it is not sent — set it when you end the activity."),
        FieldMapping(.start, "notifications[].live_activity_id", "activity_id", nil, "Required; non-blank, without '/', not '.' or '..', no control characters."),
        FieldMapping(.start, "notifications[].filter", "included_segments", nil,
                     "Filter name → OpenPush segment id through the configured segment map (no map: the name passes through with a caveat; a map without the name rejects)."),
        FieldMapping(.start, "notifications[].filter_code", "included_segments", nil, "Older variant of filter; treated exactly like filter."),
        FieldMapping(.start, "notifications[].devices", "include_subscription_ids or include_aliases.{label}", nil,
                     "Push tokens, targeted as configured (default: subscription ids, with a finding). Over 2,000: caveat (OpenPush truncates fan-out); over 20,000: rejected."),
        FieldMapping(.start, "notifications[].users", "include_aliases.external_id", .renamed, "Older variant: user ids become external_id aliases. Same limits as devices."),
        FieldMapping(.start, "notifications[].send_date", "schedule (held by PushBridge)", nil,
                     "\"YYYY-MM-DD HH:mm\" or \"now\"; within one day past and 30 days ahead. OpenPush has no scheduling: a future time is held and sent by PushBridge (caveat)."),
        FieldMapping(.start, "notifications[].timezone", "schedule", nil, "IANA zone for send_date (default UTC); unknown zones are rejected. Without send_date it is dropped."),
        FieldMapping(.start, "notifications[].ignore_user_timezone", "—", .rejected,
                     "Older variant. false means send_date in each device's local time, which OpenPush cannot do: with a scheduled send_date the request is rejected (send one notification per time zone with timezone); sent now it changes nothing (dropped). true is what PushBridge does: send_date is one instant in timezone."),
        FieldMapping(.start, "notifications[].send_rate", "—", .dropped,
                     "Older variant. Pushwoosh does not apply send_rate to Live Activity pushes (the Spanish reference says so) and OpenPush has no send rate: not forwarded, delivery as with Pushwoosh (info)."),
    ] + envelope(.update) + [
        FieldMapping(.update, "notifications[].content", "contents.en", nil,
                     "Optional alert body; escaped like start. Sent only when given: OpenPush's update takes contents and headings each on its own."),
        FieldMapping(.update, "notifications[].title", "headings.en", nil,
                     "Optional alert title; escaped like start. Sent only when given (a title-only update sends headings alone)."),
        FieldMapping(.update, "notifications[].subtitle", "—", .dropped,
                     "OpenPush has no subtitle; the text is not sent — fold it into title or content if the alert needs it."),
        FieldMapping(.update, "notifications[].live_activity.event", "event", nil, "Required: \"update\" or \"end\"."),
        FieldMapping(.update, "notifications[].live_activity.content-state", "event_updates", nil, "Required non-empty object, carried unchanged."),
        FieldMapping(.update, "notifications[].live_activity.dismissal-date", "dismissal_date", nil,
                     "Unix seconds (≥ 1e11 converted from milliseconds) on end; on update it is dropped because OpenPush accepts it on end only."),
        FieldMapping(.update, "notifications[].live_activity.attributes-type", "—", .dropped,
                     "An update cannot change the activity type; OpenPush finds the activity by its id, so attributes-type is not sent."),
        FieldMapping(.update, "notifications[].live_activity.attributes", "—", .dropped,
                     "Attributes are fixed when an activity starts; OpenPush's update route has no field for them, so they are not sent."),
        FieldMapping(.update, "notifications[].live_activity_id", "path activity_id", nil, "Required; non-blank, without '/', not '.' or '..', no control characters."),
    ] + ["filter", "filter_code", "devices", "users"].map {
        FieldMapping(.update, "notifications[].\($0)", "—", .dropped,
                     "OpenPush updates every device holding the activity id (as Pushwoosh does); update targeting cannot be narrowed, so \($0) is not sent.")
    } + [
        FieldMapping(.update, "notifications[].send_date", "—", .dropped,
                     "updateLiveActivity has no scheduling in Pushwoosh's reference and OpenPush has none; the update is sent now."),
        FieldMapping(.update, "notifications[].timezone", "—", .dropped,
                     "Only meaningful with send_date, which updateLiveActivity does not schedule; the update is sent now."),
        FieldMapping(.update, "notifications[].ignore_user_timezone", "—", .dropped,
                     "Older variant; only meaningful with send_date, which updateLiveActivity does not schedule: the update is sent now."),
        FieldMapping(.update, "notifications[].send_rate", "—", .dropped,
                     "Older variant; Pushwoosh does not apply send_rate to Live Activity pushes and OpenPush has no send rate, so it is not sent."),
    ]
}
