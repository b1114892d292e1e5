import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, item 2's cost: the writer's fold keyed by interned integers, sorted by ranks and
/// given the counts the request path knows writes exactly the statements the text-keyed fold
/// wrote (``TextKeyedFold``, a copy of it: same SQL, same values in the same order), its
/// interner stays bounded, and the counts handed over equal what the row's text gives.
struct RollupFoldTests {
    /// One operation of a batch as the writer folds it: a row (an intent, or a complete row)
    /// with its findings, or a completion of an intent of the same batch.
    enum Step {
        case insert(row: [SQLiteValue], findings: [[SQLiteValue]], counts: AuditRollupCounts)
        case finish(row: [SQLiteValue], values: [SQLiteValue], counts: AuditRollupCounts)
    }

    /// Requests `range` of the synthetic mix (every route, rejections, 429s and retries,
    /// findings on array elements), under `app(i)`'s app and two instances; a third begun
    /// and completed in the batch, every 7th left pending, the rest complete rows. Pushwoosh
    /// starts carry three translated notifications, their sends handed over.
    static func batch(_ range: Range<Int>, of rows: Int, app: (Int) -> String) -> [Step] {
        range.map { i in
            var request = SyntheticTraffic.request(i, of: rows)
            request.entry.sourceApp = app(i)
            request.entry.appName = i % 4 == 0 ? nil : "name-" + app(i)
            if i % 5 == 0 { request.entry.findings.append(Finding(field: "notifications[\(i % 3)].title", kind: .dropped, message: "dropped \(i)")) }
            if request.entry.dialect == .pushwoosh, request.entry.route == .start {
                request.entry.translated = #"[{"method":"POST"},{"method":"POST"},{"method":"POST","body":{"a":[1,2]}}]"#
                request.entry.openPushSends = 3
            } else if i % 2 == 0 {
                request.entry.openPushSends = 1
            }
            let instance = i % 3 == 0 ? "pb-b" : "pb-a"
            let findings = AuditRowEncoding.findingRows(request.entry, instance: instance)
            if i % 7 == 0 {
                let row = AuditRowEncoding.requestRow(request.entry, nil, bodyLimit: 4096, instance: instance)
                return .insert(row: row, findings: findings, counts: AuditRollupCounts(request.entry, nil))
            }
            if i % 3 == 0 {
                let row = AuditRowEncoding.requestRow(request.entry, nil, bodyLimit: 4096, instance: instance)
                let values = AuditCompletionColumns(request.completion, outcome: request.completion.outcome, bodyLimit: 4096).all.map(\.value)
                return .finish(row: row, values: values, counts: AuditRollupCounts(request.entry, request.completion))
            }
            let row = AuditRowEncoding.requestRow(request.entry, request.completion, bodyLimit: 4096, instance: instance)
            return .insert(row: row, findings: findings, counts: AuditRollupCounts(request.entry, request.completion))
        }
    }

    /// `steps` folded as the writer folds them: an intent then its completion moving it out of `pending`.
    static func fold(_ steps: [Step], into fold: inout AuditRollupFold) {
        for step in steps {
            switch step {
            case .insert(let row, let findings, let counts):
                let folded = AuditRollupRow(row: row, counts: counts)
                fold.add(folded)
                fold.addFindings(findings, appName: folded.intent.appName)
            case .finish(let row, let values, let counts):
                let before = AuditRollupRow(row: row, counts: counts)
                fold.add(before)
                fold.add(before, sign: -1)
                fold.add(before.completed(by: values, figures: counts.retry))
            }
        }
    }

    /// The same steps through the copy of the old fold, which reads every figure from the text.
    static func oracle(_ steps: [Step]) -> [AuditStatement] {
        var fold = TextKeyedFold()
        for step in steps {
            switch step {
            case .insert(let row, let findings, _):
                let folded = AuditRollupRow(row: row)
                fold.add(folded)
                fold.addFindings(findings, appName: folded.intent.appName)
            case .finish(let row, let values, _):
                let before = AuditRollupRow(row: row)
                fold.add(before)
                fold.add(before, sign: -1)
                fold.add(before.completed(by: values))
            }
        }
        return fold.statements()
    }

    static func expectSame(_ new: [AuditStatement], _ old: [AuditStatement], _ label: String) {
        #expect(new.count == old.count, "\(label): \(new.count) statements, the text-keyed fold wrote \(old.count)")
        for (n, o) in zip(new, old) {
            #expect(n.name == o.name && n.sql == o.sql, "\(label): \(n.name)")
            #expect(n.values.count == o.values.count, "\(label): \(n.name) has \(n.values.count) values, was \(o.values.count)")
            if let first = zip(n.values, o.values).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                Issue.record("\(label): \(n.name) value \(first.offset) is \(first.element.0), was \(first.element.1)")
            }
        }
    }

    @Test func aBatchFoldsToTheStatementsTheTextKeyedFoldWrote() {
        let rows = 600
        // Apps whose text order is not their first-seen order, an empty one, non-ASCII ones.
        let apps = ["zeta", "app-10", "app-9", "", "Åpp", "app-1", "ápp", "b"]
        let steps = Self.batch(0..<rows, of: rows) { apps[($0 * 5 + $0 / 11) % apps.count] }
        var fold = AuditRollupFold()
        Self.fold(steps, into: &fold)
        let statements = fold.statements(hours: false)
        let oracle = Self.oracle(steps)
        // The batch spans chunks (more than 200 counter rows) and has findings and the busiest minute's sends to write.
        #expect(statements.filter { $0.name == "roll up requests" }.count >= 2 && statements.contains { $0.name == "roll up findings" })
        #expect(statements.filter { $0.name == "roll up the busiest minute's sends" }.count >= 2)
        Self.expectSame(statements, oracle, "one batch")
        // Another process interns in another order (other ids): the statements are the same.
        var reversed = AuditRollupFold()
        Self.fold(steps.reversed(), into: &reversed)
        Self.expectSame(reversed.statements(hours: false), Self.oracle(Array(steps.reversed())), "reversed")
        #expect(reversed.statements(hours: false).map(\.values).first?.prefix(19) == statements.first?.values.prefix(19), "the first counter row is the text order's first")
    }

    @Test func theInternerStaysBoundedAcrossBatchesOfDistinctApps() {
        var fold = AuditRollupFold()
        var cleared = 0
        for batch in 0..<30 {
            let before = fold.interner.count
            fold.reset()
            if fold.interner.count < before { cleared += 1 }
            #expect(fold.interner.count <= AuditRollupInterner.capacity, "batch \(batch): \(fold.interner.count) strings held")
            // 300 apps no batch before used: 9,000 in all, over twice the capacity.
            let steps = Self.batch(batch * 300..<(batch + 1) * 300, of: 9_000) { "app-\(batch)-\($0)" }
            Self.fold(steps, into: &fold)
            Self.expectSame(fold.statements(hours: false), Self.oracle(steps), "batch \(batch)")
        }
        #expect(cleared >= 2, "the interner started over \(cleared) times")
        fold.reset()
        #expect(fold.interner.count <= AuditRollupInterner.capacity)
    }

    /// The counts the request path hands over equal what the fold would read back from the
    /// row's text: the attempts' figures (429s, waits, fractional and non-finite latencies) and
    /// the sends of a real Pushwoosh translation of three notifications.
    @Test func theCountsHandedOverEqualWhatTheTextGives() throws {
        let attemptLists: [[UpstreamAttempt]] = [
            [],
            [UpstreamAttempt(startedAt: 1_000, status: 201, latencyMs: 9)],
            [UpstreamAttempt(startedAt: 1_000, status: 429, latencyMs: 0.1 + 0.2), UpstreamAttempt(startedAt: 1_250, status: 429, latencyMs: 12.345_678_9),
             UpstreamAttempt(startedAt: 3_001, status: 201, latencyMs: 7)],
            [UpstreamAttempt(startedAt: 1_000, status: 429, latencyMs: 2_000), UpstreamAttempt(startedAt: 1_500, status: 503, latencyMs: .nan),
             UpstreamAttempt(startedAt: 1_600, error: "timeout", latencyMs: 1e-7)],
            [UpstreamAttempt(startedAt: 1_000, status: 429, latencyMs: .infinity), UpstreamAttempt(startedAt: 9_000, status: 200, latencyMs: 1)],
        ]
        for attempts in attemptLists {
            let text = AuditCompletionColumns(AuditCompletion(finishedAt: 1, outcome: .forwarded, attempts: attempts), outcome: .forwarded, bodyLimit: 4096)[.attempts]
            let read = AuditRollupRow(intent: .init(receivedAt: 0), outcome: "forwarded", attempts: text.textValue).retryFigures
            #expect(AuditRetryFigures(attempts: attempts) == read, "\(attempts.count) attempts: \(String(describing: text.textValue))")
        }
        #expect(AuditRetryFigures(attempts: attemptLists[2]).rateLimited == 2, "the 429s are counted")

        let notifications = ["FIRST", "SECOND", "THIRD"].map { id in
            #"{"content":"Order","live_activity":{"event":"start","content-state":{"status":"Third"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"#
                + #""live_activity_id":""# + id + #"","devices":["DEVICE_TOKEN_AAAA1111"]}"#
        }
        let body = #"{"request":{"application":"XXXXX-XXXXX","auth":"SECRET_API_TOKEN","notifications":["# + notifications.joined(separator: ",") + "]}}"
        let route = try #require(InboundRoute.match(path: "/json/1.3/startLiveActivity"))
        let context = TranslationContext(now: 1_700_000_000, targetAppId: "op-app", deviceTargeting: .subscriptionIds, deviceTargetingConfigured: true)
        let translation = PushwooshDialect().translate(route: route, body: Array(body.utf8), context: context)
        #expect(translation.isForwardable && translation.requests.count == 3)
        let entry = AuditEntry(requestId: "RF1", receivedAt: 1, path: route.name, route: route, translation: translation, inboundBody: Array(body.utf8), keyFingerprint: nil)
        #expect(entry.openPushSends == 3 && AuditRollupRow.sends(translated: entry.translated) == 3)
        let refused = AuditEntry(requestId: "RF2", receivedAt: 1, path: route.name, route: route, translation: nil, inboundBody: [], keyFingerprint: nil)
        #expect(AuditRollupCounts(refused, nil).sends == nil && AuditRollupRow.sends(translated: refused.translated) == 1)
    }
}

/// The fold as it was before its keys were interned (`main` a2e9797): text keys, sorted by
/// comparing arrays of their texts, every figure read from the row's text (with the busiest
/// minute's counters of migration 20 added). The oracle of ``RollupFoldTests``.
struct TextKeyedFold {
    struct Key: Hashable {
        var minute: Int64
        var texts: [String]
        var integers: [Int64]

        static func < (a: Key, b: Key) -> Bool {
            if a.minute != b.minute { return a.minute < b.minute }
            return (a.texts + a.integers.map { "\($0)" }).lexicographicallyPrecedes(b.texts + b.integers.map { "\($0)" })
        }
    }

    var requests: [Key: [Double]] = [:]
    /// Readiness's OpenPush counters (migration 14) per request key.
    var openPush: [Key: ReadinessOpenPushCounts] = [:]
    var findings: [Key: (counts: [Int64], example: (String, String), judged: Int64, judgedExample: String)] = [:]
    /// The busiest minute's requests and sends (migration 20) per minute, instance, source app,
    /// app name and OpenPush app, of the requests with a dialect and route, neither rejected nor unhandled.
    var sends: [Key: (requests: Int64, sends: Int64)] = [:]

    mutating func add(_ row: AuditRollupRow, sign: Int64 = 1) {
        let i = row.intent
        let admitted: Int64 = row.outcome != AuditOutcome.rejected.rawValue || i.translated ? 1 : 0
        let key = Key(minute: i.receivedAt / 60_000, texts: [i.instance, i.sourceApp, i.appName, i.targetApp, i.dialect, i.route, row.outcome],
                      integers: [row.upstreamStatus ?? 0, admitted])
        let f = row.retryFigures, s = Double(sign)
        var c = requests[key] ?? [0, 0, 0, 0, 0, 0, 0, Double(Int64.max), Double(Int64.min)]
        let added = [s, s * Double(i.sends), s * (row.latencyMs ?? 0), s * Double(f.retried), s * Double(f.retries), s * Double(f.rateLimited), s * f.waitMs]
        for k in 0..<7 { c[k] += added[k] }
        (c[7], c[8]) = (min(c[7], Double(i.receivedAt)), max(c[8], Double(i.receivedAt)))
        requests[key] = c
        openPush[key, default: ReadinessOpenPushCounts()].add(row, sign: sign)
        if !i.dialect.isEmpty, !i.route.isEmpty, row.outcome != "rejected", row.outcome != "unhandled" {
            // In the table's key order: OpenPush app, app name, source app, instance.
            let sendKey = Key(minute: key.minute, texts: [i.targetApp, i.appName, i.sourceApp, i.instance], integers: [])
            sends[sendKey, default: (0, 0)].requests += sign
            sends[sendKey, default: (0, 0)].sends += sign * i.sends
        }
    }

    mutating func addFindings(_ rows: [[SQLiteValue]], appName: String, sign: Int64 = 1) {
        var seen = Set<Key>(), judged = Set<Key>()
        for row in rows {
            let id = row[0].textValue ?? "", at = row[5].integerValue ?? 0, raw = row[6].textValue ?? ""
            let key = Key(minute: at / 60_000, texts: [row[10].textValue ?? "", row[4].textValue ?? "", appName, row[2].textValue ?? "",
                                                       row[3].textValue ?? "", FieldPath.folded(raw), row[7].textValue ?? ""], integers: [])
            var c = findings[key] ?? ([0, 0, 0, .max, .min], ("", ""), 0, "")
            c.counts[1] += sign
            if seen.insert(key).inserted {
                c.counts[0] += sign
                if id > c.example.0 { c.example = (id, row[9].textValue ?? "") }
            }
            if raw != key.texts[5] { c.counts[2] = 1 }
            if ReadinessFindingRule.judges(kind: key.texts[6], severity: row[8].textValue ?? "", message: row[9].textValue ?? ""), judged.insert(key).inserted {
                c.judged += sign
                c.judgedExample = max(c.judgedExample, id)
            }
            (c.counts[3], c.counts[4]) = (min(c.counts[3], at), max(c.counts[4], at))
            findings[key] = c
        }
    }

    func statements() -> [AuditStatement] {
        // The figures are small whole numbers here (or the latency sums): exact as doubles.
        let requestRows = requests.sorted { $0.key < $1.key }.map { key, c -> [SQLiteValue] in
            [.integer(key.minute)] + key.texts.map { .text($0) } + key.integers.map { .integer($0) }
                + [.integer(Int64(c[0])), .integer(Int64(c[1])), .real(c[2]), .integer(Int64(c[3])), .integer(Int64(c[4])), .integer(Int64(c[5])),
                   .real(c[6]), .integer(Int64(c[7])), .integer(Int64(c[8]))] + (openPush[key] ?? ReadinessOpenPushCounts()).values
        }
        let findingRows = findings.sorted { $0.key < $1.key }.map { key, c -> [SQLiteValue] in
            [.integer(key.minute)] + key.texts.map { .text($0) } + c.counts.map { .integer($0) } + [.text(c.example.0), .text(c.example.1), .integer(c.judged), .text(c.judgedExample)]
        }
        func chunked(_ rows: [[SQLiteValue]], _ name: String, _ sql: (Int) -> String) -> [AuditStatement] {
            stride(from: 0, to: rows.count, by: 200).map { start in
                let chunk = rows[start..<min(rows.count, start + 200)]
                return AuditStatement(name: name, sql: sql(chunk.count), values: chunk.flatMap { $0 }, requestId: nil)
            }
        }
        let sendRows = sends.sorted { $0.key < $1.key }.map { key, c -> [SQLiteValue] in
            [.integer(key.minute)] + key.texts.map { .text($0) } + [.integer(c.requests), .integer(c.sends)]
        }
        return chunked(requestRows, "roll up requests", AuditRollupSchema.upsertRequestsSQL(rows:))
            + chunked(findingRows, "roll up findings", AuditRollupSchema.upsertFindingsSQL(rows:))
            + chunked(sendRows, "roll up the busiest minute's sends", AuditRollupMinuteSendsSchema.upsertSQL(rows:))
    }
}
