import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One `pushbridge serve` child process, its stderr in a file, its port read from its
/// `msg=listening address=127.0.0.1:PORT` log line.
final class ServeProcess: Sendable {
    let process: Process
    let port: UInt16
    let logPath: String

    /// Starts the built binary on `config` (with `extra` arguments, its stdout in `stdoutPath`
    /// when given) and waits (at most 15 s) until it says where it listens.
    static func start(config: String, environment: [String: String], logPath: String, extra: [String] = [], stdoutPath: String? = nil) async throws -> ServeProcess {
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = ["serve", "--config", config] + extra
        process.environment = environment
        process.currentDirectoryURL = CLIRunner.repoRoot
        process.standardError = log
        if let stdoutPath {
            _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        try log.close()
        // Generous: on a loaded CI machine a start that migrates a fresh PostgreSQL audit can take
        // well over ten seconds; the wait ends as soon as the listening line is there.
        let deadline = ContinuousClock.now + .seconds(45)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let first = text.split(separator: "\n").first(where: { $0.contains("msg=listening") && text.contains($0 + "\n") }),
               let fields = LogfmtParser.parse(String(first)),
               let address = fields.first(where: { $0.0 == "address" })?.1,
               let port = address.split(separator: ":").last.flatMap({ UInt16($0) }) {
                return ServeProcess(process: process, port: port, logPath: logPath)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        throw RawHTTPClient.Failure(description: "pushbridge serve did not start: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
    }

    private init(process: Process, port: UInt16, logPath: String) {
        self.process = process
        self.port = port
        self.logPath = logPath
    }

    /// `kill -9`, then waits for the exit.
    func killHard() async throws {
        kill(process.processIdentifier, SIGKILL)
        try await offPool { [process] in process.waitUntilExit() }
    }

    /// SIGTERM, then waits for the exit (60 s at most: a process that ignores the signal is
    /// killed and reported, instead of hanging the suite); its status, or -1 when it had to be
    /// killed.
    func terminate() async throws -> Int32 {
        process.terminate()
        let exited = await firstValue(within: 60) { process.isRunning ? nil : true } ?? false
        guard exited else {
            kill(process.processIdentifier, SIGKILL)
            try await offPool { [process] in process.waitUntilExit() }
            Issue.record("pushbridge serve did not stop within 60 s of SIGTERM: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
            return -1
        }
        return process.terminationStatus
    }
}
