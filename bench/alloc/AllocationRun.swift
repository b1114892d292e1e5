import Foundation
import PushBridgeCore
import PushBridgeServer

/// One `alloc-count` run: the runtime started, each case measured and printed, the runtime stopped.
enum AllocationRun {
    /// What the command line chose.
    struct Options: Sendable {
        /// The repository root, where fixtures/ is.
        var root = "."
        /// How many requests, counted how.
        var rounds = Rounds()
        /// Where the audit's temp dir goes.
        var auditDirectory = FileManager.default.temporaryDirectory.path
        /// With N > 0, every N-th allocation of one more round over HTTP has its stack sampled
        /// and the case's block lists the lines that allocate (``AllocationSites``).
        var sitesEvery = 0
        /// How many of the sites' lines to print, the most allocating first.
        var siteLines = 80
    }

    /// Measures and prints every case; false when one failed (said on stderr).
    static func run(_ options: Options) async throws -> Bool {
        let cases = try [AllocationCase.oneSignalStart(root: options.root), AllocationCase.pushwooshStartOfThree(root: options.root)]
        let upstream = try LoopbackUpstream()
        let directory = URL(fileURLWithPath: options.auditDirectory).appendingPathComponent("alloc-count-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = AllocationBenchConfiguration.json(upstreamPort: upstream.port, audit: directory.appendingPathComponent("audit.sqlite").path)
        let configuration = try ProxyConfiguration.load(json: Array(json.utf8), environment: AllocationBenchConfiguration.environment)
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        let runtime = try ProxyRuntime.start(configuration, log: EventLog(format: .logfmt, sink: EventLog.fileDescriptor(devNull)))
        let rounds = options.rounds
        print("alloc-count: allocations per request (malloc, calloc, realloc, aligned; every PushBridge thread), pushbridge serve's runtime")
        print("in this process, HTTP on 127.0.0.1, durable SQLite audit, OpenPush stand-in on loopback; \(rounds.warmUp) warm-up requests, "
            + "then the fewest of \(rounds.rounds) rounds of \(rounds.requests)")
        var succeeded = true
        for c in cases {
            do {
                try await measure(c, runtime: runtime, rounds: rounds)
                if options.sitesEvery > 0 { try await sites(c, runtime: runtime, rounds: rounds, every: options.sitesEvery, lines: options.siteLines) }
            } catch {
                FileHandle.standardError.write(Data("alloc-count: \(c.name): \(error)\n".utf8))
                succeeded = false
            }
        }
        await runtime.stop(gracePeriod: .seconds(2))
        withExtendedLifetime(upstream) {}
        return succeeded
    }

    /// Measures one case over HTTP, in-process and stage by stage, and prints its block and RESULT line.
    static func measure(_ c: AllocationCase, runtime: ProxyRuntime, rounds: Rounds) async throws {
        let wire = c.wire, port = runtime.port
        let live = try await onCallerThread {
            let connection = try LoopbackSocket.connect(port: port)
            var buffer: [UInt8] = []
            return try rounds.measureBlocking { try exchange(connection, wire, buffer: &buffer) }
        }
        let request = c.request
        let service = runtime.service
        let inProcess = try await rounds.measure {
            let answer = await service.handle(request)
            guard (200..<300).contains(answer.status) else {
                throw LoopbackError("in-process: PushBridge answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
        guard let stages = RequestPathStages(request: request, service: service, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
            throw LoopbackError("the request was not admitted: its stages cannot run alone")
        }
        var staged: [(key: String, name: String, allocations: Double)] = []
        for stage in stages.stages { staged.append((stage.key, stage.name, try await rounds.measure { try await stage.run() }.allocations)) }
        let rest = inProcess.allocations - staged.reduce(0) { $0 + $1.allocations }

        print("\n\(c.name)")
        row("whole request over HTTP", live.allocations, "\(Int(live.bytes)) bytes asked, \(PerRequest.format(live.frees)) frees")
        print("    by thread: " + live.byThread.map { "\($0.name) \(PerRequest.format($0.allocations))" }.joined(separator: " · "))
        row("HTTP server and its event loop (over HTTP − in-process)", live.allocations - inProcess.allocations)
        row("in-process, ProxyService.handle (no HTTP server; upstream off the loop)", inProcess.allocations)
        for stage in staged { row("  " + stage.name, stage.allocations) }
        row("  placement, mode, upstream, activity ledger, exit (in-process − the stages above)", rest)
        let stageFields = staged.map { "stage_\($0.key)=\(PerRequest.format($0.allocations))" }
        print((["RESULT case=\(c.name.replacingOccurrences(of: " ", with: "-"))", "allocations=\(PerRequest.format(live.allocations))",
                "in_process=\(PerRequest.format(inProcess.allocations))", "http=\(PerRequest.format(live.allocations - inProcess.allocations))"]
               + stageFields + ["rest=\(PerRequest.format(rest))", "bytes=\(Int(live.bytes))"]).joined(separator: " "))
    }

    /// Prints where `c`'s allocations are: one round over HTTP on a new connection (after the
    /// warm-up), every `every`-th allocation's stack sampled; the first `lines` sites listed.
    static func sites(_ c: AllocationCase, runtime: ProxyRuntime, rounds: Rounds, every: Int, lines: Int) async throws {
        let wire = c.wire, port = runtime.port
        let sampled = try await onCallerThread {
            let connection = try LoopbackSocket.connect(port: port)
            var buffer: [UInt8] = []
            for _ in 0..<rounds.warmUp { try exchange(connection, wire, buffer: &buffer) }
            return try AllocationSites.sample(every: every) {
                for _ in 0..<rounds.requests { try exchange(connection, wire, buffer: &buffer) }
            }
        }
        sampled.print(requests: rounds.requests, limit: lines)
    }

    /// Runs `work` on a new thread excluded from the count (the bench's caller) and returns its result.
    static func onCallerThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                AllocationCount.excludeThisThread()
                continuation.resume(with: Result { try work() })
            }.start()
        }
    }

    /// Sends `wire` on `connection` and reads the answer; throws unless it is a 2xx.
    static func exchange(_ connection: LoopbackSocket, _ wire: [UInt8], buffer: inout [UInt8]) throws {
        guard connection.send(wire), let answer = connection.readMessage(&buffer) else { throw LoopbackError("PushBridge closed the connection") }
        guard (200..<300).contains(answer.status) else {
            throw LoopbackError("PushBridge answered \(answer.firstLine): \(String(decoding: answer.body, as: UTF8.self))")
        }
    }

    /// A line of a case's block: what, and its allocations per request.
    static func row(_ what: String, _ value: Double, _ note: String = "") {
        let label = what.count >= 86 ? what + " " : what + String(repeating: " ", count: 86 - what.count)
        let figure = PerRequest.format(value)
        print("  " + label + String(repeating: " ", count: max(0, 8 - figure.count)) + figure + (note.isEmpty ? "" : "  " + note))
    }
}
