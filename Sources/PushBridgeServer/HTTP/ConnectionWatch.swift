import CMicroHTTPD
import Dispatch
import Foundation
import Glibc
import Synchronization

/// Bounds how long a connection may take to deliver a request, and keeps room for new callers
/// while many connections dribble (the slowloris pattern, which libmicrohttpd's idle timeout
/// does not catch: every byte resets it).
///
/// A connection is *receiving* from its accept, or from the completion of its previous request,
/// until its request's head and body have arrived; while receiving it has a due time:
/// - accept + ``HTTPServerConfiguration/requestTimeout`` for the first request;
/// - previous completion + ``HTTPServerConfiguration/idleTimeout`` + `requestTimeout` on a
///   kept-alive connection (a silent one is closed by the idle timeout first), brought forward
///   to request line + `requestTimeout` once the request line is in.
///
/// A thread closes every receiving connection past its due time (``sweepInterval``). And when a
/// new connection makes the receiving ones from its address (or in all) more than the cap,
/// ``HTTPServerConfiguration/receivingConnectionCap(of:)``, the oldest receiving one is closed
/// at once: the last tenth of each connection limit is kept for callers that send their
/// request promptly (a health check, a normal caller).
///
/// The per-address limit (``HTTPServerConfiguration/perAddressConnectionLimit``) is enforced
/// here rather than by libmicrohttpd: a connection past it is closed at once. Connections being
/// closed no longer count, so a prompt caller finds its reserved room even before
/// libmicrohttpd has finished closing the connections that made it.
///
/// Closing is `shutdown(2)` on the socket: libmicrohttpd then reads end-of-file and closes the
/// connection itself. The socket cannot be closed and reused meanwhile: libmicrohttpd reports
/// a connection closed (``closed(_:)``, which takes the same lock) before it closes the socket.
///
/// Why `@unchecked Sendable` is sound: the mutable part is in a `Mutex`; the semaphore is
/// thread-safe by contract; the rest is immutable.
final class ConnectionWatch: @unchecked Sendable {
    private struct Entry {
        let socket: Int32
        let address: String
        let sequence: UInt64
        var due: ContinuousClock.Instant?
        var shutDown = false
        /// Whether a request line ever arrived on the connection.
        var sawRequestLine = false
        var isReceiving: Bool { due != nil && !shutDown }
    }

    /// Changed per request by reading an entry or count and writing it back whole, never
    /// through `dictionary[key]?.field = …` or `[key, default:] += 1`: those go through
    /// Dictionary's `modify` accessor, a coroutine whose frame is allocated on the heap
    /// (about 30 allocations a request, `alloc-count --sites`).
    private struct State {
        var entries: [UInt: Entry] = [:]
        var receivingByAddress: [String: Int] = [:]
        var receiving = 0
        /// Connections per address that are not being shut down.
        var openByAddress: [String: Int] = [:]
        var nextSequence: UInt64 = 0
        var stopped = false
    }

    /// How often overdue connections are looked for.
    static let sweepInterval: Duration = .milliseconds(200)

    private let requestTimeout: Duration
    private let idleTimeout: Duration
    private let addressLimit: Int?
    private let addressCap: Int?
    private let totalCap: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the sweeping thread for a server with `configuration`'s limits.
    init(configuration: HTTPServerConfiguration) {
        requestTimeout = configuration.requestTimeout
        idleTimeout = configuration.idleTimeout
        let perAddress = configuration.perAddressConnectionLimit
        addressLimit = perAddress > 0 ? perAddress : nil
        addressCap = perAddress > 0 ? HTTPServerConfiguration.receivingConnectionCap(of: perAddress) : nil
        totalCap = HTTPServerConfiguration.receivingConnectionCap(of: configuration.connectionLimit)
        let thread = Thread(named: "pb-req-timeouts") { [self] in run() }
        thread.start()
    }


    /// A connection was accepted on `socket` from `address`.
    func opened(_ connection: UInt, socket: Int32, address: String) {
        let due = ContinuousClock.now.advanced(by: requestTimeout)
        state.withLock { state in
            state.nextSequence += 1
            state.entries[connection] = Entry(socket: socket, address: address, sequence: state.nextSequence, due: due)
            state.receiving += 1
            state.receivingByAddress[address, default: 0] += 1
            state.openByAddress[address, default: 0] += 1
            if let addressCap, state.receivingByAddress[address, default: 0] > addressCap {
                Self.shutDownOldest(in: &state) { $0.address == address }
            }
            if state.receiving > totalCap { Self.shutDownOldest(in: &state) { _ in true } }
            if let addressLimit, state.openByAddress[address, default: 0] > addressLimit {
                Self.shutDown(connection, in: &state)
            }
        }
    }

    /// The request line of a request on `connection` arrived.
    func requestLineArrived(_ connection: UInt) {
        let due = ContinuousClock.now.advanced(by: requestTimeout)
        state.withLock { state in
            guard var entry = state.entries[connection] else { return }
            entry.sawRequestLine = true
            if let current = entry.due, due < current { entry.due = due }
            state.entries[connection] = entry
        }
    }

    /// The request on `connection` has arrived whole (or was answered before it had): it is
    /// no longer held to the request timeout.
    func received(_ connection: UInt) {
        state.withLock { state in
            guard var entry = state.entries[connection], entry.due != nil else { return }
            if entry.isReceiving { Self.stopCounting(entry, in: &state) }
            entry.due = nil
            state.entries[connection] = entry
        }
    }

    /// The request on `connection` completed; the connection may wait for another one.
    func completed(_ connection: UInt) {
        let due = ContinuousClock.now.advanced(by: idleTimeout + requestTimeout)
        state.withLock { state in
            guard var entry = state.entries[connection], entry.due == nil, !entry.shutDown else { return }
            entry.due = due
            state.entries[connection] = entry
            state.receiving += 1
            state.receivingByAddress[entry.address] = (state.receivingByAddress[entry.address] ?? 0) + 1
        }
    }

    /// libmicrohttpd closed `connection` (its socket is still open during this call). Returns
    /// whether libmicrohttpd had answered it without a request line ever arriving: bytes were
    /// written to a connection the server never had a request from, so that answer is
    /// libmicrohttpd's own refusal of the request line (too long, an HTTP version it does not
    /// speak, malformed). Only meaningful without TLS, whose handshake writes bytes too.
    @discardableResult
    func closed(_ connection: UInt) -> Bool {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: connection) else { return false }
            if entry.isReceiving { Self.stopCounting(entry, in: &state) }
            if !entry.shutDown {
                state.openByAddress[entry.address, default: 1] -= 1
                if state.openByAddress[entry.address] == 0 { state.openByAddress[entry.address] = nil }
            }
            // The kernel counts the handshake as a byte acknowledged; an answer is a hundred or more.
            return !entry.sawRequestLine && !entry.shutDown && pb_tcp_bytes_written(entry.socket) > 8
        }
    }

    /// Stops the thread.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    private static func stopCounting(_ entry: Entry, in state: inout State) {
        state.receiving -= 1
        let left = state.receivingByAddress[entry.address, default: 1] - 1
        state.receivingByAddress[entry.address] = left > 0 ? left : nil
    }

    /// Shuts down the oldest receiving connection that `matches`.
    private static func shutDownOldest(in state: inout State, where matches: (Entry) -> Bool) {
        var oldest: (key: UInt, sequence: UInt64)?
        for (key, entry) in state.entries where entry.isReceiving && matches(entry) {
            if entry.sequence < oldest?.sequence ?? .max { oldest = (key, entry.sequence) }
        }
        guard let key = oldest?.key else { return }
        shutDown(key, in: &state)
    }

    private static func shutDown(_ key: UInt, in state: inout State) {
        guard let entry = state.entries[key] else { return }
        if entry.isReceiving { stopCounting(entry, in: &state) }
        state.entries[key]?.shutDown = true
        if !entry.shutDown { state.openByAddress[entry.address, default: 1] -= 1 }
        if state.openByAddress[entry.address] == 0 { state.openByAddress[entry.address] = nil }
        _ = Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let stopped = state.withLock { state -> Bool in
                if state.stopped { return true }
                let overdue = state.entries.filter { !$0.value.shutDown && $0.value.due.map { $0 <= now } == true }.map(\.key)
                for key in overdue { Self.shutDown(key, in: &state) }
                return false
            }
            if stopped { return }
            let (seconds, attoseconds) = Self.sweepInterval.components
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        }
    }
}
