import WeftFormat
import WeftLayout
import WeftText

/// Reads a `text` leaf of the JSON format into a ``TextNode``.
///
/// - The text: `text` (one string), or `runs` (an array of `{"text": ..., style members}`); not both.
///   Neither: no text (0 x 0).
/// - Style members, on the leaf (for `text`, and as the default of every run) and on each run: `fontFamily`
///   (a registered family or alias, case-insensitive; default: the registry's default family), `fontSize`
///   (points, from 0.01 to 10,000: ``TextStyle/sizeRange``; default 14), `fontWeight` (a whole number from 1
///   to 1000, default 400), `italic` (false), `letterSpacing` (points, default 0), `lineHeight` (> 0;
///   default: the font's).
/// - Paragraph members, on the leaf: `maximumNumberOfLines` (a whole number >= 0, 0: no limit), `truncation`
///   (`tail` or `clip`), `truncationToken` (default "…", no line breaks), `wrapping` (`word` or `character`).
///
/// Every value is checked where it is written: a family the measurer does not know is an error at its
/// `fontFamily` (no silent fallback: per-character font fallback still applies to glyphs a face lacks), and a
/// text longer than the measurer's limit (``FontMeasurer/maximumLength``; 2^20 UTF-16 code units for other
/// measurers) an error at `text` or `runs`.
struct TextLeafDecoder: LeafDecoder {
    let measurer: any TextMeasurer

    /// The longest text accepted, in UTF-16 code units.
    var maximumLength: Int { (measurer as? FontMeasurer)?.maximumLength ?? FontMeasurer.defaultMaximumLength }

    func decode(_ m: inout MemberReader, _ common: ElementCommon) throws(LayoutError) -> any LayoutElement {
        let base = try style(&m, over: TextStyle())
        let paragraph = try paragraphStyle(&m)
        let string = try m.string("text")
        let runs = m.value("runs")
        let node: TextNode
        switch (string, runs) {
        case (.some, .some):
            throw LayoutError("give either \"text\" or \"runs\", not both", path: m.path("runs"))
        case (.some(let string), nil):
            try checkLength(string.utf16.count, path: m.path("text"))
            node = TextNode(text: string, textStyle: base, paragraphStyle: paragraph, measurer: measurer)
        case (nil, .some(let runs)):
            let text = try attributedText(runs, base: base, paragraph: paragraph, path: m.path("runs"))
            node = TextNode(attributedText: text, measurer: measurer)
        case (nil, nil):
            node = TextNode(text: nil, textStyle: base, paragraphStyle: paragraph, measurer: measurer)
        }
        if let problem = node.textProblem {
            // Every value was checked above: only a measurer that refuses everything (the standard one without
            // its fonts) gets here.
            throw LayoutError("the text cannot be measured: \(problem)", path: m.path)
        }
        node.identifier = common.identifier
        var style = common.style
        style.ascender = node.style.ascender
        style.descender = node.style.descender
        node.style = style
        return node
    }

    /// The runs of `value` (an array of run objects), each in `base` changed by its own members.
    private func attributedText(_ value: JSONValue, base: TextStyle, paragraph: ParagraphStyle,
                                path: String) throws(LayoutError) -> AttributedText {
        guard case .array(let items) = value else {
            throw LayoutError("expected an array of runs ({\"text\": ...}), got \(value.summary)", path: path)
        }
        var text = AttributedText("", style: base, paragraph: paragraph)
        var length = 0
        for (index, item) in items.enumerated() {
            var run = try MemberReader(item, path: "\(path)[\(index)]", what: "a text run")
            guard let string = try run.string("text") else {
                throw LayoutError("missing; a text run needs \"text\"", path: run.path("text"))
            }
            let style = try self.style(&run, over: base)
            try run.finish()
            length += string.utf16.count
            try checkLength(length, path: path)
            text.append(string, style: style)
        }
        return text
    }

    /// `base` with the style members of `m` applied, each checked at its path.
    private func style(_ m: inout MemberReader, over base: TextStyle) throws(LayoutError) -> TextStyle {
        var style = base
        if let family = try m.string("fontFamily") {
            guard !family.isEmpty else { throw LayoutError("expected a non-empty string", path: m.path("fontFamily")) }
            do throws(TextError) {
                _ = try measurer.lineMetrics(for: TextStyle(family: family))
            } catch {
                throw LayoutError(error.reason, path: m.path("fontFamily"))
            }
            style.family = family
        }
        if let size = try m.number("fontSize") {
            guard TextStyle.sizeRange.contains(size) else {
                let range = TextStyle.sizeRange
                throw LayoutError("expected a number from \(formatPoints(range.lowerBound)) to \(formatPoints(range.upperBound)), "
                                  + "got \(formatPoints(size))", path: m.path("fontSize"))
            }
            style.size = size
        }
        if let weight = try m.number("fontWeight") {
            guard weight == weight.rounded(), (1...1000).contains(weight) else {
                throw LayoutError("expected a whole number from 1 to 1000, got \(formatPoints(weight))", path: m.path("fontWeight"))
            }
            style.weight = Int(weight)
        }
        if let italic = try m.bool("italic") { style.isItalic = italic }
        if let spacing = try m.number("letterSpacing") { style.letterSpacing = spacing }
        if let lineHeight = try m.number("lineHeight") {
            guard lineHeight > 0 else {
                throw LayoutError("expected a number > 0, got \(formatPoints(lineHeight))", path: m.path("lineHeight"))
            }
            style.lineHeight = lineHeight
        }
        return style
    }

    /// The paragraph members of `m`, each checked at its path.
    private func paragraphStyle(_ m: inout MemberReader) throws(LayoutError) -> ParagraphStyle {
        var paragraph = ParagraphStyle()
        if let lines = try m.nonNegative("maximumNumberOfLines") {
            guard lines == lines.rounded(), lines < 1e9 else {
                throw LayoutError("expected a whole number >= 0, got \(formatPoints(lines))", path: m.path("maximumNumberOfLines"))
            }
            paragraph.maximumNumberOfLines = Int(lines)
        }
        if let truncation = try m.string("truncation") {
            guard let value = ParagraphStyle.Truncation(rawValue: truncation) else {
                throw LayoutError("expected one of \"tail\", \"clip\", got \(JSONValue.string(truncation).summary)", path: m.path("truncation"))
            }
            paragraph.truncation = value
        }
        if let token = try m.string("truncationToken") {
            paragraph.truncationToken = token
            if let problem = paragraph.problem() { throw LayoutError(problem.reason, path: m.path("truncationToken")) }
        }
        if let wrapping = try m.string("wrapping") {
            guard let value = ParagraphStyle.Wrapping(rawValue: wrapping) else {
                throw LayoutError("expected one of \"word\", \"character\", got \(JSONValue.string(wrapping).summary)", path: m.path("wrapping"))
            }
            paragraph.wrapping = value
        }
        return paragraph
    }

    private func checkLength(_ length: Int, path: String) throws(LayoutError) {
        guard length > maximumLength else { return }
        throw LayoutError("the text has more than \(maximumLength) UTF-16 code units, the measurer's limit", path: path, kind: .limit)
    }
}
