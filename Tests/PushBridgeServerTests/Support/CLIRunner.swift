import Foundation
import PushBridgeTestSupport

/// Runs the built `pushbridge` binary (the one `swift build --build-tests` produced) and
/// captures its exit status and output.
enum CLIRunner {
    /// The repository root (``Repository/root``), where the binary runs.
    static var repoRoot: URL { Repository.root }

    static var binary: URL {
        let debug = repoRoot.appendingPathComponent(".build/debug/pushbridge")
        return debug
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `run` on its own thread.
    static func runAsync(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) async throws -> Output {
        try await offPool { try run(arguments, stdin: stdin, environment: environment) }
    }

    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> Output {
        try runProcess(binary, arguments, stdin: stdin, environment: environment, directory: repoRoot)
    }

    /// Runs any executable to its end, feeding `stdin` (then closing it), and captures its output.
    static func runProcess(_ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
                           directory: URL? = nil) throws -> Output {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = directory }
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}
