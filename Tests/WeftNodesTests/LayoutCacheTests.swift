import Testing
import WeftLayout
@testable import WeftNodes

/// A node's cache of layouts, by itself: four entries, one per range and scale, the oldest replaced by a fifth;
/// only slots that were stored are ever compared (an empty slot holds zeros, which a zero range would match).
@Suite("Layout cache")
struct LayoutCacheTests {
    /// A leaf's entry (no layout) for a range `width` wide at `version`, whose size is the range's max.
    private func entry(_ width: Double, version: UInt64 = 1, scale: Double = 2) -> LayoutCache.Entry {
        let range = SizeRange(min: .zero, max: Size(width, 10))
        return LayoutCache.Entry(range: range, scale: scale, version: version, size: range.max, layout: nil)
    }

    private func finds(_ cache: LayoutCache, _ width: Double, version: UInt64 = 1, scale: Double = 2) -> Bool {
        cache.lookup(SizeRange(min: .zero, max: Size(width, 10)), scale: scale, version: version) != nil
    }

    @Test("An empty cache answers nothing, not even the zero range that its empty slots hold")
    func empty() {
        var cache = LayoutCache()
        let zero = SizeRange(min: .zero, max: .zero)
        #expect(cache.lookup(zero, scale: 0, version: 0) == nil)
        #expect(cache.lookup(size: .zero, scale: 0, version: 0) == nil)
        // Emptied after use: the slots keep their old keys, which must not answer either.
        _ = cache.store(entry(10))
        #expect(finds(cache, 10))
        _ = cache.takeLayouts()
        #expect(!finds(cache, 10))
        #expect(cache.lookup(size: Size(10, 10), scale: 2, version: 1) == nil)
    }

    @Test("Four ranges are kept; a fifth replaces the oldest, and a stored range is replaced in place")
    func fourEntries() {
        var cache = LayoutCache()
        for width in [10.0, 20, 30, 40] { _ = cache.store(entry(width)) }
        #expect([10.0, 20, 30, 40].allSatisfy { finds(cache, $0) })
        _ = cache.store(entry(50))
        #expect(!finds(cache, 10), "the oldest went")
        #expect([20.0, 30, 40, 50].allSatisfy { finds(cache, $0) })
        // 30 again, at a newer version: its own slot, so 20 (now the oldest) stays.
        _ = cache.store(entry(30, version: 2))
        #expect(!finds(cache, 30, version: 1) && finds(cache, 30, version: 2))
        #expect([20.0, 40, 50].allSatisfy { finds(cache, $0) })
        _ = cache.store(entry(60))
        #expect(!finds(cache, 20) && finds(cache, 60))
        // Versions and scales are part of the key.
        #expect(!finds(cache, 40, version: 2) && !finds(cache, 40, scale: 3))
    }

    @Test("A range stored again is the newest: the least recently stored entry is the one replaced")
    func refreshedEntryStays() {
        var cache = LayoutCache()
        for width in [10.0, 20, 30, 40] { _ = cache.store(entry(width)) }
        // 10 again (a new version): stored in its own slot, and now the newest, so 20 is the oldest.
        _ = cache.store(entry(10, version: 2))
        _ = cache.store(entry(50))
        #expect(finds(cache, 10, version: 2), "the refreshed entry stays")
        #expect(!finds(cache, 20), "the least recently stored went")
        #expect([30.0, 40, 50].allSatisfy { finds(cache, $0) })
    }

    @Test("A lookup by size finds the newest entry of that size, also after ranges were stored again in place")
    func bySizeAfterInPlace() throws {
        var cache = LayoutCache()
        // Two ranges whose entries have the same size, at version 1, then both again at version 2 in the other
        // order: the newest is 10's.
        for (width, version) in [(10.0, UInt64(1)), (20, 1), (20, 2), (10, 2)] {
            let range = SizeRange(min: .zero, max: Size(width, 10))
            _ = cache.store(LayoutCache.Entry(range: range, scale: 2, version: version, size: Size(8, 8), layout: nil))
        }
        let found = try #require(cache.lookup(size: Size(8, 8), scale: 2, version: 2))
        #expect(found.range.max.width == 10)
    }

    @Test("A lookup by size finds the newest entry of that size")
    func bySize() throws {
        var cache = LayoutCache()
        // Two ranges whose entries have the same size (a leaf that measures 8 x 8 in either).
        for width in [10.0, 20] {
            let range = SizeRange(min: .zero, max: Size(width, 10))
            _ = cache.store(LayoutCache.Entry(range: range, scale: 2, version: 1, size: Size(8, 8), layout: nil))
        }
        let found = try #require(cache.lookup(size: Size(8, 8), scale: 2, version: 1))
        #expect(found.range.max.width == 20)
        #expect(cache.lookup(size: Size(8, 9), scale: 2, version: 1) == nil)
    }
}
