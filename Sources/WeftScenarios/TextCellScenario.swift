import WeftLayout
import WeftNodes
import WeftText

/// The benchmark photo cell with real text: the spec of ``BenchmarkCell`` over an avatar and a photo of fixed
/// size and three text nodes measured by a `FontMeasurer`: the username (Noto Sans Bold 14), the location
/// (Noto Sans 12) and a comment of about 150 characters (Noto Sans 14, no line limit), which wraps in the
/// 359-point footer.
public final class TextCellNode: CellNode, @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a thread-safe node.
    public let avatar = FixedLeaf(Size(44, 44))
    public let username: TextNode
    public let location: TextNode
    public let photo = FixedLeaf(Size(375, 375))
    public let comments: TextNode

    /// The places locations are drawn from: a feed repeats them, so the shaped-run cache sees them again.
    public static let places = [
        "Paris", "Lisbon", "Kyoto", "Reykjavik", "Nairobi", "Montreal", "Oaxaca", "Tbilisi", "Hobart", "Bergen",
        "Valparaiso", "Hanoi", "Marrakesh", "Ljubljana", "Cusco", "Tallinn",
    ]

    /// Cell `index` with `comment`, its texts measured by `measurer`.
    public init(index: Int, comment: String, measurer: any TextMeasurer) {
        username = TextNode(text: "user_\(index)", textStyle: TextStyle(family: "Noto Sans", size: 14, weight: 700),
                            measurer: measurer)
        location = TextNode(text: Self.places[index % Self.places.count], textStyle: TextStyle(family: "Noto Sans", size: 12),
                            measurer: measurer)
        comments = TextNode(text: comment, textStyle: TextStyle(family: "Noto Sans", size: 14), measurer: measurer)
        super.init()
    }

    public override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        BenchmarkCell.spec(in: specs, avatar: avatar, username: username, location: location, photo: photo, comments: comments)
    }

    /// `count` cells with distinct comments (``TextScenarios/comments(_:seed:)``), their texts measured by
    /// `measurer`.
    public static func cells(_ count: Int, measurer: any TextMeasurer) -> [TextCellNode] {
        zip(0..<count, TextScenarios.comments(count, seed: 3)).map { TextCellNode(index: $0, comment: $1, measurer: measurer) }
    }
}

extension TextScenarios {
    /// T4: the photo cell with real text laid out cold as a node tree (a layout pass each, as scenario 1's
    /// node tree), beside the fixed-size cell of scenario 1 in the same run. Cold: fresh cells and a fresh
    /// measurer (an empty shaped-run cache) for every run, so every username and comment is shaped;
    /// locations repeat 16 places, as in a feed.
    ///
    /// `extra`: `fixedCellSeconds` (the fixed-size cells, same count), `ratio` (text cell / fixed cell),
    /// `textSeconds` (the same three texts per cell measured cold by the measurer alone, no layout: the text
    /// share) and `height` (the mean cell height, a check that the comments wrap). The three are timed in
    /// turn, one repetition each, so that a change in the machine's load falls on all of them.
    public static func textCellCold(cells count: Int = 1_000, repetitions: Int) throws -> ScenarioResult {
        let registry = try FontRegistry.standard()
        var textCells: [Double] = []
        var fixedCells: [Double] = []
        var textOnly: [Double] = []
        var height = 0.0
        for _ in 0..<repetitions {
            textCells += try measure(repetitions: 1, setup: { TextCellNode.cells(count, measurer: FontMeasurer(registry: registry)) }) { nodes in
                height = 0
                for node in nodes { height += try LayoutPass.compute(root: node, range: BenchmarkCell.range).rootLayout.size.height }
            }
            fixedCells += try measure(repetitions: 1, setup: { (0..<count).map { _ in BenchmarkCellNode() } }) { nodes in
                for node in nodes { _ = try LayoutPass.compute(root: node, range: BenchmarkCell.range) }
            }
            textOnly += try measure(repetitions: 1, setup: { (TextCellNode.cells(count, measurer: FixedMetricsMeasurer()),
                                                             FontMeasurer(registry: registry)) }) { state in
                for node in state.0 {
                    for (text, width) in [(node.username, Double.infinity), (node.location, .infinity), (node.comments, 359)] {
                        _ = try state.1.measure(text.attributedText ?? AttributedText(), constraints: TextConstraints(width: width))
                    }
                }
            }
        }
        var result = ScenarioResult(id: "t4-text-cell-\(count)", name: "photo cell with real text cold, node tree (ASM), \(count) cells",
                                    unit: "cell", items: count, runs: textCells)
        let median = { (runs: [Double]) in ScenarioResult(id: "", name: "", unit: "", items: count, runs: runs).median }
        result.extra["fixedCellSeconds"] = median(fixedCells)
        result.extra["ratio"] = result.median / median(fixedCells)
        result.extra["textSeconds"] = median(textOnly)
        result.extra["height"] = height / Double(count)
        return result
    }
}
