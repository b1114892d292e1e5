import PushBridgeCore

/// The sandbox's routes, matched from a method and a path.
enum SandboxRoute: Equatable {
    /// `POST /apps/{app}/activities/activity/{type}`.
    case start(app: String, activityType: String)
    /// `POST /apps/{app}/live_activities/{id}/notifications`.
    case notify(app: String, activityId: String)
    /// `POST /v1/apps/{app}/live-activities/push-to-start`.
    case registerPushToStart(app: String)
    /// `POST /v1/apps/{app}/live-activities/push-to-start/remove`.
    case removePushToStart(app: String)
    /// `POST /v1/apps/{app}/live-activities`.
    case registerActivity(app: String)
    /// `POST /v1/apps/{app}/live-activities/{id}/end`.
    case endActivity(app: String, activityId: String)
    /// `POST /v1/apps/{app}/devices`.
    case registerDevice(app: String)
    /// `POST /v1/apps/{app}/devices/{subscription}/retire`.
    case retireDevice(app: String, subscriptionId: String)
    /// `GET /_sandbox/sends`.
    case listSends
    /// `GET /_sandbox/devices`.
    case listDevices
    /// `GET /_sandbox/activities`.
    case listActivities
    /// `GET /_sandbox/clock`.
    case readClock
    /// `POST /_sandbox/clock`.
    case moveClock
    /// `POST /_sandbox/apps`.
    case createApp
    /// A known path with the wrong method.
    case methodNotAllowed(allowed: String)
    /// No such path.
    case notFound
    /// A path segment that is not valid percent-encoding.
    case badPath

    /// Whether `path` is one of the views that only read the sandbox's state (sends, devices,
    /// activities), which the proxy's admin listener may serve.
    static func isReadOnlyView(_ path: String) -> Bool {
        switch match(method: "GET", path: path) {
        case .listSends, .listDevices, .listActivities: true
        default: false
        }
    }

    /// Matches a request.
    static func match(method: String, path: String) -> SandboxRoute {
        let raw = path.split(separator: "/", omittingEmptySubsequences: true)
        var segs: [String] = []
        for s in raw {
            guard let d = PathEncoding.decodeSegment(s) else { return .badPath }
            segs.append(d)
        }
        let route = matchSegments(segs, get: method == "GET")
        switch route {
        case .listSends, .listDevices, .listActivities, .readClock: return method == "GET" ? route : .methodNotAllowed(allowed: "GET")
        case .notFound, .badPath, .methodNotAllowed: return route
        default: return method == "POST" ? route : .methodNotAllowed(allowed: "POST")
        }
    }

    private static func matchSegments(_ s: [String], get: Bool) -> SandboxRoute {
        switch s.count {
        case 2 where s[0] == "_sandbox":
            switch s[1] {
            case "sends": return .listSends
            case "devices": return .listDevices
            case "activities": return .listActivities
            case "clock": return get ? .readClock : .moveClock
            case "apps": return .createApp
            default: return .notFound
            }
        case 5 where s[0] == "apps" && s[2] == "activities" && s[3] == "activity":
            return .start(app: s[1], activityType: s[4])
        case 5 where s[0] == "apps" && s[2] == "live_activities" && s[4] == "notifications":
            return .notify(app: s[1], activityId: s[3])
        case 4 where s[0] == "v1" && s[1] == "apps" && s[3] == "live-activities":
            return .registerActivity(app: s[2])
        case 4 where s[0] == "v1" && s[1] == "apps" && s[3] == "devices":
            return .registerDevice(app: s[2])
        case 5 where s[0] == "v1" && s[1] == "apps" && s[3] == "live-activities" && s[4] == "push-to-start":
            return .registerPushToStart(app: s[2])
        case 6 where s[0] == "v1" && s[1] == "apps" && s[3] == "live-activities" && s[4] == "push-to-start" && s[5] == "remove":
            return .removePushToStart(app: s[2])
        case 6 where s[0] == "v1" && s[1] == "apps" && s[3] == "live-activities" && s[5] == "end":
            return .endActivity(app: s[2], activityId: s[4])
        case 6 where s[0] == "v1" && s[1] == "apps" && s[3] == "devices" && s[5] == "retire":
            return .retireDevice(app: s[2], subscriptionId: s[4])
        default:
            return .notFound
        }
    }
}
