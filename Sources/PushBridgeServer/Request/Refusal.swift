import PushBridgeCore

/// An answer PushBridge makes itself instead of relaying one: a refusal of what the caller sent
/// (its head, its body's size, its credential, its app, its translation, its route) or a
/// failure on PushBridge's side (the upstream, the audit, the shared state, a deadline, a
/// stop), as a value. Every such answer is rendered here and only here (``response``), in the
/// caller's dialect: the route's, else the dialect its path prefix belongs to
/// (``InboundRoute/dialect(ofPrefix:)``), else plain `{"errors": ["…"]}`. The shape is
/// swift-openapi-runtime's `ErrorHandlingMiddleware`, which turns every
/// `HTTPResponseConvertible` error into its response in one place: a stage or the server says
/// what it refuses, the refusal says how that looks to this caller, and the answer leaves
/// through the one exit (``ProxyService/exit(_:_:)``) with its audit row, request id, access
/// line and metric.
struct Refusal: Sendable, Equatable {
    /// What is refused, or what failed.
    enum Reason: Sendable, Equatable {
        /// A failure each dialect renders its own way (``Dialect/render(failure:route:)``).
        case failure(ProxyFailure)
        /// A path no route has, or a method a route does not take: a 404 naming the reason
        /// (in Pushwoosh's envelope with that reason, not the "access denied" Pushwoosh gives
        /// for an unknown app).
        case unhandledRoute(String)
    }

    /// What is refused, or what failed.
    var reason: Reason
    /// The caller's dialect; nil for a path that belongs to none.
    var dialect: DialectName?
    /// The route the request matched, if any (a dialect may answer by route).
    var route: InboundRoute?
    /// The status of the plain answer to a path of no dialect; nil: the failure's own
    /// (``ProxyFailure/httpStatus``; 404 for an unhandled route).
    var plainStatus: Int?

    /// `failure` on `route`, in the route's dialect.
    init(_ failure: ProxyFailure, route: InboundRoute) {
        self.init(reason: .failure(failure), dialect: route.dialect, route: route)
    }

    /// `reason` for a request to `target` (path and query): its route when one matches,
    /// else the dialect of its path prefix.
    init(_ reason: Reason, target: String, plainStatus: Int? = nil) {
        let route = InboundRoute.match(path: target)
        self.init(reason: reason, dialect: route?.dialect ?? InboundRoute.dialect(ofPrefix: target), route: route, plainStatus: plainStatus)
    }

    /// A refusal with every part given.
    init(reason: Reason, dialect: DialectName?, route: InboundRoute?, plainStatus: Int? = nil) {
        self.reason = reason
        self.dialect = dialect
        self.route = route
        self.plainStatus = plainStatus
    }

    /// The one-line reason, as the audit row and the plain answer give it.
    var message: String {
        switch reason {
        case .failure(let failure): failure.message
        case .unhandledRoute(let message): message
        }
    }

    /// The answer, without the request id (the exit adds it).
    var response: HTTPResponse {
        switch (reason, dialect) {
        case (.unhandledRoute(let message), .pushwoosh?):
            return HTTPResponse(dialect: PushwooshDialect().render(unhandledRoute: message))
        case (.unhandledRoute(let message), let dialect?):
            return HTTPResponse(dialect: Dialects.named(dialect).render(failure: .notFound(message), route: route))
        case (.failure(let failure), let dialect?):
            return HTTPResponse(dialect: Dialects.named(dialect).render(failure: failure, route: route))
        case (.unhandledRoute, nil):
            return .json(plainStatus ?? 404, .object(["errors": .array([.string(message)])]))
        case (.failure(let failure), nil):
            return .json(plainStatus ?? failure.httpStatus, .object(["errors": .array([.string(message)])]))
        }
    }
}
