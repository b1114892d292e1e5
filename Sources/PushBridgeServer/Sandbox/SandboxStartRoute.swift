import PushBridgeCore

extension SandboxEngine {
    /// `POST /apps/{app}/activities/activity/{type}`: 201 `{"notification_id": …}`.
    func start(_ request: HTTPRequest, appId: String, activityType: String) throws -> HTTPResponse {
        let app: SandboxApp, body: JSONObject
        switch sendingPreamble(request, appId: appId) {
        case .fail(let response): return response
        case .ok(let ok): (app, body) = ok
        }
        let decoded = OpenPushStart.decode(appId: app.id, activityType: activityType, body: body)
        guard decoded.violations.isEmpty else { return SandboxResponses.violations(decoded.violations) }
        let s = decoded.request
        let now = clock.now

        let idemKey = s.idempotencyKey?.lowercased()
        if let idemKey, let prior = store.idempotency(app: app.id, key: idemKey),
           now - prior.createdAt < OpenPushLimits.idempotencyWindowSeconds {
            return .json(201, .object(["notification_id": .string(prior.notificationId)]), headers: [("Idempotent-Replayed", "true")])
        }

        let audience = SandboxAudience.resolve(s, devices: store.devices(app: app.id))
        let capable = audience.filter { $0.pushToStartTokens[activityType] != nil }
        guard !capable.isEmpty else {
            return SandboxResponses.error(400, "activity_type: no device has registered a push-to-start token for \(activityType) in the target audience")
        }
        let reached = Array(capable.prefix(OpenPushLimits.fanOutCap))
        let apns = SandboxAPNs(
            event: "start", bundleId: app.bundleId, now: now, contentState: s.eventUpdates ?? [:],
            attributesType: activityType, attributes: s.eventAttributes, headings: s.headings, contents: s.contents,
            staleDate: s.staleDate, dismissalDate: nil, priority: s.priority, relevance: s.relevanceScore?.doubleValue,
            sound: SandboxAPNs.sound(iosSound: s.iosSound, sound: s.sound))
        let activityId = s.activityId ?? ""
        var deliveries: [JSONValue] = []
        deliveries.reserveCapacity(reached.count)
        for d in reached {
            let existing = store.activities(app: app.id, subscriptionId: d.subscriptionId).first { $0.activityId == activityId }
            let token = d.pushToStartTokens[activityType] ?? ""
            deliveries.append(.object(apns.request(token: token, tokenKind: "push_to_start", subscriptionId: d.subscriptionId, registeredStaleAt: existing?.staleAt)))
            if options.simulateDeviceRegistration {
                try register(app: app.id, subscriptionId: d.subscriptionId, activityId: activityId, activityType: activityType,
                             token: SandboxIDs.hexToken(), staleAt: s.staleDate)
            }
        }

        let id = SandboxIDs.messageId()
        var record = SandboxSendRecord.make(id: id, app: app.id, route: "start", event: "start", name: s.name,
                                            activityType: activityType, activityId: activityId, now: now,
                                            audience: capable.count, reached: reached.count, deliveries: deliveries)
        if let idemKey { record["idempotency_key"] = .string(idemKey) }
        try store.appendSend(record)
        if let idemKey { try store.putIdempotency(SandboxIdempotencyRecord(appId: app.id, key: idemKey, notificationId: id, createdAt: now)) }
        return .json(201, .object(["notification_id": .string(id)]))
    }
}

/// The JSON record of one accepted send, as `GET /_sandbox/sends` shows it.
enum SandboxSendRecord {
    /// A record; `truncated` is true when more devices qualified than the fan-out cap allows.
    static func make(id: String, app: String, route: String, event: String, name: String?, activityType: String,
                     activityId: String, now: Int64, audience: Int, reached: Int, deliveries: [JSONValue]) -> JSONObject {
        var o = JSONObject()
        o["id"] = .string(id)
        o["app_id"] = .string(app)
        o["route"] = .string(route)
        o["event"] = .string(event)
        if let name { o["name"] = .string(name) }
        o["activity_type"] = .string(activityType)
        o["activity_id"] = .string(activityId)
        o["accepted_at"] = .int(now)
        o["audience"] = .int(Int64(audience))
        o["reached"] = .int(Int64(reached))
        o["truncated"] = .bool(audience > reached)
        o["deliveries"] = .array(deliveries)
        return o
    }
}
