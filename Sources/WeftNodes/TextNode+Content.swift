import WeftLayout
import WeftText

/// What a text node shows and how: one value, replaced whole by each setter under the node's lock.
struct TextContent: Sendable {
    /// The text, or nil for none.
    var text: AttributedText?
    /// The style plain strings are set in: the first run's style of attributed text.
    var textStyle: TextStyle
    var paragraphStyle: ParagraphStyle
    /// Why the measurer refuses `text`, found when it was set; nil when it can be measured.
    var problem: TextError?
    /// Bumped by every stored change (0: not checked yet), so that a setter stores only over what it read.
    var generation: UInt64 = 0

    init(text: AttributedText?, textStyle: TextStyle, paragraphStyle: ParagraphStyle) {
        self.text = text
        self.textStyle = textStyle
        self.paragraphStyle = paragraphStyle
    }

    /// Sets attributed text, taking its first run's style and its paragraph options as the node's.
    mutating func assign(_ attributed: AttributedText?) {
        text = attributed
        if let attributed {
            textStyle = attributed.runs[0].style
            paragraphStyle = attributed.paragraph
        }
    }

    /// Whether `other` shows the same text the same way (the problem and generation aside).
    func sameText(as other: TextContent) -> Bool {
        text == other.text && textStyle == other.textStyle && paragraphStyle == other.paragraphStyle
    }

    /// What checking the content with `measurer` found: the first problem, or the line metrics for the style's
    /// ascender (first run) and descender (last run).
    struct Check {
        var problem: TextError?
        var metrics: LineMetrics?
    }

    /// Checks every run's style with the measurer (which also resolves its font family) and the length
    /// against the measurer's limit: the same checks measuring makes, done once when the text is set. Calls
    /// the measurer: never with a lock held. Linear in the number of runs.
    func check(with measurer: any TextMeasurer) -> Check {
        guard let text else {
            return Check(problem: nil, metrics: try? measurer.lineMetrics(for: textStyle))
        }
        if let problem = text.problem() { return Check(problem: problem) }
        if let limit = (measurer as? FontMeasurer)?.maximumLength, text.utf16Count > limit {
            return Check(problem: TextError(
                "the text has \(text.utf16Count) UTF-16 code units, more than this measurer's limit of \(limit)",
                path: "string", kind: .limit))
        }
        var first: LineMetrics?
        var last: LineMetrics?
        for (index, run) in text.runs.enumerated() {
            do throws(TextError) {
                let metrics = try measurer.lineMetrics(for: run.style)
                if index == 0 { first = metrics }
                if index == text.runs.count - 1 { last = metrics }
            } catch {
                // The measurer names the style's member (`family`, or `style.size`): put the run in front.
                let member = error.path.hasPrefix("style") ? error.path : "style" + (error.path.isEmpty ? "" : "." + error.path)
                return Check(problem: TextError(error.reason, path: "runs[\(index)].\(member)", kind: error.kind))
            }
        }
        guard let first, let last else { return Check() }
        return Check(metrics: LineMetrics(ascender: first.ascender, descender: last.descender))
    }
}
