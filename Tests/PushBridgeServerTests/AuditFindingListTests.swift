import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The findings' inline list (``AuditRowEncoding/findingList(_:)``) written into one buffer
/// reserved for it: the same bytes as the list grown from a guess of 96 bytes per finding,
/// and room enough that the buffer does not grow for findings without control bytes.
struct AuditFindingListTests {
    /// The list as `main` (`c6a4320`) wrote it: the oracle of the bytes.
    static func grownList(_ rows: [[SQLiteValue]]) -> SQLiteValue {
        guard !rows.isEmpty else { return .null }
        let positions = ["field", "kind", "severity", "message"].compactMap { AuditStatements.findingColumns.firstIndex(of: $0) }
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(rows.count * 96)
        for (index, row) in rows.enumerated() {
            bytes.append(contentsOf: index == 0 ? [UInt8(ascii: "[")] : [UInt8(ascii: ","), UInt8(ascii: "[")])
            for (position, column) in positions.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(row.indices.contains(column) ? row[column].textValue ?? "" : "", into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    static func entry(_ findings: [Finding]) -> AuditEntry {
        var entry = sampleEntry("L", findings: 0)
        entry.findings = findings
        return entry
    }

    /// Findings whose texts have at most one byte to escape in four, as PushBridge's do.
    static let usual: [[Finding]] = [
        [Finding(field: "headings", kind: .renamed, message: "carried as title")],
        [Finding(field: "contents.en", kind: .dropped, message: #"a "quoted" \ value, then more text to pass 96 bytes: "# + String(repeating: "é", count: 80)),
         Finding(field: "include_player_ids[3]", kind: .converted, message: String(repeating: #"the "title" field, "#, count: 12)),
         Finding(field: "", kind: .dropped, message: "")],
        (0..<12).map { Finding(field: "field\($0)", kind: $0 % 2 == 0 ? .dropped : .renamed, message: String(repeating: "m", count: $0 * 37)) },
    ]

    /// Every case: none, the usual ones, and texts all escapes and control bytes (the buffer grows for those).
    static let cases: [[Finding]] = [[]] + usual + [
        [Finding(field: "a\u{1}b", kind: .dropped, message: "tab\there, newline\nthere, NUL-free control \u{1F}"),
         Finding(field: "quotes", kind: .converted, message: String(repeating: #"""#, count: 40))],
    ]

    @Test(arguments: cases) func theListIsTheSameBytesAsTheGrownOne(findings: [Finding]) {
        let rows = AuditRowEncoding.findingRows(Self.entry(findings), instance: "pb-1")
        #expect(AuditRowEncoding.findingList(rows) == Self.grownList(rows))
        #expect(rows.count == findings.count)
        #expect(rows.enumerated().allSatisfy { $0.element[1] == .integer(Int64($0.offset)) }, "each row's ordinal is its place")
    }

    /// The reserve covers the list (quotes and backslashes escaped, multi-byte characters):
    /// the guess of 96 bytes per finding before did not for a long message, and grew the buffer.
    @Test func theReserveCoversTheListOfFindingsWithoutControlBytes() throws {
        for findings in Self.usual {
            let rows = AuditRowEncoding.findingRows(Self.entry(findings), instance: "pb-1")
            let listed = try #require(AuditRowEncoding.findingList(rows).textValue)
            #expect(AuditRowEncoding.findingListCapacity(rows) >= listed.utf8.count, "\(findings.count) findings")
        }
        let long = AuditRowEncoding.findingRows(Self.entry(Self.usual[1]), instance: "pb-1")
        #expect(try #require(AuditRowEncoding.findingList(long).textValue).utf8.count > long.count * 96, "the case the guess did not cover")
    }
}
