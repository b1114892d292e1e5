import PushBridgeCore

/// An answer the server makes itself, without (or instead of) the handler.
public enum HTTPServerFailure: Sendable, Equatable {
    /// The request body passed ``HTTPServerConfiguration/maxBodyBytes`` (`limit`); the handler
    /// did not run. The request passed to the responder has no body.
    case bodyTooLarge(limit: Int)
    /// The request head breaks a framing or character rule (``HTTPHeadRules``): `field` names
    /// the header, `rule` what it broke. The handler did not run; the connection is closed.
    case malformedHead(field: String, rule: String)
    /// The handler ran past ``HTTPServerConfiguration/handlerDeadline``.
    case handlerDeadlineExceeded(Duration)
    /// The server is stopping and did not run the handler (the request's body completed
    /// while it drained).
    case shuttingDown
    /// The server stopped before a running handler answered (past the grace period); the
    /// handler's own audit row stays its record.
    case stoppedBeforeAnswer

    /// The HTTP status this failure is answered with: 413, 400, 504 or 503.
    public var status: Int {
        switch self {
        case .bodyTooLarge: 413
        case .malformedHead: 400
        case .handlerDeadlineExceeded: 504
        case .shuttingDown, .stoppedBeforeAnswer: 503
        }
    }

    /// A one-line description for the caller.
    public var message: String {
        switch self {
        case .bodyTooLarge(let limit): "request body is larger than the limit of \(limit) bytes"
        case .malformedHead(let field, let rule): "\(field): \(rule)"
        case .handlerDeadlineExceeded(let deadline): "the request did not finish within \(deadline)"
        case .shuttingDown: "the server is shutting down"
        case .stoppedBeforeAnswer: "the server stopped before the answer was ready"
        }
    }

    /// The default rendering: ``status`` with `{"errors":["<message>"]}`.
    public static func jsonResponse(_ failure: HTTPServerFailure, for request: HTTPRequest) -> HTTPResponse {
        .json(failure.status, .object(["errors": .array([.string(failure.message)])]))
    }
}
