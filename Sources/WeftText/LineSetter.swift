/// Turns the spans a ``LineBreaker`` found into ``TextLine``s: each line's runs (pieces of one face, style
/// run and direction) with their x and width, its height and baseline, and the truncation token.
///
/// A line's box follows CSS's inline layout with one font per run: its ascent and descent are the largest
/// of its runs' faces (fallback faces included) at their sizes, its height the largest of its runs' line
/// heights (the style's, else the face's ascender + descender + line gap), and the space left over (or
/// missing) is split evenly above and below, which places the baseline.
struct LineSetter {
    let breaker: LineBreaker
    let registry: FontRegistry

    var paragraph: ShapedParagraph { breaker.paragraph }
    var runs: [AttributedText.Run] { breaker.runs }

    /// A line of `span`, at `top`, with `token` (its width and face) after `span.visible` when truncated.
    func line(_ span: Span, top: Double, token: Token? = nil) -> TextLine {
        var pieces: [TextRun] = []
        pieces.reserveCapacity(token == nil ? 1 : 2)
        if span.start < span.end {
            var index = paragraph.segmentIndex(at: span.start)
            while index < paragraph.segments.count && Int(paragraph.segments[index].start) < span.end {
                let segment = paragraph.segments[index]
                let from = max(Int(segment.start), span.start), to = min(Int(segment.end), span.end)
                let style = runs[Int(segment.styleRun)].style
                let face = registry.entries[Int(segment.face)].face
                if let last = pieces.last, last.font == face, last.size == style.size, last.isRightToLeft == segment.isRightToLeft,
                   runs.count == 1 || breaker.runIndex(at: last.range.lowerBound) == Int(segment.styleRun) {
                    pieces[pieces.count - 1].range = last.range.lowerBound..<to
                    pieces[pieces.count - 1].width = breaker.width(last.range.lowerBound, to)
                } else {
                    pieces.append(TextRun(range: from..<to, x: breaker.width(span.start, from), width: breaker.width(from, to),
                                          font: face, size: style.size, isRightToLeft: segment.isRightToLeft))
                }
                index += 1
            }
        }
        var width = breaker.width(span.start, span.visible)
        if let token {
            pieces.append(TextRun(range: span.visible..<span.visible, x: width, width: token.width, font: token.font,
                                  size: token.size, isTruncationToken: true))
            width += token.width
        }
        let box = lineBox(from: span.start, to: max(span.next, span.end))
        return TextLine(range: span.start..<span.end, width: width, top: top, height: box.height,
                        baseline: top + box.baseline, runs: pieces)
    }

    /// The height and baseline (from the top) of a line over `start..<end`; an empty line takes the face of
    /// the text just before it.
    func lineBox(from start: Int, to end: Int) -> (height: Double, baseline: Double) {
        guard !paragraph.segments.isEmpty else { return (0, 0) }
        var ascent = 0.0, descent = 0.0, height = 0.0
        var index = paragraph.segmentIndex(at: start < end ? start : max(0, start - 1))
        repeat {
            let segment = paragraph.segments[index]
            let style = runs[Int(segment.styleRun)].style
            let face = registry.entries[Int(segment.face)].face
            ascent = max(ascent, face.ascender * style.size)
            descent = max(descent, -face.descender * style.size)
            height = max(height, style.lineHeight ?? face.naturalLineHeight(size: style.size))
            index += 1
        } while index < paragraph.segments.count && Int(paragraph.segments[index].start) < end
        return (height, (height - ascent - descent) / 2 + ascent)
    }

    /// A truncation token as measured: its width, in the face and size of the text it follows.
    struct Token {
        var width: Double
        var font: FontFace?
        var size: Double
    }

    /// The last line, from `start`, cut so that its text and `token` fit: as many grapheme clusters as fit
    /// before the next line break in the text, without the spaces before the token.
    func truncated(from start: Int, tokenWidth: Double) -> Span {
        let flags = paragraph.flags
        var hardEnd = start
        while hardEnd < paragraph.length && flags[hardEnd] & UnitFlags.terminator == 0 { hardEnd += 1 }
        let cutBreaker = LineBreaker(paragraph: paragraph, runs: runs, maxWidth: breaker.maxWidth - tokenWidth)
        var span = cutBreaker.graphemeSpanFitting(from: start, limit: hardEnd)
        span.end = span.visible
        return span
    }
}

typealias Span = LineBreaker.Span

extension LineBreaker {
    /// Like ``graphemeSpan(from:limit:)`` but taking nothing when not even one cluster fits.
    func graphemeSpanFitting(from start: Int, limit: Int) -> Span {
        guard start < limit else { return Span(start: start, end: start, visible: start, next: start) }
        let span = graphemeSpan(from: start, limit: limit)
        if width(start, span.visible) <= maxWidth { return span }
        return Span(start: start, end: start, visible: start, next: start)
    }
}
