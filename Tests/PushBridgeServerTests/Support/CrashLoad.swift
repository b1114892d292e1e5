import Foundation
import Synchronization

/// Clients that keep sending OneSignal starts to whichever `pushbridge serve` is up (the port
/// changes at each restart), and remember every complete answer by its request id.
final class CrashLoad: Sendable {
    /// One complete answer.
    struct Answer: Sendable {
        var requestId: String
        var status: Int
    }

    private let port = Mutex<UInt16?>(nil)
    private let stopped = Mutex(false)
    private let answers = Collected<Answer>()
    private let counter = Mutex(0)

    /// The port to send to; nil while the proxy is down.
    func setPort(_ p: UInt16?) { port.withLock { $0 = p } }
    var all: [Answer] { answers.all }
    func stop() { stopped.withLock { $0 = true } }

    /// Runs `clients` senders until ``stop()`` or `limit` passes.
    func run(clients: Int, limit: Duration) async {
        let end = ContinuousClock.now + limit
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask { [self] in
                    while !stopped.withLock({ $0 }), ContinuousClock.now < end {
                        guard let p = port.withLock({ $0 }) else { try? await Task.sleep(for: .milliseconds(10)); continue }
                        let n = counter.withLock { c in c += 1; return c }
                        await sendOne(port: p, activity: "crash_\(n)")
                    }
                }
            }
        }
    }

    private func sendOne(port: UInt16, activity: String) async {
        guard let reply = try? await RawHTTPClient.send(port: port, method: "POST", target: ProxyPacingLiveTests.startPath,
                                                        headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")],
                                                        body: ProxyPacingLiveTests.startBody(activity)) else { return }
        // Only a whole answer counts: a kill can cut one after its head.
        guard let id = reply.header("x-pushbridge-request-id"), let length = reply.header("content-length").flatMap({ Int($0) }),
              length == reply.body.count else { return }
        answers.append(Answer(requestId: id, status: reply.status))
    }
}
