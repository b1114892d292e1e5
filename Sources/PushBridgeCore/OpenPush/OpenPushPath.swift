/// The one place an OpenPush request path is built: every value that goes into a path segment
/// (app id, activity type, activity id) is checked by ``problem(segment:)`` where it enters
/// and percent-encoded by ``segment(_:)`` here, so the path OpenPush receives is exactly the
/// documented route. The transport is never trusted to keep a path as it was built (libcurl
/// removes `.` and `..` segments unless told not to).
public enum OpenPushPath {
    /// `POST /apps/{app_id}/activities/activity/{activity_type}`.
    public static func start(appId: String, activityType: String) -> String {
        "/apps/\(segment(appId))/activities/activity/\(segment(activityType))"
    }

    /// `POST /apps/{app_id}/live_activities/{activity_id}/notifications`.
    public static func update(appId: String, activityId: String) -> String {
        "/apps/\(segment(appId))/live_activities/\(segment(activityId))/notifications"
    }

    /// Why `value` cannot be one path segment of an OpenPush route, or nil when it can: blank,
    /// a dot segment (`.` or `..`, which re-aims the URL at another route), a `/` (OpenPush's
    /// documented rule for activity ids) or a control character (which no id OpenPush stores
    /// holds). The text is a rule for the caller's error, after the field name.
    public static func problem(segment value: String) -> String? {
        if OpenPushRules.isBlank(value) { return "is required and must be non-blank" }
        if value == "." || value == ".." { return "must not be \".\" or \"..\" (it goes into the OpenPush URL path, where it would name another route)" }
        if value.containsUTF8(UInt8(ascii: "/")) { return "must not contain / (it goes into the OpenPush URL path)" }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
            return "must not contain control characters (it goes into the OpenPush URL path)"
        }
        return nil
    }

    /// `value` percent-encoded as one path segment: everything but RFC 3986 unreserved
    /// characters is escaped, and a segment of only dots has its dots escaped too, so that even
    /// a value ``problem(segment:)`` would refuse never leaves as a dot segment.
    public static func segment(_ value: String) -> String {
        let encoded = PathEncoding.encodeSegment(value)
        guard !encoded.isEmpty, encoded.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) else { return encoded }
        return String(repeating: "%2E", count: encoded.utf8.count)
    }
}
