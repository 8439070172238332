/// A deterministic measurer with fixed metrics and no fonts, for tests that need exact, font-independent
/// numbers: the rules (and numbers) of WeftNodes' `SimpleTextMeasurer`, over attributed text.
///
/// Advances, as fractions of the run's font size: space 0.25; `i l j t f r . , : ; ' ! | I` 0.3;
/// `m w M W @` 0.85; other capitals 0.65; digits 0.55; anything else 0.5 (per grapheme cluster), plus the
/// run's letter spacing after each. Lines break at `\n`; within a paragraph, words are separated by
/// spaces (runs of spaces count as one) and wrapped greedily; a word wider than the line breaks between
/// characters. A line is as tall as the largest line height of its runs (default 1.25 x size); its
/// baseline is 0.8 of that run's size plus half the leading from the top. Tail truncation shortens the last
/// kept line character by character until it and the token fit, drops its trailing spaces and adds the
/// token. Families, weights, slants and features are ignored. Results are exact sums of these numbers. A
/// line's range runs from its first word to its last (the spaces between lines belong to none).
public struct FixedMetricsMeasurer: TextMeasurer {
    public init() {}

    /// The advance of `character` in ems.
    public static func advance(of character: Character) -> Double {
        switch character {
        case " ": return 0.25
        case "i", "l", "j", "t", "f", "r", ".", ",", ":", ";", "'", "!", "|", "I": return 0.3
        case "m", "w", "M", "W", "@": return 0.85
        case "0"..."9": return 0.55
        default:
            if let ascii = character.asciiValue { return (65...90).contains(ascii) ? 0.65 : 0.5 }
            return character.isUppercase ? 0.65 : 0.5
        }
    }

    public func lineMetrics(for style: TextStyle) throws(TextError) -> LineMetrics {
        if let problem = style.problem() { throw problem }
        let height = style.lineHeight ?? style.size * 1.25
        let halfLeading = (height - style.size) / 2
        return LineMetrics(ascender: style.size * 0.8 + halfLeading, descender: -(style.size * 0.2 + halfLeading))
    }

    public func measure(_ text: AttributedText, constraints: TextConstraints) throws(TextError) -> TextLayout {
        if let problem = text.problem() ?? constraints.problem() { throw problem }
        let glyphs = FixedGlyphs(text)
        let width = constraints.width
        var lines: [[Range<Int>]] = []
        for paragraph in glyphs.paragraphs() {
            lines += glyphs.wrap(paragraph, width: width)
        }
        if text.string.isEmpty { lines = [] }
        let options = text.paragraph
        let truncated = options.maximumNumberOfLines > 0 && lines.count > options.maximumNumberOfLines
        var tokenWidth: Double?
        var cut: Int?
        if truncated {
            lines.removeSubrange(options.maximumNumberOfLines...)
            if options.truncation == .tail {
                let last = lines.count - 1
                let style = glyphs.style(ofLine: lines[last]) ?? text.runs[0].style
                let token = FixedGlyphs(AttributedText(options.truncationToken, style: style))
                let measured = token.glyphs.isEmpty ? 0 : token.width(of: [0..<token.glyphs.count])
                (lines[last], cut) = glyphs.truncate(lines[last], tokenWidth: measured, width: width)
                tokenWidth = measured
            }
        }
        var result: [TextLine] = []
        var top = 0.0
        for (index, words) in lines.enumerated() {
            let isCut = tokenWidth != nil && index == lines.count - 1
            var line = try glyphs.line(words, top: top, measurer: self)
            if isCut, let tokenWidth {
                if let cut { line.range = line.range.lowerBound..<cut }
                line.runs.append(TextRun(range: line.range.upperBound..<line.range.upperBound, x: line.width, width: tokenWidth,
                                         font: nil, size: line.runs.last?.size ?? text.runs[0].style.size, isTruncationToken: true))
                line.width += tokenWidth
            }
            result.append(line)
            top += line.height
        }
        let first = try lineMetrics(for: text.runs[0].style)
        let widest = result.reduce(0.0) { max($0, $1.width) }
        return TextLayout(width: widest, height: top, lines: result, isTruncated: truncated,
                          truncationToken: tokenWidth == nil ? nil : options.truncationToken,
                          ascender: result.first.map { $0.baseline } ?? first.ascender,
                          descender: result.last.map { $0.baseline - top } ?? first.descender)
    }
}
