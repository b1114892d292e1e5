import CMicroHTTPD
import Glibc
import Testing
@testable import PushBridgeServer

/// ``MHDDaemon``: one owner per libmicrohttpd daemon, stopped exactly once, by ``MHDDaemon/stop()``
/// or when it is released (issue 31, item 4).
struct MHDDaemonTests {
    /// A daemon bound to 127.0.0.1 on an ephemeral port, polled by `loop`.
    private static func daemon(on loop: EventLoop) throws -> MHDDaemon {
        let configuration = HTTPServerConfiguration()
        let core = HTTPServerCore(configuration: configuration) { _ in HTTPResponse(status: 204) }
        var address = sockaddr_storage()
        #expect(pb_mhd_make_address("127.0.0.1", 0, &address) > 0)
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        let daemon = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                MHDDaemon(core: core, flags: UInt32(flags), bindAddress: socketAddress, listenSocket: -1, tls: nil, share: 0, loop: loop)
            }
        }
        return try #require(daemon, "the daemon did not start (errno \(errno))")
    }

    @Test func aDaemonServesUntilItIsReleasedAndThenItsPortRefuses() async throws {
        let loop = EventLoop(name: "daemon-loop")
        defer { loop.shutdown() }
        var daemon: MHDDaemon? = try Self.daemon(on: loop)
        let port = try #require(daemon?.boundPort)
        let served = try await RawHTTPClient.send(port: port)
        #expect(served.status == 204, "the daemon did not serve")
        // Released without stop(): its deinit stops it, on its loop.
        daemon = nil
        await #expect(throws: (any Error).self, "the port still accepts after the daemon was released") {
            try await RawHTTPClient.send(port: port)
        }
    }

    @Test func stopIsIdempotentAndTheQuiescedListenerIsClosedWithIt() async throws {
        let loop = EventLoop(name: "daemon-loop")
        defer { loop.shutdown() }
        let daemon = try Self.daemon(on: loop)
        let port = daemon.boundPort
        // Quiesced, the daemon hands its listening socket back; the stop closes it.
        daemon.quiesce()
        daemon.stop()
        daemon.stop()
        #expect(daemon.isStopped)
        await #expect(throws: (any Error).self, "the port still accepts after the stop") {
            try await RawHTTPClient.send(port: port)
        }
    }

    @Test func aStoppedServerHasStoppedEveryDaemonItHeld() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 3
        let server = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 204) }
        let daemons = server.daemons.withLock { $0.current }
        #expect(daemons.count == 3)
        let served = try await RawHTTPClient.send(port: server.port)
        #expect(served.status == 204)
        await server.stop()
        let running = daemons.filter { !$0.isStopped }.count
        #expect(running == 0, "a daemon was left running after stop")
        await #expect(throws: (any Error).self) { try await RawHTTPClient.send(port: server.port) }
    }

    @Test func aReplacedCertificatesDaemonsAreStoppedAndTheirRetirementTaskEnds() async throws {
        let ca = try TestCertificateAuthority()
        let first = try ca.issue("first", serial: "A1")
        let renewed = try ca.issue("renewed", serial: "B2")
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 2
        configuration.tls = try TLSCertificate.load(certificateChainPath: first.certificatePath, privateKeyPath: first.keyPath)
        let server = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 204) }
        let port = server.port
        let before = try await offPool { try ca.servedSerial(port: port) }
        #expect(before == first.serial)
        let old = server.daemons.withLock { $0.current }
        try server.replaceCertificate(TLSCertificate.load(certificateChainPath: renewed.certificatePath, privateKeyPath: renewed.keyPath))
        // The old daemons hold no connection: their retirement stops them, then ends.
        #expect(await eventually(10) { old.filter { !$0.isStopped }.isEmpty }, "a replaced daemon was left running")
        #expect(await eventually(10) { server.core.tasks.running == 0 }, "the retirement task never ended")
        let after = try await offPool { try ca.servedSerial(port: port) }
        #expect(after == renewed.serial)
        await server.stop()
        #expect(server.core.tasks.running == 0)
    }
}
