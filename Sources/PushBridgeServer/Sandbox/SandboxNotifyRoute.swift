import PushBridgeCore

extension SandboxEngine {
    /// `POST /apps/{app}/live_activities/{id}/notifications`: 201 `{"id": …}`.
    func notify(_ request: HTTPRequest, appId: String, activityId: String) throws -> HTTPResponse {
        let app: SandboxApp, body: JSONObject
        switch sendingPreamble(request, appId: appId) {
        case .fail(let response): return response
        case .ok(let ok): (app, body) = ok
        }
        let decoded = OpenPushUpdate.decode(appId: app.id, activityId: activityId, body: body)
        guard decoded.violations.isEmpty else { return SandboxResponses.violations(decoded.violations) }
        let u = decoded.request
        let event = u.event ?? "update"
        let now = clock.now

        let open = store.activities(app: app.id, activityId: activityId).filter {
            event == "end" ? $0.isEndable(at: now) : $0.isActive(at: now)
        }
        guard !open.isEmpty else { return SandboxResponses.error(404, SandboxResponses.noOpenActivity) }
        let types = Set(open.map(\.activityType))
        guard types.count == 1, let activityType = types.first else {
            return SandboxResponses.error(400, "activity_id: is registered under more than one activity type (\(types.sorted().joined(separator: ", ")))")
        }

        let reached = Array(open.prefix(OpenPushLimits.fanOutCap))
        let apns = SandboxAPNs(
            event: event, bundleId: app.bundleId, now: now, contentState: u.eventUpdates ?? [:],
            attributesType: nil, attributes: nil, headings: u.headings, contents: u.contents,
            staleDate: u.staleDate, dismissalDate: u.dismissalDate, priority: u.priority,
            relevance: u.relevanceScore?.doubleValue, sound: SandboxAPNs.sound(iosSound: u.iosSound, sound: u.sound))
        var deliveries: [JSONValue] = []
        deliveries.reserveCapacity(reached.count)
        for var a in reached {
            deliveries.append(.object(apns.request(token: a.updateToken, tokenKind: "update", subscriptionId: a.subscriptionId, registeredStaleAt: a.staleAt)))
            if event == "end" {
                a.endedAt = now
                try store.putActivity(a)
            }
        }
        let id = SandboxIDs.messageId()
        let record = SandboxSendRecord.make(id: id, app: app.id, route: "notifications", event: event, name: u.name,
                                            activityType: activityType, activityId: activityId, now: now,
                                            audience: open.count, reached: reached.count, deliveries: deliveries)
        try store.appendSend(record)
        return .json(201, .object(["id": .string(id)]))
    }
}
