import Dispatch
import Foundation
import Testing
import WeftText

/// Many threads measuring the same and different texts with one measurer (one cache, shared fonts) get
/// exactly what one thread gets. Run under the Thread Sanitizer in CI.
@Suite("Concurrent measuring")
struct ConcurrencyTests {
    static let texts: [AttributedText] = {
        let samples = ["The quick brown fox jumps over the lazy dog", "office AV Wa", "日本語のテキストを測る。",
                       "👩‍👩‍👧‍👦 family 🇯🇵 flag", "مرحبا بالعالم hello", "שלום עולם", "नमस्ते दुनिया", "e\u{301}a\u{308}",
                       "https://example.com/weft/layout?text=harfbuzz"]
        var texts: [AttributedText] = []
        for (index, sample) in samples.enumerated() {
            for variant in 0..<12 {
                let string = variant % 3 == 0 ? sample : "\(sample) #\(variant)"
                texts.append(AttributedText(string, style: TextStyle(size: Double(10 + variant % 4), weight: index % 2 == 0 ? 400 : 700),
                                            paragraph: ParagraphStyle(maximumNumberOfLines: variant % 5)))
            }
        }
        return texts
    }()

    static let widths: [Double] = [40, 90, 160, .infinity]

    @Test("Threads measuring shared and distinct texts agree with one thread")
    func agree() throws {
        let reference = FontMeasurer(registry: Support.measurer.registry)
        var layouts: [TextLayout] = []
        for text in Self.texts {
            for width in Self.widths { layouts.append(try reference.measure(text, constraints: TextConstraints(width: width))) }
        }
        let expected = layouts
        // A small cache, so that threads also evict while others read.
        let shared = FontMeasurer(registry: Support.measurer.registry, cacheCapacity: 64 << 10)
        let lanes = 16
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for round in 0..<3 {
                for index in 0..<expected.count where (index + lane + round) % 2 == 0 {
                    let text = Self.texts[index / Self.widths.count]
                    let width = Self.widths[index % Self.widths.count]
                    let layout = try? shared.measure(text, constraints: TextConstraints(width: width))
                    if layout != expected[index] { mismatches.add() }
                }
            }
        }
        #expect(mismatches.value == 0)
        #expect(shared.cacheStatistics.hits > 0)
    }

    @Test("Threads making their own measurers over one registry agree too")
    func separateMeasurers() {
        let mismatches = Counter()
        let text = AttributedText("Weft lays out 日本語 and 👍🏽 on any thread", style: TextStyle(size: 13))
        let expected = try? Support.measurer.measure(text, constraints: TextConstraints(width: 120))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let measurer = FontMeasurer(registry: Support.measurer.registry)
            if (try? measurer.measure(text, constraints: TextConstraints(width: 120))) != expected { mismatches.add() }
        }
        #expect(mismatches.value == 0 && expected != nil)
    }
}

/// A counter for test threads (NSLock: a pthread mutex, which the Thread Sanitizer models).
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched with `lock` held.
    private var count = 0
    private let lock = NSLock()

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
