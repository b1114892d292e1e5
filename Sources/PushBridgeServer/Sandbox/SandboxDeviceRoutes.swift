import PushBridgeCore

extension SandboxEngine {
    /// `POST /v1/apps/{app}/devices`: registers or updates a device subscription.
    /// Body: `push_token` (required), optional `subscription_id`, `openpush_id`,
    /// `aliases` (label → id), `segments` (ids). 201 when created, 200 when updated.
    func registerDevice(_ request: HTTPRequest, appId: String) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        guard store.app(appId) != nil else { return SandboxResponses.error(404, "app_id: no such app") }
        var r = FieldReader(body)
        let sub = r.string("subscription_id"), token = r.string("push_token"), openPushId = r.string("openpush_id")
        let aliasObject = r.object("aliases"), segments = r.stringArray("segments")
        var errors = r.errors.map { "\($0.field): \($0.rule)" }
        if !r.errors.contains(where: { $0.field == "push_token" }) { Self.checkToken(token, field: "push_token", into: &errors) }
        var aliases: [String: String] = [:]
        for m in aliasObject?.members ?? [] {
            if let id = m.value.stringValue { aliases[m.key] = id } else { errors.append("aliases.\(m.key): must be a string") }
        }
        guard errors.isEmpty, let token else { return SandboxResponses.errors(400, errors) }
        let id = sub ?? SandboxIDs.subscriptionId()
        let created = try upsertDevice(SandboxDevice(appId: appId, subscriptionId: id, pushToken: token, openPushId: openPushId,
                                                     aliases: aliases, segments: segments ?? []))
        return .json(created ? 201 : 200, .object(["subscription_id": .string(id)]))
    }

    /// `POST /v1/apps/{app}/devices/{subscription}/retire`: retires a subscription and closes
    /// the activities it owns.
    func retireDevice(appId: String, subscriptionId: String) throws -> HTTPResponse {
        guard var device = store.device(app: appId, subscriptionId: subscriptionId) else {
            return SandboxResponses.error(404, "subscription_id: no such subscription on this app")
        }
        device.retired = true
        try store.putDevice(device)
        try closeActivities(app: appId, subscriptionId: subscriptionId)
        return .json(200, .object(["subscription_id": .string(subscriptionId), "retired": .bool(true)]))
    }

    /// Creates or updates a device, keeping its push-to-start tokens and order. A new push token
    /// supersedes the old one (closing its activities); a token taken from another subscription
    /// supersedes that subscription's. Returns true when the device is new.
    @discardableResult
    func upsertDevice(_ incoming: SandboxDevice) throws -> Bool {
        var d = incoming
        let existing = store.device(app: d.appId, subscriptionId: d.subscriptionId)
        if let existing {
            d.sequence = existing.sequence
            d.pushToStartTokens = existing.pushToStartTokens.merging(d.pushToStartTokens) { _, new in new }
            if existing.pushToken?.lowercased() != d.pushToken?.lowercased() {
                try closeActivities(app: d.appId, subscriptionId: d.subscriptionId)
            }
        } else {
            d.sequence = store.nextSequence()
        }
        if let token = d.pushToken?.lowercased() {
            for var other in store.devices(app: d.appId) where other.subscriptionId != d.subscriptionId && other.pushToken?.lowercased() == token {
                other.pushToken = nil
                try store.putDevice(other)
                try closeActivities(app: d.appId, subscriptionId: other.subscriptionId)
            }
        }
        try store.putDevice(d)
        return existing == nil
    }

    /// Stamps every open activity of a subscription as ended.
    func closeActivities(app: String, subscriptionId: String) throws {
        for var a in store.activities(app: app, subscriptionId: subscriptionId) where a.endedAt == nil {
            a.endedAt = clock.now
            try store.putActivity(a)
        }
    }
}
