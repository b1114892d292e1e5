import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// A temporary directory holding one audit file, removed afterwards.
func withTemporaryAudit<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory("pushbridge-audit") { directory in try await body(directory.path("audit.sqlite")) }
}

/// A typical translated-request entry with `findings` findings.
func sampleEntry(_ id: String, receivedAt: Int64 = 1_700_000_000_000, findings: Int = 3, app: String = "app-1") -> AuditEntry {
    AuditEntry(
        requestId: id, receivedAt: receivedAt, path: "/api/v1/apps/\(app)/activities/activity/Delivery", dialect: .onesignal,
        route: .start, sourceApp: app, targetApp: "op-app", activityType: "Delivery", activityId: "act-\(id)", event: "start",
        keyFingerprint: "sha256:0123456789ab", inboundBody: #"{"name":"x"}"#, translated: #"[{"method":"POST"}]"#,
        findings: (0..<findings).map { Finding(field: "field\($0)", kind: $0 == 0 ? .dropped : .renamed, message: "message \($0)") })
}

/// A forwarded completion.
func sampleCompletion(finishedAt: Int64 = 1_700_000_000_120) -> AuditCompletion {
    AuditCompletion(
        finishedAt: finishedAt, outcome: .forwarded, upstreamStatus: 201, upstreamBody: #"{"id":"n1"}"#, upstreamLatencyMs: 12.5,
        attempts: [UpstreamAttempt(startedAt: finishedAt - 20, status: 201, latencyMs: 12.5)], responseStatus: 200, responseBody: #"{"id":"n1"}"#)
}

/// The bytes of the database file and its WAL and shared-memory files, as one buffer, read
/// by a child process so that a writer of this process keeps its locks (``LiveDatabaseFiles``).
func databaseBytes(_ path: String) -> [UInt8] {
    do {
        return try LiveDatabaseFiles.bytes(["", "-wal", "-shm", "-journal"].map { path + $0 })
    } catch {
        Issue.record("reading \(path)'s files: \(error)")
        return []
    }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let pattern = Array(needle.utf8)
    guard !pattern.isEmpty, haystack.count >= pattern.count else { return false }
    var index = 0
    while index <= haystack.count - pattern.count {
        if haystack[index] == pattern[0] && haystack[index..<(index + pattern.count)].elementsEqual(pattern) { return true }
        index += 1
    }
    return false
}

/// The engines an audit can live in; store tests run over both.
enum AuditEngine: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgresql
    var testDescription: String { rawValue }
}

/// A fresh empty audit location for `engine`: a file in a temporary directory, or a new
/// database on the test PostgreSQL cluster (which fails loudly when it cannot start).
func withTemporaryAudit<T>(_ engine: AuditEngine, _ body: (String) async throws -> T) async throws -> T {
    switch engine {
    case .sqlite: return try await withTemporaryAudit(body)
    case .postgresql: return try await body(try PostgresTestCluster.start().makeDatabase())
    }
}

/// A varied day of traffic: forwarded with a 429 retried, rejected with findings, failed,
/// two apps and routes, pending, and shadow comparisons.
func fillVariedAudit(_ store: AuditStore) async throws {
    let base: Int64 = 1_700_000_000_000
    for index in 0..<30 {
        let id = String(format: "R%04d", index)
        var entry = sampleEntry(id, receivedAt: base + Int64(index) * 60_000, findings: index % 4, app: index % 3 == 0 ? "app-2" : "app-1")
        entry.appName = index % 3 == 0 ? "rides" : "scores"
        switch index % 5 {
        case 0:
            let attempts = [UpstreamAttempt(startedAt: entry.receivedAt + 1, status: 429, latencyMs: 4.5),
                            UpstreamAttempt(startedAt: entry.receivedAt + 900, status: 201, latencyMs: 11.25)]
            try await store.begin(entry)
            try await store.finish(id, AuditCompletion(finishedAt: entry.receivedAt + 950, outcome: .forwarded, upstreamStatus: 201,
                                                       upstreamBody: "{}", upstreamLatencyMs: 11.25, attempts: attempts, responseStatus: 200, responseBody: "{}"))
        case 1:
            try await store.record(entry, AuditCompletion(finishedAt: entry.receivedAt + 3, outcome: .rejected, responseStatus: 400, responseBody: "{\"errors\":[]}"))
        case 2:
            try await store.begin(entry)
            try await store.finish(id, AuditCompletion(finishedAt: entry.receivedAt + 40, outcome: .failed, upstreamStatus: 500, upstreamLatencyMs: 30,
                                                       attempts: [UpstreamAttempt(startedAt: entry.receivedAt + 2, status: 500, latencyMs: 30)],
                                                       responseStatus: 502, errorMessage: "upstream 500"))
        case 3:
            try await store.begin(entry)
        default:
            try await store.begin(entry)
            try await store.finish(id, sampleCompletion(finishedAt: entry.receivedAt + 120))
            let comparison = ShadowComparison(requestId: id, comparedAt: entry.receivedAt + 130, dialect: .onesignal, route: .start, sourceApp: entry.sourceApp ?? "",
                                              primary: .init(provider: "onesignal", status: 200, body: "{}", latencyMs: 20, error: nil),
                                              shadow: .init(provider: "openpush", status: index % 2 == 0 ? 201 : 422, body: "{}", latencyMs: 14.5, error: nil))
            try await store.record(comparison)
        }
    }
}
