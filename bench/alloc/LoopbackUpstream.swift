import Foundation

/// The fast "OpenPush" of `make bench` (nginx's `return 201 {"notification_id":"msg_x"}`) in
/// the bench's own process: one blocking thread per connection, keep-alive, every thread
/// excluded from the count, so the figures are PushBridge's alone.
final class LoopbackUpstream: @unchecked Sendable {
    /// The port it listens on, 127.0.0.1.
    let port: UInt16
    private let listener: LoopbackSocket

    /// Listens and starts accepting on a thread of its own.
    init() throws {
        (listener, port) = try LoopbackSocket.listen()
        let listener = self.listener
        Thread {
            AllocationCount.excludeThisThread()
            while let connection = listener.accept() {
                Thread {
                    AllocationCount.excludeThisThread()
                    Self.serve(connection)
                }.start()
            }
        }.start()
    }

    /// Answers every request on `connection` with 201 and a notification id until it closes.
    private static func serve(_ connection: LoopbackSocket) {
        let body = #"{"notification_id":"msg_x"}"#
        let answer = Array("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        var buffer: [UInt8] = []
        while connection.readMessage(&buffer) != nil {
            guard connection.send(answer) else { return }
        }
    }
}
