/// Greedy line breaking over a shaped paragraph at one width: each line takes as much text as fits, up to
/// a break opportunity (UAX #14 in word wrapping, any grapheme cluster in character wrapping). A line's
/// width leaves out the spaces that hang at its end. When not even the text up to the first opportunity
/// fits, the line breaks between grapheme clusters (always taking at least one), as TextKit does for a word
/// longer than the line.
///
/// Each line costs the opportunities it passes, each one O(1) width query over the running sums, so breaking
/// is linear in the text and independent of how it was shaped.
struct LineBreaker {
    let paragraph: ShapedParagraph
    let runs: [AttributedText.Run]
    let maxWidth: Double

    /// One line as found: `start..<end` is its text without the line terminator, `visible` where its
    /// measured text ends, `next` where the next line starts.
    struct Span {
        var start: Int
        var end: Int
        var visible: Int
        var next: Int
    }

    init(paragraph: ShapedParagraph, runs: [AttributedText.Run], maxWidth: Double) {
        self.paragraph = paragraph
        self.runs = runs
        // A hair of slack, so that text measured at its own width fits in it despite rounding.
        self.maxWidth = maxWidth + max(1e-9, maxWidth * 1e-12)
    }

    /// The width of `start..<end` (grapheme cluster starts): each style run's ems times its size, plus its
    /// letter spacing for each grapheme cluster.
    func width(_ start: Int, _ end: Int) -> Double {
        guard start < end else { return 0 }
        var run = runs.count == 1 ? 0 : runIndex(at: start)
        var from = start
        var total = 0.0
        while true {
            let style = runs[run].style
            let to = min(end, runs[run].range.upperBound)
            total += (paragraph.advances[to] - paragraph.advances[from]) * style.size
            if style.letterSpacing != 0 {
                total += style.letterSpacing * Double(paragraph.graphemes[to] - paragraph.graphemes[from])
            }
            if to >= end || run + 1 >= runs.count { return total }
            from = to
            run += 1
        }
    }

    func runIndex(at offset: Int) -> Int {
        AttributedText.runIndex(in: runs, at: offset)
    }

    /// Up to `limit` lines (0: no limit), and whether text was left over. Counts the units passed in `stop`.
    func spans(wrapping: ParagraphStyle.Wrapping, limit: Int, stop: inout StopCheck) throws(TextError) -> (spans: [Span], more: Bool) {
        let count = paragraph.length
        let maxLines = limit > 0 ? limit : Int.max
        var spans: [Span] = []
        spans.reserveCapacity(min(maxLines, count / 16 + 2))
        var start = 0
        var cursor = 0
        while start < count && spans.count < maxLines {
            let span = wrapping == .word ? wordSpan(from: start, cursor: &cursor) : graphemeSpan(from: start, limit: count)
            spans.append(span)
            try stop.add(span.next - start)
            start = span.next
        }
        let endsWithTerminator = count > 0 && paragraph.flags[count - 1] & UnitFlags.terminator != 0
        if start >= count && endsWithTerminator {
            // Text that ends with a line break has an empty last line.
            if spans.count < maxLines {
                spans.append(Span(start: count, end: count, visible: count, next: count))
                return (spans, false)
            }
            return (spans, true)
        }
        return (spans, start < count)
    }

    /// The line from `start` in word wrapping; `cursor` walks the break opportunities forward.
    private func wordSpan(from start: Int, cursor: inout Int) -> Span {
        let breaks = paragraph.breaks
        while cursor < breaks.count && Int(breaks[cursor].position) <= start { cursor += 1 }
        var fit = -1
        var index = cursor
        while index < breaks.count {
            let opportunity = breaks[index]
            guard width(start, max(Int(opportunity.visibleEnd), start)) <= maxWidth else { break }
            fit = index
            if opportunity.isMandatory { break }
            index += 1
        }
        if fit < 0 {
            let first = cursor < breaks.count ? Int(breaks[cursor].position) : paragraph.length
            let span = graphemeSpan(from: start, limit: first)
            if span.next < first { return span }
            fit = cursor
        }
        let opportunity = breaks[fit]
        let next = Int(opportunity.position)
        return Span(start: start, end: paragraph.contentEnd(before: next, from: start),
                    visible: max(Int(opportunity.visibleEnd), start), next: next)
    }

    /// The line from `start` broken between grapheme clusters, at or before `limit` and at any mandatory
    /// break: as many clusters as fit, at least one.
    func graphemeSpan(from start: Int, limit: Int) -> Span {
        let flags = paragraph.flags
        var best: Span?
        var visible = start
        var offset = start
        while offset < limit {
            var next = offset + 1
            var seen = flags[offset] & (UnitFlags.hanging | UnitFlags.terminator) == 0
            while next < limit && flags[next] & UnitFlags.graphemeStart == 0 {
                if flags[next] & (UnitFlags.hanging | UnitFlags.terminator) == 0 { seen = true }
                next += 1
            }
            if seen { visible = next }
            guard best == nil || width(start, visible) <= maxWidth else { break }
            best = Span(start: start, end: paragraph.contentEnd(before: next, from: start), visible: visible, next: next)
            if flags[next] & UnitFlags.mandatory != 0 { break }
            offset = next
        }
        return best ?? Span(start: start, end: start, visible: start, next: limit)
    }
}
