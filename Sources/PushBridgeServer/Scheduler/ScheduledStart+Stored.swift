import PushBridgeCore

extension ScheduledStart {
    /// The start's activity type and OpenPush body as stored (nil when it has no start).
    var storedBody: (activityType: String, body: String)? {
        guard let r = request, case .start(let start) = r.payload else { return nil }
        return (start.activityType, String(decoding: JSONWriter.bytes(.object(r.body)), as: UTF8.self))
    }

    /// A start read back from a row of `scheduled_starts`, column by column name. Nil when a
    /// required column is missing.
    init?(row: ScheduledStartSQL.Row) {
        guard let id = row["id"].textValue, let requestId = row["request_id"].textValue, let ordinal = row["ordinal"].integerValue,
              let app = row["app_name"].textValue, let target = row["target_app"].textValue, let sendAt = row["send_at"].integerValue,
              let state = row["state"].textValue.flatMap(State.init(rawValue:)) else { return nil }
        var request: OpenPushRequest?
        if let type = row["activity_type"].textValue, let body = row["body"].textValue, let object = (try? JSONParser.parse(Array(body.utf8)))?.objectValue {
            request = OpenPushRequest(.start(OpenPushStart.decode(appId: target, activityType: type, body: object).request))
        }
        let time = SendTime(unixSeconds: sendAt / 1000, sendDate: row["send_date"].textValue ?? "", timezone: row["timezone"].textValue ?? "")
        let placeholder = OpenPushRequest(.start(OpenPushStart(appId: target, activityType: "")))
        self.init(id: id, requestId: requestId, ordinal: Int(ordinal), appName: app, request: request ?? placeholder, time: time)
        self.request = request
        self.sendAt = sendAt
        self.state = state
        notificationId = row["notification_id"].textValue
        upstreamStatus = row["upstream_status"].integerValue.map(Int.init)
        error = row["error"].textValue
        finishedAt = row["finished_at"].integerValue
    }
}
