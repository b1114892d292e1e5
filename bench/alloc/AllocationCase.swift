import Foundation
import PushBridgeServer

/// One request `alloc-count` measures: how the caller sends it.
struct AllocationCase {
    /// Its name in the output, e.g. `onesignal start` (`onesignal-start` in the RESULT line).
    var name: String
    /// The request target.
    var path: String
    /// Extra header lines (the credential), without line ends.
    var headers: [(name: String, value: String)]
    /// The JSON body.
    var body: [UInt8]

    /// The bytes a caller sends: head and body, keep-alive.
    var wire: [UInt8] {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The same request as ``ProxyService/handle(_:)`` takes it in-process.
    var request: HTTPRequest {
        HTTPRequest(method: "POST", target: path, headers: [(name: "Content-Type", value: "application/json")] + headers, body: body)
    }

    /// The OneSignal start of `make bench` (fixtures/onesignal-start-reference).
    static func oneSignalStart(root: String) throws -> AllocationCase {
        AllocationCase(name: "onesignal start", path: "/apps/bench-app/activities/activity/DeliveryAttributes",
                       headers: [(name: "Authorization", value: "Key bench-onesignal-key")],
                       body: try fixture(root: root, "onesignal-start-reference"))
    }

    /// The Pushwoosh start of three notifications `docs/architecture.md` walks through
    /// (fixtures/pushwoosh-start-filter-reference's notification three times, as
    /// `bench/handoffs.sh` makes it: live activity ids `LA_0`, `LA_1`, `LA_2`).
    static func pushwooshStartOfThree(root: String) throws -> AllocationCase {
        let one = try fixture(root: root, "pushwoosh-start-filter-reference")
        guard var start = try JSONSerialization.jsonObject(with: Data(one)) as? [String: Any],
              var request = start["request"] as? [String: Any],
              let note = (request["notifications"] as? [[String: Any]])?.first else {
            throw LoopbackError("fixtures/pushwoosh-start-filter-reference/body.json has no request.notifications[0]")
        }
        request["notifications"] = (0..<3).map { i -> [String: Any] in
            var copy = note
            copy["live_activity_id"] = "LA_\(i)"
            return copy
        }
        start["request"] = request
        let body = try JSONSerialization.data(withJSONObject: start, options: [.sortedKeys])
        return AllocationCase(name: "pushwoosh start of three", path: "/json/1.3/startLiveActivity", headers: [], body: Array(body))
    }

    /// The body of fixture `name` under `root`/fixtures.
    private static func fixture(root: String, _ name: String) throws -> [UInt8] {
        let path = "\(root)/fixtures/\(name)/body.json"
        guard let data = FileManager.default.contents(atPath: path) else { throw LoopbackError("cannot read \(path) (run from the repository root or pass --root)") }
        return Array(data)
    }
}
