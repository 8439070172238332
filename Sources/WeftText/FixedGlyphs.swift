/// The grapheme clusters of a text with their fixed advances: the working data of ``FixedMetricsMeasurer``.
///
/// A line is a list of ranges of glyph indices (words, or pieces of a long word), set with one space's
/// advance between them (the advance of the first space that separated them in the text).
struct FixedGlyphs {
    struct Glyph {
        /// UTF-16 offset and length in the text.
        var offset: Int
        var length: Int
        /// Points, letter spacing included.
        var advance: Double
        var isSpace: Bool
        var isNewline: Bool
        var run: Int
    }

    let text: AttributedText
    private(set) var glyphs: [Glyph] = []

    init(_ text: AttributedText) {
        self.text = text
        var offset = 0
        var run = 0
        for character in text.string {
            let length = character.utf16.count
            while run + 1 < text.runs.count && text.runs[run].range.upperBound <= offset { run += 1 }
            let style = text.runs[run].style
            glyphs.append(Glyph(offset: offset, length: length,
                                advance: FixedMetricsMeasurer.advance(of: character) * style.size + style.letterSpacing,
                                isSpace: character == " ", isNewline: character == "\n", run: run))
            offset += length
        }
    }

    /// The glyph ranges between newlines.
    func paragraphs() -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for (index, glyph) in glyphs.enumerated() where glyph.isNewline {
            result.append(start..<index)
            start = index + 1
        }
        result.append(start..<glyphs.count)
        return result
    }

    func width(of words: [Range<Int>]) -> Double {
        var total = 0.0
        for (index, word) in words.enumerated() {
            if index > 0 { total += glyphs[words[index - 1].upperBound].advance }
            for glyph in word { total += glyphs[glyph].advance }
        }
        return total
    }

    /// Greedy wrapping of one paragraph into lines of words (an empty paragraph is one empty line).
    func wrap(_ paragraph: Range<Int>, width: Double) -> [[Range<Int>]] {
        var words: [Range<Int>] = []
        var start: Int?
        for index in paragraph {
            if glyphs[index].isSpace {
                if let wordStart = start { words.append(wordStart..<index) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let wordStart = start { words.append(wordStart..<paragraph.upperBound) }
        guard !words.isEmpty else { return [[paragraph.lowerBound..<paragraph.lowerBound]] }
        var lines: [[Range<Int>]] = []
        var line: [Range<Int>] = []
        var lineWidth = 0.0
        for word in words {
            let wordWidth = self.width(of: [word])
            if let last = line.last {
                let space = glyphs[last.upperBound].advance
                if lineWidth + space + wordWidth <= width {
                    line.append(word)
                    lineWidth += space + wordWidth
                    continue
                }
                lines.append(line)
            }
            if wordWidth <= width {
                line = [word]
                lineWidth = wordWidth
            } else {
                var pieces = breakWord(word, width: width)
                let last = pieces.removeLast()
                lines += pieces.map { [$0] }
                line = [last]
                lineWidth = self.width(of: [last])
            }
        }
        lines.append(line)
        return lines
    }

    /// A word wider than the line, in pieces that fit (at least one glyph each).
    private func breakWord(_ word: Range<Int>, width: Double) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = word.lowerBound
        var pieceWidth = 0.0
        for index in word {
            if index > start && pieceWidth + glyphs[index].advance > width {
                pieces.append(start..<index)
                start = index
                pieceWidth = 0
            }
            pieceWidth += glyphs[index].advance
        }
        pieces.append(start..<word.upperBound)
        return pieces
    }

    /// The line shortened (from its end, glyph by glyph, over one prefix sum) until it and the token fit,
    /// without trailing spaces; and the UTF-16 offset of the cut.
    func truncate(_ words: [Range<Int>], tokenWidth: Double, width: Double) -> ([Range<Int>], Int) {
        var items: [(glyph: Int, joining: Bool)] = []
        for (index, word) in words.enumerated() {
            if index > 0 { items.append((words[index - 1].upperBound, true)) }
            items += word.map { ($0, false) }
        }
        var prefix = [0.0]
        for item in items { prefix.append(prefix[prefix.count - 1] + glyphs[item.glyph].advance) }
        var kept = items.count
        while kept > 0 && prefix[kept] + tokenWidth > width { kept -= 1 }
        while kept > 0 && (items[kept - 1].joining || glyphs[items[kept - 1].glyph].isSpace) { kept -= 1 }
        var result: [Range<Int>] = []
        for item in items[..<kept] where !item.joining {
            if let last = result.last, last.upperBound == item.glyph {
                result[result.count - 1] = last.lowerBound..<(item.glyph + 1)
            } else {
                result.append(item.glyph..<(item.glyph + 1))
            }
        }
        let start = words.first.map { $0.lowerBound < glyphs.count ? glyphs[$0.lowerBound].offset : text.utf16Count } ?? 0
        guard let last = result.last else { return ([(words.first?.lowerBound ?? 0)..<(words.first?.lowerBound ?? 0)], start) }
        return (result, glyphs[last.upperBound - 1].offset + glyphs[last.upperBound - 1].length)
    }

    /// The style of the line's last glyph (nil for an empty line).
    func style(ofLine words: [Range<Int>]) -> TextStyle? {
        guard let last = words.last(where: { !$0.isEmpty }) else { return nil }
        return text.runs[glyphs[last.upperBound - 1].run].style
    }

    /// The line of `words` at `top`: one run per style run, the tallest run's line height.
    func line(_ words: [Range<Int>], top: Double, measurer: FixedMetricsMeasurer) throws(TextError) -> TextLine {
        let nonEmpty = words.filter { !$0.isEmpty }
        let offset = { (glyph: Int) in glyph < glyphs.count ? glyphs[glyph].offset : text.utf16Count }
        let start = nonEmpty.first.map { offset($0.lowerBound) } ?? offset(words.first?.lowerBound ?? 0)
        let end = nonEmpty.last.map { glyphs[$0.upperBound - 1].offset + glyphs[$0.upperBound - 1].length } ?? start
        var runs: [TextRun] = []
        var tallest = text.style(at: start)
        var x = 0.0
        for (index, word) in nonEmpty.enumerated() {
            if index > 0 { x += glyphs[nonEmpty[index - 1].upperBound].advance }
            for glyph in word {
                let style = text.runs[glyphs[glyph].run].style
                if (style.lineHeight ?? style.size * 1.25) > (tallest.lineHeight ?? tallest.size * 1.25) { tallest = style }
                let item = glyphs[glyph]
                if let last = runs.last, text.runs[glyphs[glyph].run].style.size == last.size, runs.count > 0,
                   text.runIndex(at: last.range.lowerBound) == item.run {
                    runs[runs.count - 1].range = last.range.lowerBound..<(item.offset + item.length)
                    runs[runs.count - 1].width = x + item.advance - last.x
                } else {
                    runs.append(TextRun(range: item.offset..<(item.offset + item.length), x: x, width: item.advance, font: nil, size: style.size))
                }
                x += item.advance
            }
        }
        let metrics = try measurer.lineMetrics(for: tallest)
        return TextLine(range: start..<end, width: width(of: nonEmpty), top: top, height: metrics.lineHeight,
                        baseline: top + metrics.ascender, runs: runs)
    }
}
