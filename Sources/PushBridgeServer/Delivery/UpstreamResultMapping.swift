import Foundation
import PushBridgeCore

/// Reads OpenPush's answer to one forwarded request into an `UpstreamResult` the dialects render.
public enum UpstreamResultMapping {
    /// 2xx with an id → accepted; 4xx → rejected with OpenPush's message and `Retry-After`;
    /// 5xx, unreadable bodies and transport failures → failed.
    public static func result(_ response: UpstreamResponse) -> UpstreamResult {
        switch response {
        case .failure(let f):
            return .failed(message: describe(f))
        case .reply(let r):
            let json = (try? JSONParser.parse(r.body))?.objectValue
            switch r.status {
            case 200..<300:
                guard let id = json?["notification_id"]?.stringValue ?? json?["id"]?.stringValue else {
                    return .failed(message: "OpenPush answered \(r.status) without a message id")
                }
                return .accepted(id: id, replayed: r.header("idempotent-replayed")?.lowercased() == "true")
            case 400..<500:
                return .rejected(status: r.status, message: "OpenPush: " + message(json: json, body: r.body, status: r.status),
                                 retryAfter: r.header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            default:
                return .failed(message: "OpenPush answered \(r.status): " + message(json: json, body: r.body, status: r.status))
            }
        }
    }

    /// A sentence for a transport failure, for the caller and the audit: it never carries
    /// curl's text, which names the upstream's address (that goes to the log, with the
    /// request id).
    public static func describe(_ f: UpstreamFailure) -> String {
        switch f.kind {
        case .connectFailed: "OpenPush could not be reached; nothing was sent"
        case .timedOut: "OpenPush did not answer within the deadline"
        case .reset: "the connection to OpenPush broke before a complete answer"
        case .responseTooLarge: "OpenPush's answer was larger than the limit"
        case .shutDown: "PushBridge is shutting down"
        case .other: "OpenPush could not be reached"
        }
    }

    private static func message(json: JSONObject?, body: [UInt8], status: Int) -> String {
        if let errors = json?["errors"]?.arrayValue {
            let texts = errors.compactMap(\.stringValue)
            if !texts.isEmpty { return texts.joined(separator: "; ") }
        }
        if let m = json?["message"]?.stringValue ?? json?["error"]?.stringValue { return m }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "status \(status) with no body" : text
    }
}
