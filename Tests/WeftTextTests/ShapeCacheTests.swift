import Testing
import WeftText

/// The shaping cache: what hits (another width, size, line limit or spacing amount), what misses (other
/// text, fonts, features, spacing on or off), its bound, and that it never changes a result.
@Suite("Shaping cache")
struct ShapeCacheTests {
    func fresh(capacity: Int = FontMeasurer.defaultCacheCapacity) -> FontMeasurer {
        FontMeasurer(registry: Support.measurer.registry, cacheCapacity: capacity)
    }

    @Test("Re-measuring at another width, size or line limit is a hit")
    func hits() throws {
        let measurer = fresh()
        let text = "The quick brown fox jumps over the lazy dog"
        let first = try measurer.measure(text, style: TextStyle(size: 14), width: 200)
        #expect(measurer.cacheStatistics.misses == 1 && measurer.cacheStatistics.hits == 0)
        _ = try measurer.measure(text, style: TextStyle(size: 14), width: 90)
        _ = try measurer.measure(text, style: TextStyle(size: 20, lineHeight: 30), width: 90)
        _ = try measurer.measure(text, style: TextStyle(size: 14), paragraph: ParagraphStyle(maximumNumberOfLines: 1), width: 90)
        var statistics = measurer.cacheStatistics
        // The truncated measurement also looks up its token: one more miss.
        #expect(statistics.hits == 3 && statistics.misses == 2 && statistics.entries == 2)
        #expect(try measurer.measure(text, style: TextStyle(size: 14), width: 200) == first)
        _ = try measurer.measure(text, style: TextStyle(size: 14, letterSpacing: 1))
        _ = try measurer.measure(text, style: TextStyle(size: 14, letterSpacing: 2))
        _ = try measurer.measure(text, style: TextStyle(size: 14, weight: 700))
        _ = try measurer.measure(text, style: TextStyle(size: 14, features: [FontFeature("liga", 0)]))
        _ = try measurer.measure(text + ".", style: TextStyle(size: 14))
        statistics = measurer.cacheStatistics
        // Spacing on: a miss (ligatures off), then another amount: a hit; bold, a feature, other text: misses.
        #expect(statistics.hits == 5 && statistics.misses == 6)
        #expect(statistics.hitRate == 5.0 / 11.0)
    }

    @Test("Canonically equivalent strings are different texts to the cache")
    func codeUnits() throws {
        // "é" (U+00E9) and "e" + U+0301 are equal Swift Strings, but one UTF-16 unit against two.
        let measurer = fresh()
        let composed = try measurer.measure("caf\u{E9} au lait", style: TextStyle(size: 10), width: 30)
        let decomposed = try measurer.measure("cafe\u{301} au lait", style: TextStyle(size: 10), width: 30)
        #expect(measurer.cacheStatistics.misses == 2)
        #expect(composed.lines.map(\.range) == [0..<5, 5..<12])
        #expect(decomposed.lines.map(\.range) == [0..<6, 6..<13])
        // KELVIN SIGN is canonically equivalent to K, with the same length, but it is another character
        // (another glyph in Noto Sans: hb-shape gives uni212A): another entry.
        _ = try measurer.measure("K", style: TextStyle(size: 10))
        _ = try measurer.measure("\u{212A}", style: TextStyle(size: 10))
        #expect(measurer.cacheStatistics.misses == 4)
    }

    @Test("A cached measurement equals a fresh one, at every width")
    func sameResults() throws {
        let cached = fresh()
        let text = AttributedText([("Hello ", TextStyle(size: 13)), ("wörld 日本語 👍🏽 مرحبا", TextStyle(size: 15, weight: 700))],
                                  paragraph: ParagraphStyle(maximumNumberOfLines: 2))
        for width in stride(from: 10.0, through: 300, by: 7) {
            let again = try cached.measure(text, constraints: TextConstraints(width: width))
            let cold = try fresh().measure(text, constraints: TextConstraints(width: width))
            #expect(again == cold, "width \(width)")
        }
        #expect(cached.cacheStatistics.hits > 40)
    }

    @Test("The cache stays within its capacity, evicting the oldest unused entries")
    func bounded() throws {
        let measurer = fresh(capacity: 256 << 10)
        for index in 0..<2_000 {
            _ = try measurer.measure("Comment number \(index) with a few words of text to shape", width: 200)
        }
        let statistics = measurer.cacheStatistics
        #expect(statistics.bytes <= 256 << 10)
        #expect(statistics.evictions > 0 && statistics.entries + statistics.evictions == 2_000)
        // Texts larger than an eighth of a shard are measured but not kept.
        let tiny = fresh(capacity: 16 << 10)
        _ = try tiny.measure(String(repeating: "long text ", count: 1_000))
        #expect(tiny.cacheStatistics.entries == 0 && tiny.cacheStatistics.misses == 1)
    }
}
