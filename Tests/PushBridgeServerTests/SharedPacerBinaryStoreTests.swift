import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The shared pacer's store sends every grant time in PostgreSQL's binary `BIGINT[]` format
/// (the server copies them instead of parsing a text of every send time of the window, each
/// batch), and every window and hold reads back exactly as the in-process rule left it.
@Suite(.serialized) struct SharedPacerBinaryStoreTests {
    /// The elements of a one-dimensional binary `BIGINT[]` without NULLs; nil when its header
    /// is not one (dimensions, NULL flag, element OID 20, lower bound 1, 8-byte elements).
    static func bigints(_ bytes: [UInt8]) -> [Int64]? {
        func word(_ at: Int) -> Int64? {
            guard at + 4 <= bytes.count else { return nil }
            return Int64(Int32(bitPattern: bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
        }
        guard let dimensions = word(0), word(4) == 0, word(8) == 20 else { return nil }
        if dimensions == 0 { return bytes.count == 12 ? [] : nil }
        guard dimensions == 1, let count = word(12), word(16) == 1, bytes.count == 20 + Int(count) * 12 else { return nil }
        return (0..<Int(count)).map { i -> Int64? in
            let at = 20 + i * 12
            guard word(at) == 8 else { return nil }
            return Int64(bitPattern: bytes[at + 4..<at + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }.reduce(into: [Int64]?([])) { all, value in
            if let value { all?.append(value) } else { all = nil }
        }
    }

    @Test func theStoreSendsEveryGrantTimeAsABinaryBigintArrayWithEachAppsEnd() {
        let apps = ["a", "b c", #"d"e"#]
        let slots: [[Int64]] = [[1, 2, 3], [], [.min, 5, .max]], spare: [[Int64]] = [[2], [], []], grants: [[Int64]] = [[3], [], [5, .max]]
        let parameters = PostgresSendPacer.storeParameters(apps: apps, instance: "one", expired: [0, -1, 2], slots: slots, spare: spare, grants: grants)
        #expect(parameters.count == 9)
        guard parameters.count == 9 else { return }
        #expect(parameters[0] == .text(PostgresSendPacer.textArray(apps)), "the apps go as text")
        #expect(parameters[2] == .text("one"))
        let decoded = parameters.map { parameter -> [Int64]? in
            if case .binary(let bytes) = parameter { Self.bigints(bytes) } else { nil }
        }
        #expect(decoded[1] == [0, -1, 2], "the cutoffs")
        #expect(decoded[3] == [1, 2, 3, .min, 5, .max] && decoded[4] == [3, 3, 6], "every app's slots, concatenated, and each app's end")
        #expect(decoded[5] == [2] && decoded[6] == [1, 1, 1], "the shadow sends")
        #expect(decoded[7] == [3, 5, .max] && decoded[8] == [1, 1, 3], "the grants")
    }

    /// Several batches of many apps with long windows (hundreds of slots a row, live and shadow
    /// sends, refusals): every answer, window, shadow list and hold is the in-process rule's,
    /// and the server was given the times as `BIGINT[]` (on `main` the store's parameters
    /// were texts of arrays, parsed by `array_in`).
    @Test func longWindowsOfSeveralAppsReadBackExactlyBatchAfterBatch() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri)
        let settings = SharedPacerTests.settings(400, window: 1_000, queue: 150, maxWait: 2_500)
        let apps = ["a", "b c", #"d"e,{f}"#]
        var local: [String: PacerWindow] = [:], held: [String: [Int64]] = [:], refused = 0
        for batch in 0..<6 {
            let asks = (0..<240).map { k -> PacerBatchQueue.Ask in
                let app = apps[(k * 7 + batch) % (k % 5 == 0 ? 2 : 3)]
                return .init(app: app, count: 1 + k % 3, now: 10_000 + Int64(batch * 300 + k), spare: k % 11 == 0)
            }
            let expected = asks.map { ask in
                ask.spare ? local[ask.app, default: PacerWindow()].reserveSpare(count: ask.count, now: ask.now, settings: settings)
                    : local[ask.app, default: PacerWindow()].reserve(count: ask.count, now: ask.now, settings: settings)
            }
            let answers = try PostgresSendPacer.reserve(asks, settings: settings, instance: "one", on: db)
            #expect(answers == expected, "batch \(batch)")
            refused += expected.filter { if case .refused = $0 { true } else { false } }.count
            for app in apps {
                let granted = zip(asks, expected).compactMap { ask, answer -> (now: Int64, grants: [Int64])? in
                    if case .granted(let g) = answer, ask.app == app { (ask.now, g) } else { nil }
                }
                guard let latest = granted.map(\.now).max() else { continue }
                held[app] = (held[app] ?? []).filter { $0 > latest - settings.windowMs } + granted.flatMap(\.grants)
            }
        }
        #expect(refused > 0, "some asks were refused")
        for app in apps {
            let row = try db.execute("SELECT slots::text, spare_slots::text FROM pacer_windows WHERE app = $1", [app]).rows.first
            let window = local[app] ?? PacerWindow()
            #expect(window.slots.count > 100, "\(app): a long window")
            #expect(row?[0] == "{" + window.slots.all.map(String.init).joined(separator: ",") + "}", "\(app): slots")
            #expect(row?[1] == "{" + window.spare.all.map(String.init).joined(separator: ",") + "}", "\(app): shadow sends")
            let hold = try db.execute("SELECT slots::text FROM pacer_holds WHERE app = $1 AND instance = 'one'", [app]).value(0, 0)
            #expect(hold == "{" + (held[app] ?? []).map(String.init).joined(separator: ",") + "}", "\(app): held")
        }
        let types = try db.execute("SELECT parameter_types::text FROM pg_prepared_statements WHERE statement = $1", [PostgresSendPacer.SQL.store]).value(0, 0)
        #expect(types == "{text[],bigint[],text,bigint[],bigint[],bigint[],bigint[],bigint[],bigint[]}", "grant times as BIGINT[], not texts of arrays")
    }
}
