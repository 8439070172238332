import WeftLayout

/// How text is set: Texture's attributed-string attributes that matter for layout.
public struct TextAttributes: Hashable, Sendable {
    /// The font size in points.
    public var fontSize: Double
    /// The distance between baselines; nil for 1.25 x fontSize.
    public var lineHeight: Double?
    /// The most lines to show (0: no limit). Text beyond is cut and the last line ends with the token.
    public var maximumNumberOfLines: Int
    /// What ends a truncated last line.
    public var truncationToken: String

    public init(fontSize: Double = 14, lineHeight: Double? = nil, maximumNumberOfLines: Int = 0, truncationToken: String = "\u{2026}") {
        self.fontSize = fontSize
        self.lineHeight = lineHeight
        self.maximumNumberOfLines = maximumNumberOfLines
        self.truncationToken = truncationToken
    }

    /// The line height in effect.
    public var effectiveLineHeight: Double { lineHeight ?? fontSize * 1.25 }

    /// Why these attributes cannot be used, or nil.
    public var problem: (property: String, reason: String)? {
        if !(fontSize.isFinite && fontSize > 0) { return ("fontSize", "expected a number > 0, got \(formatPoints(fontSize))") }
        if let lineHeight, !(lineHeight.isFinite && lineHeight > 0) {
            return ("lineHeight", "expected a number > 0, got \(formatPoints(lineHeight))")
        }
        if maximumNumberOfLines < 0 { return ("maximumNumberOfLines", "expected a whole number >= 0, got \(maximumNumberOfLines)") }
        return nil
    }
}

/// The measured shape of a text.
public struct TextMeasurement: Hashable, Sendable {
    /// The size the lines take: the widest line by the number of lines times the line height.
    public var size: Size
    /// The lines as set, after wrapping and truncation.
    public var lines: [String]
    /// Whether text was cut to honour the line limit.
    public var isTruncated: Bool
    /// From the top of the first line to its baseline.
    public var ascender: Double
    /// From the bottom of the last line to its baseline (negative).
    public var descender: Double
}

/// Measures text for layout. Implementations MUST be pure and thread-safe: layouts call them from any thread.
public protocol TextMeasurer: Sendable {
    /// The shape of `text` set with `attributes` in lines at most `width` wide (infinite: no wrapping).
    func measure(_ text: String, attributes: TextAttributes, width: Double) -> TextMeasurement

    /// The ascender and descender of a line set with `attributes` (for baseline alignment).
    func lineMetrics(_ attributes: TextAttributes) -> (ascender: Double, descender: Double)
}

/// A deterministic measurer: a fixed advance per character class, greedy wrapping at spaces (and inside a
/// word only when the word alone is wider than the line), and truncation at the line limit.
///
/// Advances, as fractions of the font size: space 0.25; `i l j t f r . , : ; ' ! | I` 0.3; `m w M W @` 0.85;
/// other capitals 0.65; digits 0.55; anything else 0.5. A line is as tall as the line height; the ascender is
/// 0.8 of the font size plus half the leading, the descender -0.2 of it minus the other half. Newlines break
/// lines. Results are exact sums of these numbers (layout rounds them to the pixel grid).
public struct SimpleTextMeasurer: TextMeasurer {
    public init() {}

    public static func advance(of character: Character) -> Double {
        switch character {
        case " ": return 0.25
        case "i", "l", "j", "t", "f", "r", ".", ",", ":", ";", "'", "!", "|", "I": return 0.3
        case "m", "w", "M", "W", "@": return 0.85
        case "0"..."9": return 0.55
        default:
            // ASCII letters without the Unicode property lookup; other characters ask Unicode.
            if let ascii = character.asciiValue { return (65...90).contains(ascii) ? 0.65 : 0.5 }
            return character.isUppercase ? 0.65 : 0.5
        }
    }

    public func width(of text: Substring, fontSize: Double) -> Double {
        var total = 0.0
        for character in text { total += Self.advance(of: character) }
        return total * fontSize
    }

    public func lineMetrics(_ attributes: TextAttributes) -> (ascender: Double, descender: Double) {
        let halfLeading = (attributes.effectiveLineHeight - attributes.fontSize) / 2
        return (attributes.fontSize * 0.8 + halfLeading, -(attributes.fontSize * 0.2 + halfLeading))
    }

    public func measure(_ text: String, attributes: TextAttributes, width: Double) -> TextMeasurement {
        let fontSize = attributes.fontSize
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(contentsOf: wrap(paragraph, width: width, fontSize: fontSize))
        }
        var truncated = false
        let limit = attributes.maximumNumberOfLines
        if limit > 0 && lines.count > limit {
            lines.removeSubrange(limit...)
            lines[limit - 1] = truncate(lines[limit - 1], token: attributes.truncationToken, width: width, fontSize: fontSize)
            truncated = true
        }
        if text.isEmpty { lines = [] }
        let widest = lines.map { self.width(of: Substring($0), fontSize: fontSize) }.max() ?? 0
        let (ascender, descender) = lineMetrics(attributes)
        return TextMeasurement(
            size: Size(width: widest, height: Double(lines.count) * attributes.effectiveLineHeight),
            lines: lines, isTruncated: truncated, ascender: ascender, descender: descender)
    }

    /// Greedy word wrap of one paragraph.
    func wrap(_ paragraph: Substring, width: Double, fontSize: Double) -> [String] {
        let words = paragraph.split(separator: " ", omittingEmptySubsequences: true)
        if words.isEmpty { return [""] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0.0
        let space = Self.advance(of: " ") * fontSize
        for word in words {
            let wordWidth = self.width(of: word, fontSize: fontSize)
            if !line.isEmpty && lineWidth + space + wordWidth <= width {
                line += " " + word
                lineWidth += space + wordWidth
                continue
            }
            // The word starts a line: the first one, or the next after a full line.
            if !line.isEmpty { lines.append(line) }
            if wordWidth <= width {
                line = String(word)
                lineWidth = wordWidth
            } else {
                var pieces = breakWord(word, width: width, fontSize: fontSize)
                line = pieces.removeLast()
                lines.append(contentsOf: pieces)
                lineWidth = self.width(of: Substring(line), fontSize: fontSize)
            }
        }
        lines.append(line)
        return lines
    }

    /// A word wider than the line, in pieces that fit (at least one character each).
    func breakWord(_ word: Substring, width: Double, fontSize: Double) -> [String] {
        var pieces: [String] = []
        var piece = ""
        var pieceWidth = 0.0
        for character in word {
            let advance = Self.advance(of: character) * fontSize
            if !piece.isEmpty && pieceWidth + advance > width {
                pieces.append(piece)
                piece = ""
                pieceWidth = 0
            }
            piece.append(character)
            pieceWidth += advance
        }
        pieces.append(piece)
        return pieces
    }

    /// `line` shortened until it and `token` fit in `width` (keeping at least the token).
    ///
    /// Advances are positive, so the width of a prefix only grows: one pass finds the longest prefix that fits,
    /// each character's advance looked up once (`advance`, the class advances by default).
    func truncate(
        _ line: String, token: String, width: Double, fontSize: Double,
        advance: (Character) -> Double = SimpleTextMeasurer.advance
    ) -> String {
        var tokenAdvance = 0.0
        for character in token { tokenAdvance += advance(character) }
        let tokenWidth = tokenAdvance * fontSize
        var keptEnd = line.startIndex
        var total = 0.0
        for index in line.indices {
            total += advance(line[index])
            if total * fontSize + tokenWidth > width { break }
            keptEnd = line.index(after: index)
        }
        var kept = line[..<keptEnd]
        while kept.last == " " { kept.removeLast() }
        return String(kept) + token
    }
}
