import PushBridgeCore

extension ScheduledStart {
    /// The columns both stores read a start from, in this order (see ``stored(text:integer:)``).
    static let storedColumns = "id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body, notification_id, upstream_status, error, finished_at"

    /// The start's activity type and OpenPush body as stored (nil when it has no start).
    var storedBody: (activityType: String, body: String)? {
        guard let r = request, case .start(let start) = r.payload else { return nil }
        return (start.activityType, String(decoding: JSONWriter.bytes(.object(r.body)), as: UTF8.self))
    }

    /// A start read back from a row of ``storedColumns``: `text` and `integer` give column
    /// `i` (nil for NULL). Nil when a required column is missing.
    static func stored(text: (Int) -> String?, integer: (Int) -> Int64?) -> ScheduledStart? {
        guard let id = text(0), let requestId = text(1), let ordinal = integer(2), let app = text(3), let target = text(4),
              let sendAt = integer(5), let state = text(8).flatMap(State.init(rawValue:)) else { return nil }
        var request: OpenPushRequest?
        if let type = text(9), let body = text(10), let object = (try? JSONParser.parse(Array(body.utf8)))?.objectValue {
            request = OpenPushRequest(.start(OpenPushStart.decode(appId: target, activityType: type, body: object).request))
        }
        let time = SendTime(unixSeconds: sendAt / 1000, sendDate: text(6) ?? "", timezone: text(7) ?? "")
        let placeholder = OpenPushRequest(.start(OpenPushStart(appId: target, activityType: "")))
        var s = ScheduledStart(id: id, requestId: requestId, ordinal: Int(ordinal), appName: app, request: request ?? placeholder, time: time)
        s.request = request
        s.sendAt = sendAt
        s.state = state
        s.notificationId = text(11)
        s.upstreamStatus = integer(12).map(Int.init)
        s.error = text(13)
        s.finishedAt = integer(14)
        return s
    }
}
