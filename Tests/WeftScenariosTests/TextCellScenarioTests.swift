import Testing
import WeftLayout
import WeftNodes
import WeftScenarios
import WeftText

@Suite("The photo cell with real text (scenario T4)")
struct TextCellScenarioTests {
    /// Noto Sans 14: hb-shape gives "Weft lays out text" 8146 units of 1000, 114.044 points, well within the
    /// 359-point footer: one line, (1069 + 293) / 1000 x 14 = 19.068 tall, 19.5 on the grid. The cell is the
    /// header (60), the photo (375) and the footer, 8 + 19.5 + 8: 470.5.
    @Test("The text cell lays out with the fonts' sizes")
    func cell() throws {
        let cell = TextCellNode(index: 0, comment: "Weft lays out text", measurer: try FontMeasurer.standard())
        let layout = try cell.layoutThatFits(BenchmarkCell.range)
        #expect(layout.size == Size(375, 470.5))
        let comments = try #require(layout.allFrames().first { $0.object === cell.comments })
        #expect(comments.frame == Rect(x: 8, y: 443, width: 359, height: 19.5))
    }

    @Test("The scenario runs and reports the fixed-size cell beside it")
    func scenario() throws {
        let result = try TextScenarios.textCellCold(cells: 20, repetitions: 1)
        #expect(result.runs.count == 1 && result.items == 20)
        #expect((result.extra["fixedCellSeconds"] ?? 0) > 0 && (result.extra["textSeconds"] ?? 0) > 0)
        // Comments of 150 to 160 characters wrap into two to four lines of 19.068 points: the footer holds
        // 38.136 (38.5 on the grid) to 76.272 (76.5), so cells are 451 + 38.5 = 489.5 to 451 + 76.5 = 527.5 tall.
        let height = try #require(result.extra["height"])
        #expect(height >= 489.5 && height <= 527.5, "\(height)")
    }
}
