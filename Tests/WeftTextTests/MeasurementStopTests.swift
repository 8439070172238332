import Synchronization
import Testing
@testable import WeftText

/// A measurement asks its caller's hook once for every `StopCheck.interval` steps of work, and ends with a limit
/// error when it answers yes; a stopped shaping is not cached.
@Suite("Stopping a text measurement")
struct MeasurementStopTests {
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
        let stopAt: Int

        init(stopAt: Int = .max) {
            self.stopAt = stopAt
        }

        /// Counts the call; true from the `stopAt`-th on.
        func ask() -> Bool {
            count.add(1, ordering: .relaxed).newValue >= stopAt
        }

        var asked: Int { count.load(ordering: .relaxed) }
    }

    func fresh() -> FontMeasurer {
        FontMeasurer(registry: Support.measurer.registry)
    }

    /// "abcd " `words` times, at a width that holds one word and not two: `words` lines.
    func words(_ words: Int) throws -> (text: AttributedText, constraints: TextConstraints) {
        let word = try Support.measurer.measure("abcd").width
        return (AttributedText(String(repeating: "abcd ", count: words)), TextConstraints(width: word * 1.5))
    }

    /// The asks a measurement of `words` words makes, from the steps ``StopCheck`` counts: the ASCII text's
    /// `length` units passed five times (grapheme clusters, line breaks, itemizing, shaping, breaking lines), 64
    /// for each line set, and 64 for each HarfBuzz call, one per chunk of at most 4,096 units cut after a space
    /// in its last quarter (so at least 3,072 long but the last).
    func askBounds(words: Int) -> ClosedRange<Int> {
        let length = 5 * words
        let fewestCalls = (length + 4095) / 4096, mostCalls = length / 3072 + 1
        let steps = 5 * length + StopCheck.callSteps * words
        return (steps + StopCheck.callSteps * fewestCalls) / StopCheck.interval
            ... (steps + StopCheck.callSteps * mostCalls) / StopCheck.interval
    }

    @Test("A hook that never says stop is asked once per interval of work, in proportion to the text, and changes nothing")
    func askedInProportion() throws {
        for count in [20_000, 40_000] {
            let (text, constraints) = try words(count)
            let calls = Calls()
            let stopped = try fresh().measure(text, constraints: constraints, shouldStop: { calls.ask() })
            let plain = try fresh().measure(text, constraints: constraints)
            #expect(stopped == plain)
            #expect(plain.lines.count == count)
            #expect(askBounds(words: count).contains(calls.asked), "\(calls.asked) asks for \(count) words")
        }
        // (About 109 asks for 20,000 words, 218 for 40,000.)
        #expect(askBounds(words: 40_000).lowerBound >= 2 * askBounds(words: 20_000).upperBound - 2)
    }

    @Test("A hook that says stop ends the measurement at its next ask with a limit error")
    func stopsAtTheNextAsk() throws {
        let (text, constraints) = try words(20_000)
        for stopAt in [1, 3, askBounds(words: 20_000).lowerBound] {
            let calls = Calls(stopAt: stopAt)
            #expect(throws: TextError(TextError.stoppedReason, path: "string", kind: .limit)) {
                _ = try fresh().measure(text, constraints: constraints, shouldStop: { calls.ask() })
            }
            #expect(calls.asked == stopAt)
        }
    }

    @Test("A stopped shaping is not cached: measured again without the hook, the text is shaped whole")
    func stoppedIsNotCached() throws {
        // 20,000 units: about 300 KB shaped, small enough to be cached (an eighth of a shard, 512 KB).
        let (text, constraints) = try words(4000)
        let measurer = fresh()
        // The first ask comes while shaping: the first pass counts all 20,000 units.
        #expect(throws: TextError(TextError.stoppedReason, path: "string", kind: .limit)) {
            _ = try measurer.measure(text, constraints: constraints, shouldStop: { true })
        }
        #expect(measurer.cacheStatistics.entries == 0)
        let again = try measurer.measure(text, constraints: constraints)
        #expect(measurer.cacheStatistics.misses == 2 && measurer.cacheStatistics.entries == 1)
        #expect(again == (try fresh().measure(text, constraints: constraints)))
        #expect(again.lines.count == 4000)
    }

    @Test("Mixed-direction text: each one-unit bidi run is a HarfBuzz call, counted as such, and the text stops")
    func mixedDirection() throws {
        // "א1" 32,768 times: 65,536 units in 65,536 one-unit segments (alef at level 1, each digit at level 2), set
        // on one line (no width). Steps: the units passed five times (grapheme clusters, line breaks, itemizing,
        // shaping, breaking lines), 64 per HarfBuzz call (one per segment) and 64 for the line.
        let units = 65_536
        let text = AttributedText(String(repeating: "א1", count: units / 2))
        let calls = Calls()
        let layout = try fresh().measure(text, constraints: TextConstraints(), shouldStop: { calls.ask() })
        #expect(layout.lines.count == 1 && layout.lines[0].runs.count == units)
        #expect(calls.asked == (5 * units + StopCheck.callSteps * (units + 1)) / StopCheck.interval)
        let stopping = Calls(stopAt: 2)
        #expect(throws: TextError(TextError.stoppedReason, path: "string", kind: .limit)) {
            _ = try fresh().measure(text, constraints: TextConstraints(), shouldStop: { stopping.ask() })
        }
        #expect(stopping.asked == 2)
    }

    @Test("A measurer that does not ask measures to the end")
    func fixedMetricsDoNotAsk() throws {
        let calls = Calls(stopAt: 1)
        let (text, constraints) = try words(1000)
        let layout = try FixedMetricsMeasurer().measure(text, constraints: constraints, shouldStop: { calls.ask() })
        #expect(layout.lines.count > 0 && calls.asked == 0)
    }
}
