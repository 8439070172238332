import Testing
@testable import WeftText

/// Bidi levels as itemizing uses them: each unit's direction in the shaped segments, and the walk over the
/// level runs, which reads each level once however many runs there are.
@Suite("Bidi level runs")
struct BidiRunTests {
    /// Whether each UTF-16 unit of `text` is in a right-to-left segment.
    func directions(_ text: String) throws -> [Bool] {
        let paragraph = try Shaper.shape(AttributedText(text), registry: Support.measurer.registry)
        var result: [Bool] = []
        for segment in paragraph.segments {
            #expect(Int(segment.start) == result.count)
            result += Array(repeating: segment.isRightToLeft, count: Int(segment.end - segment.start))
        }
        return result
    }

    @Test("A right-to-left paragraph: Latin and digits inside it are left to right, neutrals between take the paragraph's")
    func mixed() throws {
        // The first strong character is Hebrew: the paragraph is right to left (P2, P3). The space between
        // Hebrew and Latin resolves to the embedding direction (N2); "world" is L at level 1, so level 2 (I2).
        #expect(try directions("שלום world") == Array(repeating: true, count: 5) + Array(repeating: false, count: 5))
        // Digits after Hebrew stay EN (W2 looks back to R, not AL) and go up to level 2 (I2): left to right.
        #expect(try directions("א12ב") == [true, false, false, true])
    }

    @Test("Hebrew letters and digits alternating: one segment per run, directions alternating")
    func alternating() throws {
        // "א1" 5,000 times: 10,000 level runs (alef at level 1, each digit at level 2), each its own segment.
        let count = 5000
        let paragraph = try Shaper.shape(AttributedText(String(repeating: "א1", count: count)), registry: Support.measurer.registry)
        #expect(paragraph.segments.map { Int($0.start)..<Int($0.end) } == (0..<2 * count).map { $0..<$0 + 1 })
        #expect(paragraph.segments.map(\.isRightToLeft) == (0..<2 * count).map { $0.isMultiple(of: 2) })
        // Through the public API: one line whose runs alternate in direction.
        let layout = try Support.measurer.measure(String(repeating: "א1", count: count))
        try #require(layout.lines.count == 1)
        #expect(layout.lines[0].runs.map(\.isRightToLeft) == (0..<2 * count).map { $0.isMultiple(of: 2) })
    }

    @Test("The walk finds each offset's run and reads every level once")
    func walkReadsEachLevelOnce() {
        // Runs of lengths 1, 2, 3, 1, 2, 3... at levels 0, 1, 2, 3, 0, 1...: 30,000 units.
        var levels: [UInt8] = []
        var run = 0
        while levels.count < 30_000 {
            levels += Array(repeating: UInt8(run % 4), count: run % 3 + 1)
            run += 1
        }
        // The end of the run holding each offset, from the definition (a maximal span of one level).
        var ends = Array(1...levels.count)
        for i in stride(from: levels.count - 2, through: 0, by: -1) where levels[i] == levels[i + 1] { ends[i] = ends[i + 1] }
        levels.withUnsafeBufferPointer { buffer in
            var walk = LevelRuns(buffer)
            // As the itemizer asks: at each cluster start once the current run has ended (clusters of 1 to 3 units).
            var i = 0
            while i < levels.count {
                if i >= walk.end { walk.advance(to: i) }
                #expect(walk.end == ends[i] && walk.level == levels[i])
                i += i % 3 + 1
            }
            #expect(walk.reads <= levels.count)
        }
    }
}
