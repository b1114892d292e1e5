import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The one place answers PushBridge makes itself are rendered (``Refusal/response``): each in
/// the caller's dialect, by route or else by path prefix, and plain `{"errors": […]}` with the
/// status the refusal names for a path of no dialect.
struct RefusalTests {
    static func object(_ response: HTTPResponse) -> JSONObject? { (try? JSONParser.parse(response.body))?.objectValue }

    @Test func aServerAnswerToAPathOfNoDialectIsPlainWithTheServersStatus() throws {
        let request = HTTPRequest(method: "POST", target: "/not/a/dialect")
        let deadline = HTTPServerFailure.handlerDeadlineExceeded(.seconds(3)).answer(for: request)
        #expect(deadline.status == 504, "the plain answer took the failure's REST status, not the server's")
        #expect(Self.object(deadline)?["errors"]?.arrayValue?.first?.stringValue == "the request did not finish within 3.0 seconds")
        #expect(HTTPServerFailure.bodyTooLarge(limit: 10).answer(for: request).status == 413)
    }

    @Test func aServerAnswerToADialectsPathIsInThatDialectByPrefixWhenNoRouteMatches() throws {
        let pushwoosh = HTTPServerFailure.shuttingDown.answer(for: HTTPRequest(method: "POST", target: "/json/1.3/unknownMethod"))
        #expect(ProxyFixtureLiveTests.isDialectError(.pushwoosh, status: pushwoosh.status, body: pushwoosh.body), "\(pushwoosh.status)")
        let buzzkit = HTTPServerFailure.bodyTooLarge(limit: 10).answer(for: HTTPRequest(method: "POST", target: "/v1/nothing"))
        #expect(ProxyFixtureLiveTests.isDialectError(.buzzkit, status: buzzkit.status, body: buzzkit.body) && buzzkit.status == 413, "\(buzzkit.status)")
    }

    @Test func anUnhandledPushwooshRouteNamesItsReasonNotAccessDenied() throws {
        let reason = "POST /json/1.3/createMessage is not proxied"
        let answer = Refusal(.unhandledRoute(reason), target: "/json/1.3/createMessage").response
        #expect(answer.status == 404 && Self.object(answer)?["status_message"]?.stringValue == reason, "\(answer.status)")
        let plain = Refusal(.unhandledRoute(reason), target: "/elsewhere").response
        #expect(plain.status == 404 && Self.object(plain)?["errors"]?.arrayValue?.first?.stringValue == reason)
    }

    @Test func aRoutesFailureIsTheDialectsOwnAnswer() throws {
        let route = try #require(InboundRoute.match(path: ServerAnswerExitTests.osStart))
        let answer = Refusal(.unauthorized("invalid credentials"), route: route).response
        #expect(answer.status == 403 && answer.header("Content-Type") == "application/json", "\(answer.status)")
        #expect(Self.object(answer)?["errors"]?.arrayValue?.first?.stringValue == "invalid credentials")
    }
}
