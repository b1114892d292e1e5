import Foundation
import PushBridgeCore
import Synchronization

/// Local stand-ins for the legacy providers, on one listener: the OneSignal double under
/// `/onesignal`, the Pushwoosh double under `/pushwoosh`, the BuzzKit double under `/buzzkit`
/// (each answering its provider's documented shapes for the Live Activity routes PushBridge
/// forwards), and two read-only views: `GET /_doubles/requests[?provider=P]` (what each double
/// received, oldest first, secrets as fingerprints wherever they appear: ``LegacyDoubleSecrets``) and `GET /_doubles/activities[?provider=P]`
/// (the activities each started). Both are bounded by `keep`.
public final class LegacyDoubleService: Sendable {
    private struct State {
        var log: BoundedFIFO<LegacyDoubleRecord>
        var activities: LegacyDoubleActivities
        var sequence: Int64 = 0
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> Int64

    /// Doubles keeping the last `keep` requests and activities; `now` gives Unix milliseconds.
    public init(keep: Int = ProxyConfiguration.LegacyDoubles().keep, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        state = Mutex(State(log: BoundedFIFO(capacity: keep), activities: LegacyDoubleActivities(capacity: keep)))
        self.now = now
    }

    /// This service as an `HTTPHandler`.
    public var handler: HTTPHandler {
        { [self] request in handle(request) }
    }

    /// Serves one request.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var segments: [String] = []
        for raw in request.path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PathEncoding.decodeSegment(raw) else { return view404("the path is not validly percent-encoded") }
            segments.append(segment)
        }
        guard let first = segments.first else { return view404("nothing here: see /_doubles/requests") }
        if first == "_doubles" { return view(request, segments) }
        guard let provider = DialectName(rawValue: first) else { return view404("no double at /\(first): the doubles are /onesignal, /pushwoosh and /buzzkit") }
        let below = Array(segments.dropFirst())
        let prefix = "/" + first
        let target = request.target.hasPrefix(prefix) ? String(request.target.dropFirst(prefix.count)) : request.target
        return state.withLock { s in
            let at = now()
            let exchange: LegacyDoubleExchange
            switch provider {
            case .onesignal: exchange = OneSignalDouble.handle(request, path: below, activities: &s.activities, now: at)
            case .pushwoosh: exchange = PushwooshDouble.handle(request, path: below, activities: &s.activities, now: at)
            case .buzzkit: exchange = BuzzKitDouble.handle(request, path: below, activities: &s.activities, now: at)
            }
            s.sequence += 1
            let recorded = LegacyDoubleSecrets.recorded(request, target: target, provider: provider)
            s.log.append(LegacyDoubleRecord(sequence: s.sequence, provider: provider, method: request.method, target: recorded.target, credential: exchange.credential,
                                            body: recorded.body, bodyBytes: request.body.count, receivedAt: at, status: exchange.response.status))
            var response = exchange.response
            response.headers.append(("X-Legacy-Double", provider.rawValue))
            return response
        }
    }

    /// Every kept record of `provider` (all when nil), oldest first, as JSON objects.
    public func requests(provider: DialectName? = nil) -> [JSONValue] {
        state.withLock { s in s.log.elements.filter { provider == nil || $0.provider == provider }.map(\.json) }
    }

    private func view(_ request: HTTPRequest, _ segments: [String]) -> HTTPResponse {
        guard segments.count == 2, segments[1] == "requests" || segments[1] == "activities" else { return view404("the views are /_doubles/requests and /_doubles/activities") }
        guard request.method == "GET" else { return .json(405, .object(["errors": .array([.string("method: use GET")])]), headers: [("Allow", "GET")]) }
        var provider: DialectName?
        if let name = request.query["provider"] {
            guard let p = DialectName(rawValue: name) else { return .json(400, .object(["errors": .array([.string("provider: must be onesignal, pushwoosh or buzzkit")])])) }
            provider = p
        }
        if segments[1] == "activities" { return .json(200, .object(["activities": .array(state.withLock { $0.activities.json(provider: provider) })])) }
        let (keep, forgotten) = state.withLock { ($0.log.capacity, $0.log.forgotten) }
        return .json(200, .object(["requests": .array(requests(provider: provider)), "keep": .int(Int64(keep)), "forgotten": .int(Int64(forgotten))]))
    }

    private func view404(_ message: String) -> HTTPResponse {
        .json(404, .object(["errors": .array([.string(message)])]))
    }
}
