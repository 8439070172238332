import FeedServerCore
import HummingbirdTesting
import Testing

/// The byte-bounded LRU on its own, and the cell cache as requests see it.
@Suite struct CacheTests {
    @Test func lookupsCountHitsAndMisses() {
        var lru = ByteBoundedLRU<String, Int>(capacity: 100)
        #expect(lru.value(for: "a") == nil)
        lru.insert(1, for: "a", cost: 10)
        #expect(lru.value(for: "a") == 1)
        #expect(lru.value(for: "a") == 1)
        #expect(lru.value(for: "b") == nil)
        #expect((lru.hits, lru.misses, lru.count, lru.bytes) == (2, 2, 1, 10))
    }

    @Test func theByteBoundEvictsTheLeastRecentlyUsedFirst() {
        var lru = ByteBoundedLRU<String, Int>(capacity: 30)
        lru.insert(1, for: "a", cost: 10)
        lru.insert(2, for: "b", cost: 10)
        lru.insert(3, for: "c", cost: 10)
        #expect(lru.keysFromNewest == ["c", "b", "a"])
        _ = lru.value(for: "a")  // a is now the most recent; b the least
        #expect(lru.keysFromNewest == ["a", "c", "b"])
        let dropped = lru.insert(4, for: "d", cost: 10)
        #expect(dropped == [2])
        #expect(lru.keysFromNewest == ["d", "a", "c"])
        // 25 bytes more need three 10-byte entries gone: c, a, then d.
        lru.insert(5, for: "e", cost: 25)
        #expect(lru.keysFromNewest == ["e"])
        #expect((lru.bytes, lru.evictions) == (25, 4))
    }

    @Test func anEntryLargerThanTheBoundIsNotKept() {
        var lru = ByteBoundedLRU<String, Int>(capacity: 30)
        lru.insert(1, for: "a", cost: 10)
        lru.insert(2, for: "big", cost: 31)
        #expect(lru.keysFromNewest == ["a"])
        #expect(lru.bytes == 10)
        var none = ByteBoundedLRU<String, Int>(capacity: 0)
        none.insert(1, for: "a", cost: 1)
        #expect(none.count == 0)
    }

    @Test func replacingAKeyReplacesItsCost() {
        var lru = ByteBoundedLRU<String, Int>(capacity: 30)
        lru.insert(1, for: "a", cost: 10)
        lru.insert(2, for: "b", cost: 10)
        #expect(lru.insert(3, for: "a", cost: 15) == [1])
        #expect((lru.bytes, lru.count, lru.evictions) == (25, 2, 0))
        #expect(lru.keysFromNewest == ["a", "b"])
        #expect(lru.value(for: "a") == 3)
    }

    @Test func slotsAreReusedOverManyInsertions() {
        var lru = ByteBoundedLRU<Int, Int>(capacity: 50)
        for i in 0..<10_000 { lru.insert(i, for: i, cost: 10) }
        #expect(lru.keysFromNewest == [9_999, 9_998, 9_997, 9_996, 9_995])
        #expect((lru.bytes, lru.evictions) == (50, 9_995))
    }

    @Test func aCellCostsItsKeyAndOutputBytesAndItsOverhead() {
        let cache = CellCache(capacity: 1_000)
        let key = CellKey(content: "{\"type\":\"box\"}", width: 375, format: .flat)
        cache.insert(CachedCell(output: "{}\n", elementCount: 1), for: key)
        #expect(cache.statistics.bytes == 14 + 3 + CellCache.entryOverhead)
        #expect(cache.value(for: key) == CachedCell(output: "{}\n", elementCount: 1))
        #expect(cache.value(for: CellKey(content: key.content, width: 320, format: .flat)) == nil)
        #expect(cache.value(for: CellKey(content: key.content, width: 375, format: .tree)) == nil)
        #expect((cache.statistics.hits, cache.statistics.misses) == (1, 2))
    }

    @Test func theOverheadCountsStringHeadersAndBookkeeping() {
        // Two heap strings (32-byte header, 32 for malloc) and, in the LRU, up to two slots of a key, a value,
        // a cost and two links, 8/3 index buckets of a key and a slot number, and two free-list entries.
        let key = MemoryLayout<CellKey>.stride
        let slot = MemoryLayout<CellKey?>.stride + MemoryLayout<CachedCell?>.stride + 3 * 8
        #expect(CellCache.entryOverhead >= 128 + 2 * slot + 8 * (key + 8) / 3 + 16)
        #expect(CellCache.entryOverhead < 128 + 2 * (slot + 16) + 8 * (key + 8) / 3 + 16 + 8)
        // So tiny cells cannot outnumber the bound: 100 cells of 17 bytes of text need 100 * (17 + overhead).
        let cache = CellCache(capacity: 10 * (17 + CellCache.entryOverhead))
        for i in 0..<100 {
            cache.insert(CachedCell(output: "{}\n", elementCount: 1), for: CellKey(content: "{\"t\":\(1_000_000 + i)}", width: 1, format: .flat))
        }
        #expect(cache.statistics.entries == 10)
    }

    @Test func aRepeatedCellIsAHit() async throws {
        try await withServer { client, server in
            let first = try await client.layout(Samples.twoBoxes, query: "?width=320")
            #expect(server.service.cache.statistics.hits == 0)
            #expect(server.service.cache.statistics.misses == 1)
            let second = try await client.layout(Samples.twoBoxes, query: "?width=320")
            #expect(second.text == first.text)
            #expect(server.service.cache.statistics.hits == 1)
            // The key is the cell's text as received, less surrounding whitespace: the same text in a page
            // hits too. Spelled differently, the same content is another entry (with the same answer).
            #expect(try await client.layout("\n  " + Samples.twoBoxes + "\n", query: "?width=320").text == first.text)
            #expect(server.service.cache.statistics.hits == 2)
            let page = try await client.layout(Samples.page([Samples.twoBoxes, Samples.twoBoxes], width: 320))
            #expect(page.pageFrames?.count == 2)
            #expect(server.service.cache.statistics.hits == 4)
            let respelled = Samples.twoBoxes.replacingOccurrences(of: "\"spacing\": 10", with: "\"spacing\": 1e1")
            #expect(respelled.contains("\"spacing\": 1e1,"))
            #expect(try await client.layout(respelled, query: "?width=320").text == first.text)
            #expect(server.service.cache.statistics.misses == 2)
            // Another width or format is another entry.
            _ = try await client.layout(Samples.twoBoxes, query: "?width=321")
            _ = try await client.layout(Samples.twoBoxes, query: "?width=320&format=tree")
            #expect(server.service.cache.statistics.misses == 4)
            #expect(server.service.cache.statistics.entries == 4)
        }
    }

    @Test func theServersByteBoundEvictsTheLeastRecentlyUsedCell() async throws {
        // Each of these cells costs its text, `{"type": "box", "id": "a", "size": [10.0, 10.0]}` (48 bytes), and
        // its output, `{\n  "a": [0, 0, 375, 10]\n}\n` (27 bytes): 75, and the overhead. Room for two.
        let cells = ["a", "b", "c"].map { Samples.box($0) }
        let cost = 75 + CellCache.entryOverhead
        try await withServer(testConfiguration { $0.cacheBytes = 2 * cost + 10 }) { client, server in
            let cache = server.service.cache
            for cell in [cells[0], cells[1], cells[0], cells[2]] {  // a, b, a (hit), c (evicts b)
                let response = try await client.layout(cell)
                #expect(response.status == .ok)
            }
            let before = cache.statistics
            #expect((before.hits, before.misses, before.evictions, before.entries) == (1, 3, 1, 2))
            #expect(before.bytes == 2 * cost)
            let a = try await client.layout(cells[0])  // a: still there
            let b = try await client.layout(cells[1])  // b: gone, laid out again (evicts c)
            #expect(a.status == .ok && b.status == .ok)
            let after = cache.statistics
            #expect((after.hits, after.misses, after.evictions) == (2, 4, 2))
        }
    }

    @Test func bodiesParsedWholeAreCachedByTheirCanonicalText() async throws {
        // A member name with an escape is out of the scanner's plain shape: the body is parsed whole, and its
        // cells are keyed by their canonical text, whatever their spelling.
        let page = "{\"c\\u0065lls\": [\(Samples.twoBoxes)], \"width\": 320}"
        let respelled = "{\"c\\u0065lls\": [\(Samples.twoBoxes.replacingOccurrences(of: " ", with: ""))], \"width\": 320}"
        try await withServer { client, server in
            let first = try await client.layout(page)
            #expect(first.pageFrames == [["s": [0, 0, 320, 60], "a": [0, 0, 100, 20], "b": [0, 30, 50, 30]]])
            let second = try await client.layout(respelled)
            #expect(second.text == first.text)
            let statistics = server.service.cache.statistics
            #expect((statistics.hits, statistics.misses) == (1, 1))
        }
    }

    @Test func aZeroByteCacheIsOff() async throws {
        try await withServer(testConfiguration { $0.cacheBytes = 0 }) { client, server in
            for _ in 0..<3 {
                let response = try await client.layout(Samples.twoBoxes)
                #expect(response.status == .ok)
            }
            let statistics = server.service.cache.statistics
            #expect((statistics.hits, statistics.misses, statistics.entries, statistics.bytes) == (0, 0, 0, 0))
        }
    }
}
