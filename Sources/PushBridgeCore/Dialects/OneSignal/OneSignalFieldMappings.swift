/// What happens to each documented OneSignal field. The start and update/end bodies are those of
/// the official `onesignal-python-api` 5.18 models (`StartLiveActivityRequest`,
/// `UpdateLiveActivityRequest`) and `onesignal-update-live-activity.md`.
enum OneSignalFieldMappings {
    static let droppedCreateMessage = "a OneSignal Create Message field that never applied to Live Activities; OpenPush silently ignores it, so it is not forwarded"

    static let table: [FieldMapping] = start + update

    static let soundNote = "Carried; \"nil\" (OneSignal's silence) is not sent as a file name (dropped: OpenPush has no silent value, so an alert plays the default sound)."
    static let deprecatedSoundNote = "Deprecated and ignored by OneSignal (\"Use ios_sound\"), but OpenPush would play it (first non-blank of ios_sound/sound), so it is not forwarded."

    /// OneSignal's answers: the bodies of the official client's `StartLiveActivitySuccessResponse`,
    /// `UpdateLiveActivitySuccessResponse` and `GenericError`.
    static let responses: [FieldMapping] = [
        FieldMapping(.start, "notification_id", "notification_id", nil,
                     "201: OpenPush's message id (with Idempotent-Replayed: true on a replay); a start PushBridge holds for later answers 201 with PushBridge's id."),
        FieldMapping(.update, "id", "id", nil, "201: OpenPush's message id; OpenPush names it id on this route too."),
        FieldMapping(.start, "errors", "OpenPush's error message", nil,
                     "Every error: [\"field: rule\"] for a request PushBridge refuses (400), OpenPush's own message with its status otherwise; 403 for credentials, 429 with Retry-After, 503 when OpenPush cannot be reached."),
        FieldMapping(.update, "errors", "OpenPush's error message", nil, "As on start."),
    ]

    static let start: [FieldMapping] = [
        FieldMapping(.start, "{app_id} (path)", "{app_id} (path)", nil, "Mapped to the configured OpenPush app id, or passed through."),
        FieldMapping(.start, "{activity_type} (path)", "{activity_type} (path)", nil, "Forced as the APNs attributes-type; not . or .., no control characters."),
        FieldMapping(.start, "event", "event", nil, "Must be \"start\"; sent explicitly."),
        FieldMapping(.start, "activity_id", "activity_id", nil, "Non-blank, no /, not . or .., no control characters."),
        FieldMapping(.start, "event_attributes", "event_attributes", nil, "Carried unchanged (non-empty object)."),
        FieldMapping(.start, "event_updates", "event_updates", nil, "Carried unchanged (non-empty object)."),
        FieldMapping(.start, "name", "name", nil, "Carried; ≤128 characters."),
        FieldMapping(.start, "contents", "contents", nil, "Carried; must hold a non-blank en. OneSignal text already speaks Liquid."),
        FieldMapping(.start, "headings", "headings", .synthesized, "Carried; when absent, headings.en is made from contents.en."),
        FieldMapping(.start, "stale_date", "stale_date", .converted, "Carried; a value ≥ 1e11 is milliseconds and is converted to seconds."),
        FieldMapping(.start, "priority", "priority", .defaulted, "Carried; when absent, 10 is sent (OneSignal's default, and OpenPush's on a start)."),
        FieldMapping(.start, "ios_relevance_score", "ios_relevance_score", nil, "Carried; must be in [0, 1]."),
        FieldMapping(.start, "idempotency_key", "idempotency_key", .converted,
                     "Must be a UUID; scoped to the source app: sent as the UUIDv5 (RFC 9562) of the lower-cased key in the source app's namespace (the UUIDv5 of `onesignal/<source_app_id>` in PushBridge's namespace 37f9e279-75f5-5a8e-a5eb-e9018de32fff), so source apps sharing an OpenPush app never replay or block each other's starts, and the same key from the same app stays the same (retries stay idempotent). A start without one gets a key derived from the request id."),
        FieldMapping(.start, "external_id", "idempotency_key", .renamed, "The old name of idempotency_key; renamed, then scoped to the source app like it."),
        FieldMapping(.start, "include_aliases", "include_aliases", nil, "Carried (exactly one targeting method)."),
        FieldMapping(.start, "include_subscription_ids", "include_subscription_ids", nil, "Carried; over 2,000 ids gets a caveat (OpenPush reaches at most 2,000 devices per send)."),
        FieldMapping(.start, "include_player_ids", "include_subscription_ids", .renamed, "OneSignal's legacy name for subscription ids; renamed."),
        FieldMapping(.start, "include_external_user_ids", "include_aliases.external_id", .renamed, "OneSignal's legacy external-id targeting; renamed."),
        FieldMapping(.start, "included_segments", "included_segments", .renamed,
                     "Segment names → OpenPush segment ids through the app's segment_map (renamed); an unmapped name is sent as is with a warning or rejected (unmapped_segments). Always a caveat: OpenPush reaches at most 2,000 devices per send and does not say when it cut."),
        FieldMapping(.start, "excluded_segments", "excluded_segments", .renamed, "Mapped like included_segments; only valid alongside included_segments."),
        FieldMapping(.start, "filters", "filters", .caveat, "Carried, with a caveat: OpenPush reaches at most 2,000 devices per send and does not say when it cut."),
        FieldMapping(.start, "ios_sound", "ios_sound", nil, soundNote),
        FieldMapping(.start, "sound", "—", .dropped, deprecatedSoundNote),
        FieldMapping(.start, "dismissal_date", "—", .dropped,
                     "dismissal_date applies to an end only; OpenPush rejects it on a start, so it is not forwarded"),
    ] + ignoredByOpenPush(.start)

    static let update: [FieldMapping] = [
        FieldMapping(.update, "{app_id} (path)", "{app_id} (path)", nil, "Mapped to the configured OpenPush app id, or passed through."),
        FieldMapping(.update, "{activity_id} (path)", "{activity_id} (path)", nil, "Carried; targeting is fixed to this id."),
        FieldMapping(.update, "event", "event", nil, "\"update\" or \"end\"."),
        FieldMapping(.update, "event_updates", "event_updates", nil, "Carried unchanged (non-empty object)."),
        FieldMapping(.update, "name", "name", nil, "Carried; ≤128 characters."),
        FieldMapping(.update, "contents", "contents", nil, "Carried; when present must hold a non-blank en."),
        FieldMapping(.update, "headings", "headings", nil, "Carried; when present must hold a non-blank en."),
        FieldMapping(.update, "stale_date", "stale_date", .converted, "Carried; a value ≥ 1e11 is milliseconds and is converted to seconds."),
        FieldMapping(.update, "dismissal_date", "dismissal_date", .dropped,
                     "dismissal_date applies to an end only; OpenPush rejects it on an update, so it is not forwarded"),
        FieldMapping(.update, "priority", "priority", .defaulted,
                     "Carried; when absent, 10 is sent (OneSignal's default; OpenPush would send an update at 5, an end at 10)."),
        FieldMapping(.update, "ios_relevance_score", "ios_relevance_score", nil, "Carried; must be in [0, 1]."),
        FieldMapping(.update, "ios_sound", "ios_sound", nil, soundNote + " Without contents or headings no sound plays on OpenPush (caveat)."),
        FieldMapping(.update, "sound", "—", .dropped, deprecatedSoundNote),
    ] + ["include_aliases", "include_subscription_ids", "included_segments", "excluded_segments", "filters", "activity_id", "event_attributes"].map {
        FieldMapping(.update, $0, "—", .dropped,
                     "targeting and start-only fields are not accepted on update/end: OpenPush updates every device holding the activity id in the path")
    } + ignoredByOpenPush(.update)

    /// Fields named in OpenPush's note as silently ignored, plus the rest of Create Message.
    static func ignoredByOpenPush(_ route: RouteKind) -> [FieldMapping] {
        let notes: [(String, String)] = [
            ("ios_interruption_level", "OpenPush has no interruption level for Live Activities and silently ignores it, so it is not forwarded"),
            ("apns_push_type_override", "OpenPush always sends apns-push-type liveactivity and silently ignores this override, so it is not forwarded"),
            ("subtitle", "OpenPush has no alert subtitle for Live Activities and silently ignores it, so it is not forwarded"),
            ("is_ios", "platform flags do not apply: Live Activities are iOS only; OpenPush silently ignores it"),
            ("isIos", "platform flags do not apply: Live Activities are iOS only; OpenPush silently ignores it"),
            ("custom_data", "OpenPush has no custom data on Live Activity pushes and silently ignores it; put what the widget needs in event_updates"),
            ("content_available", "Live Activity pushes are never background pushes; OpenPush silently ignores it"),
        ]
        return notes.map { FieldMapping(route, $0.0, "—", .dropped, "\($0.1) (\(droppedCreateMessageShort))") }
    }

    static let droppedCreateMessageShort = "a OneSignal Create Message field"

    /// Create Message (`Notification`) fields of onesignal-python-api 5.18 that are not Live
    /// Activity fields: their drop message says they never applied here.
    static let createMessageFields: Set<String> = [
        "adm_big_picture", "adm_group", "adm_group_message", "adm_large_icon", "adm_small_icon", "adm_sound", "aggregation",
        "android_accent_color", "android_background_layout", "android_channel_id", "android_group", "android_group_message",
        "android_led_color", "android_sound", "android_visibility", "apns_alert", "app_id", "app_url", "big_picture", "buttons",
        "chrome_big_picture", "chrome_icon", "chrome_web_badge", "chrome_web_icon", "chrome_web_image", "collapse_id", "data",
        "delayed_option", "delivery_time_of_day", "disable_email_click_tracking", "email_bcc", "email_body", "email_from_address",
        "email_from_name", "email_preheader", "email_reply_to_address", "email_sender_domain", "email_subject", "email_to",
        "email_warm_up", "existing_android_channel_id", "firefox_icon", "global_image", "huawei_accent_color", "huawei_badge_add_num",
        "huawei_badge_class", "huawei_badge_set_num", "huawei_bi_tag", "huawei_big_picture", "huawei_category", "huawei_channel_id",
        "huawei_existing_channel_id", "huawei_large_icon", "huawei_led_color", "huawei_msg_type", "huawei_small_icon", "huawei_sound",
        "huawei_visibility", "id", "include_amazon_reg_ids", "include_android_reg_ids", "include_chrome_reg_ids",
        "include_chrome_web_reg_ids", "include_email_tokens", "include_ios_tokens", "include_phone_numbers", "include_unsubscribed",
        "include_wp_wns_uris", "ios_attachments", "ios_badgeCount", "ios_badgeType", "ios_category", "isAdm", "isAndroid",
        "isAnyWeb", "isChrome", "isChromeWeb", "isFirefox", "isHuawei", "isSafari", "isWP_WNS", "kind", "large_icon",
        "mutable_content", "send_after", "small_icon", "sms_from", "sms_media_urls", "summary_arg", "summary_arg_count",
        "target_channel", "target_content_identifier", "template_id", "thread_id", "throttle_rate_per_minute", "ttl", "url",
        "value", "web_buttons", "web_push_topic", "web_url", "wp_wns_sound",
    ]

    /// The drop message for a key that is not in the table.
    static func dropMessage(forUnknown key: String) -> String {
        createMessageFields.contains(key) ? droppedCreateMessage
            : "not a documented OneSignal Live Activity field; OpenPush silently ignores unknown keys, so it is not forwarded"
    }
}
