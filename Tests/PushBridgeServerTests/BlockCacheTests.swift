import CBlockCache
import Foundation
import Testing
@testable import PushBridgeServer

/// The per-thread block cache SQLite and libcurl allocate through (`Sources/CBlockCache`,
/// issue 31's allocations per request): a freed block is the next allocation of its size on
/// its thread, contents survive a resize, and both libraries really go through it. Each test
/// is synchronous, so its whole body runs on one thread and reads that thread's figures.
struct BlockCacheTests {
    @Test func aFreedBlockIsTheNextAllocationOfItsSizeOnItsThreadWithoutMalloc() throws {
        let first = try #require(pb_block_alloc(100))
        #expect(pb_block_size(first) == 128 && pb_block_roundup(100) == 128, "sizes round up to a power of two from 64")
        #expect(Int(bitPattern: first) % 16 == 0, "blocks keep malloc's 16-byte alignment")
        pb_block_free(first)
        let before = pb_block_cache_thread_stats()
        let again = try #require(pb_block_alloc(120))
        let after = pb_block_cache_thread_stats()
        #expect(again == first, "the freed block of that size comes back")
        #expect(after.hits == before.hits + 1 && after.misses == before.misses)
        pb_block_free(again)
        // Above the largest cached size: exact (8-aligned) sizes, straight to malloc and free.
        #expect(pb_block_roundup(5000) == 5000 && pb_block_roundup(5001) == 5008)
        // A 2 KiB page's buffer (about 2.3 KiB with SQLite's header) is not rounded up to 4 KiB:
        // the audit's page caches take no more memory than with malloc.
        #expect(pb_block_roundup(2_300) == 2_304 && pb_block_roundup(2_049) == 2_056)
        let large = try #require(pb_block_alloc(5001))
        #expect(Int(bitPattern: large) % 16 == 0)
        let missesBefore = pb_block_cache_thread_stats().misses
        pb_block_free(large)
        let other = try #require(pb_block_alloc(5001))
        #expect(pb_block_cache_thread_stats().misses == missesBefore + 1, "a large block is never cached")
        pb_block_free(other)
    }

    @Test(arguments: [(10, 60), (60, 3000), (3000, 9000), (9000, 20000), (20000, 200), (4096, 4096)])
    func aResizedBlockKeepsItsBytesUpToTheSmallerSize(from: Int, to: Int) throws {
        let block = try #require(pb_block_alloc(from)).assumingMemoryBound(to: UInt8.self)
        for i in 0..<from { block[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
        let resized = try #require(pb_block_realloc(block, to)).assumingMemoryBound(to: UInt8.self)
        #expect(pb_block_size(resized) >= to && pb_block_size(resized) == pb_block_roundup(to))
        #expect((0..<min(from, to)).allSatisfy { resized[$0] == UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        pb_block_free(resized)
        let zeroed = try #require(pb_block_calloc(3, 50)).assumingMemoryBound(to: UInt8.self)
        #expect((0..<150).allSatisfy { zeroed[$0] == 0 })
        pb_block_free(zeroed)
    }

    @Test func sqliteStepsAnAuditSizedRowWithoutMallocOnceWarm() throws {
        try withTemporaryDirectory("pushbridge-blockcache") { directory in
            let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
            try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT, translated TEXT, note TEXT)")
            try database.execute("INSERT INTO rows (id) VALUES (1)")
            // What the audit does per request, on a row that keeps its pages: values bound (copied
            // by SQLite), a record built and written, then read back.
            let write = try database.prepare("UPDATE rows SET body = ?, translated = ?, note = ? WHERE id = 1")
            let read = try database.prepare("SELECT body, translated, note FROM rows WHERE id = 1")
            let body = String(repeating: "{\"contents\":{\"en\":\"x\"}}", count: 40)
            func round(_ n: Int) throws {
                try write.reset()
                try write.bind([.text(body), .text(body + body), .text("note \(n)")])
                try write.run()
                try read.reset()
                #expect(try read.step() && read.value(at: 0) == .text(body))
            }
            for n in 1...20 { try round(n) }
            let warm = pb_block_cache_thread_stats()
            for n in 21...120 { try round(n) }
            let after = pb_block_cache_thread_stats()
            // Each round's copies of its values are SQLite allocations, served from the cache
            // (without it SQLite calls malloc for each: no hits at all); its record, about 2.9 KiB,
            // is above the largest cached size (2 KiB) and is one malloc a round.
            #expect(after.hits - warm.hits >= 300, "SQLite does not allocate through the cache: \(after.hits - warm.hits) hits in 100 rounds")
            #expect(after.misses - warm.misses <= 100 + 50, "SQLite mallocs more than its record per round: \(after.misses - warm.misses) misses in 100 rounds")
        }
    }

    @Test func libcurlAllocatesThroughTheCache() throws {
        // A header list is built by curl (curl_slist_append: a node and a copy of each line).
        let headers = [(name: "Content-Type", value: "application/json"), (name: "X-Long-Header", value: String(repeating: "v", count: 200))]
        _ = try CurlHeaderList(headers: headers, userAgent: "pushbridge-test")
        let before = pb_block_cache_thread_stats()
        _ = try CurlHeaderList(headers: headers, userAgent: "pushbridge-test")
        let after = pb_block_cache_thread_stats()
        #expect(after.hits - before.hits >= 6, "curl's copies of three lines and their nodes come from the blocks the first list freed")
        #expect(after.misses == before.misses)
    }
}
