/// The body keys the dialects' decoders read, each fingerprinted once (see ``FieldKey``). Each
/// is named exactly as it is written in the caller's body, so a call site reads as the key.
extension FieldKey {
    /// `activityId`.
    static let activityId: FieldKey = "activityId"
    /// `activity_id`.
    static let activity_id: FieldKey = "activity_id"
    /// `alert`.
    static let alert: FieldKey = "alert"
    /// `apns_priority`.
    static let apns_priority: FieldKey = "apns_priority"
    /// `application`.
    static let application: FieldKey = "application"
    /// `attributes`.
    static let attributes: FieldKey = "attributes"
    /// `auth`.
    static let auth: FieldKey = "auth"
    /// `body`.
    static let body: FieldKey = "body"
    /// `content`.
    static let content: FieldKey = "content"
    /// `contentState`.
    static let contentState: FieldKey = "contentState"
    /// `contents`.
    static let contents: FieldKey = "contents"
    /// `devices`.
    static let devices: FieldKey = "devices"
    /// `dismissal_date`.
    static let dismissal_date: FieldKey = "dismissal_date"
    /// `event`.
    static let event: FieldKey = "event"
    /// `event_attributes`.
    static let event_attributes: FieldKey = "event_attributes"
    /// `event_updates`.
    static let event_updates: FieldKey = "event_updates"
    /// `excluded_segments`.
    static let excluded_segments: FieldKey = "excluded_segments"
    /// `external_id`.
    static let external_id: FieldKey = "external_id"
    /// `filter`.
    static let filter: FieldKey = "filter"
    /// `filter_code`.
    static let filter_code: FieldKey = "filter_code"
    /// `filters`.
    static let filters: FieldKey = "filters"
    /// `headings`.
    static let headings: FieldKey = "headings"
    /// `idempotency_key`.
    static let idempotency_key: FieldKey = "idempotency_key"
    /// `ignore_user_timezone`.
    static let ignore_user_timezone: FieldKey = "ignore_user_timezone"
    /// `include_aliases`.
    static let include_aliases: FieldKey = "include_aliases"
    /// `include_external_user_ids`.
    static let include_external_user_ids: FieldKey = "include_external_user_ids"
    /// `include_player_ids`.
    static let include_player_ids: FieldKey = "include_player_ids"
    /// `include_subscription_ids`.
    static let include_subscription_ids: FieldKey = "include_subscription_ids"
    /// `included_segments`.
    static let included_segments: FieldKey = "included_segments"
    /// `ios_relevance_score`.
    static let ios_relevance_score: FieldKey = "ios_relevance_score"
    /// `ios_sound`.
    static let ios_sound: FieldKey = "ios_sound"
    /// `live_activity`.
    static let live_activity: FieldKey = "live_activity"
    /// `live_activity_id`.
    static let live_activity_id: FieldKey = "live_activity_id"
    /// `name`.
    static let name: FieldKey = "name"
    /// `notifications`.
    static let notifications: FieldKey = "notifications"
    /// `priority`.
    static let priority: FieldKey = "priority"
    /// `request`.
    static let request: FieldKey = "request"
    /// `send_date`.
    static let send_date: FieldKey = "send_date"
    /// `send_rate`.
    static let send_rate: FieldKey = "send_rate"
    /// `sound`.
    static let sound: FieldKey = "sound"
    /// `stale_date`.
    static let stale_date: FieldKey = "stale_date"
    /// `subtitle`.
    static let subtitle: FieldKey = "subtitle"
    /// `timezone`.
    static let timezone: FieldKey = "timezone"
    /// `title`.
    static let title: FieldKey = "title"
    /// `to`.
    static let to: FieldKey = "to"
    /// `users`.
    static let users: FieldKey = "users"

    /// Every key above (for the test that holds them to a `String` lookup).
    static let dialectKeys: [FieldKey] = [
        .activityId, .activity_id, .alert, .apns_priority, .application, .attributes,
        .auth, .body, .content, .contentState, .contents, .devices,
        .dismissal_date, .event, .event_attributes, .event_updates, .excluded_segments, .external_id,
        .filter, .filter_code, .filters, .headings, .idempotency_key, .ignore_user_timezone,
        .include_aliases, .include_external_user_ids, .include_player_ids, .include_subscription_ids, .included_segments, .ios_relevance_score,
        .ios_sound, .live_activity, .live_activity_id, .name, .notifications, .priority,
        .request, .send_date, .send_rate, .sound, .stale_date, .subtitle,
        .timezone, .title, .to, .users,
    ]
}
