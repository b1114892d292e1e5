import Foundation
import PushBridgeCore

/// One shadowed request: what the primary and the shadow answered, and the verdict.
public struct ShadowComparison: Sendable, Equatable {
    /// How the two answers compare.
    public enum Verdict: String, Sendable, CaseIterable {
        /// Both answered 2xx.
        case bothAccepted = "both_accepted"
        /// Neither answered 2xx.
        case bothRejected = "both_rejected"
        /// Only the primary answered 2xx.
        case onlyPrimary = "only_primary"
        /// Only the shadow answered 2xx.
        case onlyShadow = "only_shadow"
        /// The shadow was not sent: OpenPush's window had no slot live sends did not need in
        /// time. Not a disagreement: readiness does not judge it.
        case shadowSkipped = "shadow_skipped"
    }

    /// One side's answer.
    public struct Side: Sendable, Equatable {
        /// `legacy:onesignal`, `openpush`, …
        public var provider: String
        /// The HTTP status, nil when none came.
        public var status: Int?
        /// The body, redacted.
        public var body: String?
        /// Milliseconds until the answer.
        public var latencyMs: Double?
        /// The transport error, or why nothing was sent.
        public var error: String?
        /// Not sent on purpose: live sends needed the budget (``Verdict/shadowSkipped``).
        public var skipped = false

        /// A side.
        public init(provider: String, status: Int?, body: String?, latencyMs: Double?, error: String?) {
            self.provider = provider
            self.status = status
            self.body = body
            self.latencyMs = latencyMs
            self.error = error
        }

        /// 2xx.
        public var accepted: Bool { status.map { (200..<300).contains($0) } ?? false }

        /// Why this side did not accept.
        var refusal: String { error ?? "\(provider) answered \(status.map(String.init) ?? "nothing"): \(String((body ?? "").prefix(200)))" }
    }

    /// The request.
    public var requestId: String
    /// When the shadow finished, Unix milliseconds.
    public var comparedAt: Int64
    /// The caller's dialect.
    public var dialect: DialectName
    /// The route.
    public var route: RouteKind
    /// The configured app's source id.
    public var sourceApp: String
    /// The side that answered the caller.
    public var primary: Side
    /// The side that ran in the background.
    public var shadow: Side

    /// The verdict.
    public var verdict: Verdict {
        if shadow.skipped { return .shadowSkipped }
        return switch (primary.accepted, shadow.accepted) {
        case (true, true): .bothAccepted
        case (false, false): .bothRejected
        case (true, false): .onlyPrimary
        case (false, true): .onlyShadow
        }
    }

    /// Why the verdict is what it is: the refusing side's status and message; nil when both accepted.
    public var reason: String? {
        switch verdict {
        case .bothAccepted: nil
        case .shadowSkipped: shadow.refusal
        case .bothRejected: "primary: \(primary.refusal); shadow: \(shadow.refusal)"
        case .onlyPrimary: shadow.refusal
        case .onlyShadow: primary.refusal
        }
    }
}

/// Redacts an answer's body for the audit: every secret of the inbound request (keys, `auth`,
/// device tokens, the caller's credential, the configured keys: its ``Inbound/scrubber``) is
/// replaced by its fingerprint wherever it appears.
enum ShadowRedaction {
    static func body(_ bytes: [UInt8], scrubber: SecretScrubber) -> String {
        if let value = try? JSONParser.parse(bytes) {
            return JSONWriter.string(Redaction.scrub(value, with: scrubber, fingerprint: Fingerprint.of))
        }
        return scrubber.scrub(String(decoding: bytes.prefix(8192), as: UTF8.self), fingerprint: Fingerprint.of)
    }
}
