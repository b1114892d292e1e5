import PushBridgeCore

extension SandboxEngine {
    /// `POST /v1/apps/{app}/live-activities/push-to-start`: stores (or rotates) a device's
    /// push-to-start token for an activity type. Body: `subscription_id` or `device_token`,
    /// `activity_type`, `token`.
    func registerPushToStart(_ request: HTTPRequest, appId: String) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        var r = FieldReader(body)
        let activityType = r.string("activity_type"), token = r.string("token")
        var errors = r.errors.map { "\($0.field): \($0.rule)" }
        let typed = Set(r.errors.map(\.field))
        if !typed.contains("activity_type"), OpenPushRules.isBlank(activityType) { errors.append("activity_type: is required and must be non-blank") }
        if !typed.contains("token") { Self.checkToken(token, into: &errors) }
        guard errors.isEmpty, let activityType, let token else { return SandboxResponses.errors(400, errors) }
        guard var device = lookupDevice(body, appId: appId) else { return SandboxResponses.error(404, SandboxResponses.deviceNotRegistered) }
        let created = device.pushToStartTokens[activityType] == nil
        device.pushToStartTokens[activityType] = token
        try store.putDevice(device)
        return .json(created ? 201 : 200, .object(["subscription_id": .string(device.subscriptionId), "activity_type": .string(activityType)]))
    }

    /// `POST /v1/apps/{app}/live-activities/push-to-start/remove`. Body: `subscription_id` or
    /// `device_token`, `activity_type`.
    func removePushToStart(_ request: HTTPRequest, appId: String) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        guard let activityType = body["activity_type"]?.stringValue, !OpenPushRules.isBlank(activityType) else {
            return SandboxResponses.error(400, "activity_type: is required and must be non-blank")
        }
        guard var device = lookupDevice(body, appId: appId) else { return SandboxResponses.error(404, SandboxResponses.deviceNotRegistered) }
        let removed = device.pushToStartTokens.removeValue(forKey: activityType) != nil
        try store.putDevice(device)
        return .json(200, .object(["subscription_id": .string(device.subscriptionId), "activity_type": .string(activityType), "removed": .bool(removed)]))
    }
}
