import WeftText

extension TextNode {
    /// The measurer text nodes use when given none: a `FontMeasurer` over `FontRegistry.standard()` (Debian's
    /// Noto and DejaVu fonts, which `Scripts/setup.sh` installs), made on first use and shared by the whole
    /// process, so that every node shares one shaped-run cache. ``NodeStatistics/shared`` counts its cache
    /// (``NodeStatistics/Snapshot/textCacheHits``).
    ///
    /// Without the standard fonts it is a measurer that refuses every text with the error that says what to
    /// install: nodes then report it as their ``textProblem`` and layouts fail with it, naming the node.
    public static var standardMeasurer: any TextMeasurer { standard }

    private static let standard: any TextMeasurer = {
        do throws(TextError) {
            let measurer = try FontMeasurer.standard()
            NodeStatistics.shared.trackTextCache(of: measurer)
            return measurer
        } catch {
            // Reported at the family of the first run, the font it could not find: "runs[0].style.family: PATH: ...".
            return RefusingMeasurer(error: TextError(error.description, path: "family", kind: error.kind))
        }
    }()
}

/// A measurer that refuses everything with one error: the standard measurer when its fonts are missing.
struct RefusingMeasurer: TextMeasurer {
    let error: TextError

    func measure(_ text: AttributedText, constraints: TextConstraints) throws(TextError) -> TextLayout {
        throw error
    }

    func lineMetrics(for style: TextStyle) throws(TextError) -> LineMetrics {
        throw error
    }
}
