import FeedServerCore
import Testing

/// A server reading the shared cache (the tests' own RESP2 server, ``RedisClientTests/FakeRedis``): entries
/// another instance wrote are used, and hostile ones are counted misses that never crash it or change an
/// answer.
@Suite struct SharedCacheEntryTests {
    static func configuration(_ redis: RedisClientTests.FakeRedis) -> FeedServerConfiguration {
        testConfiguration {
            $0.redis = redis.address
            $0.redisTimeout = .seconds(5)
        }
    }

    /// The value of `name` (labels included) on `server`, 0 when it has no series yet.
    static func count(_ server: FeedServer, _ name: String) -> Double { metric(server, name) ?? 0 }

    @Test func cellsOneInstanceLaidOutAreServedToAnotherFromRedisInBothFormats() async throws {
        let redis = try await RedisClientTests.FakeRedis()
        let page = Samples.page([Samples.twoBoxes, Samples.endRow, Samples.photoCell(3)], width: 320)
        for format in ["flat", "tree"] {
            let first = try await withServer(Self.configuration(redis)) { client, server in
                let response = try await client.layout(page, query: "?format=\(format)")
                #expect(response.status == .ok)
                #expect(try await eventually { Self.count(server, "weft_cache_l2_writes_total") == 3 })
                return response.text
            }
            try await withServer(Self.configuration(redis)) { client, server in
                let response = try await client.layout(page, query: "?format=\(format)")
                #expect(response.status == .ok)
                #expect(response.text == first)
                #expect(Self.count(server, "weft_cache_l2_hits_total") == 3, "\(format)")
                #expect(Self.count(server, "weft_cells_laid_out_total") == 0, "\(format)")
            }
        }
    }

    /// What a forged entry claims for the box `id`: frames no layout at width 300 gives, so using one shows.
    static func wrong(_ id: String) -> String { "{\n  \"\(id)\": [1, 2, 3, 4]\n}\n" }

    @Test func hostileEntriesAreCountedMissesAndTheAnswerIsRight() async throws {
        let redis = try await RedisClientTests.FakeRedis()
        let ids = ["a", "b", "c", "d", "e", "f", "g"]
        let cells = ids.map { Samples.box($0, height: 20) }
        let width = 300.0
        try await withServer(Self.configuration(redis)) { client, server in
            let shared = try #require(server.service.shared)
            var entries: [String: [UInt8]] = [:]
            for (id, cell) in zip(ids, cells) {
                let key = CellKey(content: cell, width: width, format: .flat)
                let text = key.storageText
                let entry: [UInt8]
                switch id {
                case "a":  // lengths whose sum overflows
                    entry = CellEntryTests.entry("1", "\(Int.max)", "\(Int.max)", key: text, output: Self.wrong(id))
                case "b", "c":  // two cells claiming Int.max elements (their sum overflows)
                    entry = CellEntry.encode(key: text, CachedCell(output: Self.wrong(id), elementCount: .max))
                case "d":  // one over the request's element limit, on a one-element cell
                    entry = CellEntry.encode(key: text, CachedCell(output: Self.wrong(id), elementCount: 5_001))
                case "e":  // a valid entry whose count is changed afterwards
                    var tampered = CellEntry.encode(key: text, CachedCell(output: Self.wrong(id), elementCount: 1))
                    let header = String(decoding: tampered.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self)
                    let countAt = header.split(separator: " ", maxSplits: 2)[0...1].map { $0.utf8.count + 1 }.reduce(0, +)
                    tampered[countAt] = UInt8(ascii: "0")
                    entry = tampered
                case "f":  // an output that is not JSON
                    entry = CellEntry.encode(key: text, CachedCell(output: "<html>", elementCount: 1))
                default:  // two objects
                    entry = CellEntry.encode(key: text, CachedCell(output: Self.wrong(id) + Self.wrong(id), elementCount: 1))
                }
                entries[shared.redisKey(key)] = entry
            }
            redis.store.withLockedValue { $0.merge(entries) { $1 } }

            let response = try await client.layout(Samples.page(cells, width: width))
            #expect(response.status == .ok)
            let expected: [[String: [Double]]] = ids.map { [$0: [0, 0, width, 20]] }
            #expect(response.pageFrames == expected)
            #expect(Self.count(server, "weft_cache_l2_hits_total") == 0)
            #expect(Self.count(server, "weft_cache_l2_misses_total") == 7)
            #expect(Self.count(server, "weft_cells_laid_out_total") == 7)
            let corrupt = { (reason: String) in Self.count(server, "weft_cache_l2_corrupt_total{reason=\"\(reason)\"}") }
            #expect(corrupt("truncated") == 1)
            #expect(corrupt("elements") == 3)
            #expect(corrupt("checksum") == 1)
            #expect(corrupt("output") == 2)

            // Afterwards, a valid request for the same cells (from the in-process cache) and one for a cell
            // never seen still answer 200 with the right layout.
            let again = try await client.layout(Samples.page(cells, width: width))
            #expect(again.status == .ok)
            #expect(again.pageFrames == expected)
            let fresh = try await client.layout(Samples.twoBoxes, query: "?width=320")
            #expect(fresh.status == .ok)
            #expect(fresh.flatFrames == ["s": [0, 0, 320, 60], "a": [0, 0, 100, 20], "b": [0, 30, 50, 30]])
        }
    }
}
