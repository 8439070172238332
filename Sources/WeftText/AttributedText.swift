/// Text with styled runs and paragraph options: what a text node shows.
///
/// Offsets and ranges are in UTF-16 code units (as in Foundation's `NSAttributedString`), so that they match
/// the line ranges of a ``TextLayout``. A `String` is always valid Unicode: JSON escapes for lone surrogates
/// are refused by the JSON parser before text gets here, and bytes from elsewhere go through
/// ``init(validatingUTF8:style:paragraph:)``, which names the first bad byte.
public struct AttributedText: Hashable, Sendable {
    /// A stretch of the text in one style.
    public struct Run: Hashable, Sendable {
        /// UTF-16 offsets into ``AttributedText/string``.
        public var range: Range<Int>
        public var style: TextStyle
    }

    public private(set) var string: String
    /// The runs, in order, covering the whole string (an empty text has one empty run, which gives its
    /// style). Neighbouring runs have different styles.
    public private(set) var runs: [Run]
    public var paragraph: ParagraphStyle

    /// The text in one style.
    public init(_ string: String = "", style: TextStyle = TextStyle(), paragraph: ParagraphStyle = ParagraphStyle()) {
        self.string = string
        self.runs = [Run(range: 0..<TextAnalysis.utf16Length(of: string), style: style)]
        self.paragraph = paragraph
    }

    /// The text of `pieces`, each in its style.
    public init(_ pieces: [(String, TextStyle)], paragraph: ParagraphStyle = ParagraphStyle()) {
        self.init("", style: pieces.first?.1 ?? TextStyle(), paragraph: paragraph)
        for (text, style) in pieces { append(text, style: style) }
    }

    /// UTF-8 bytes as text in one style; invalid UTF-8 is refused with the offset of the first bad byte.
    public init(validatingUTF8 bytes: some Collection<UInt8>, style: TextStyle = TextStyle(),
                paragraph: ParagraphStyle = ParagraphStyle()) throws(TextError) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput:
                self.init(String(decoding: bytes, as: UTF8.self), style: style, paragraph: paragraph)
                return
            case .error:
                throw TextError("invalid UTF-8 at byte \(offset)", path: "string")
            }
        }
    }

    /// The number of UTF-16 code units in the string.
    public var utf16Count: Int { runs[runs.count - 1].range.upperBound }

    /// Adds `text` in `style` at the end (merged into the last run when the styles are equal).
    public mutating func append(_ text: String, style: TextStyle) {
        let count = TextAnalysis.utf16Length(of: text)
        let last = runs.count - 1
        if runs[last].style == style || runs[last].range.isEmpty {
            runs[last].range = runs[last].range.lowerBound..<(runs[last].range.upperBound + count)
            runs[last].style = style
        } else if count > 0 {
            let start = runs[last].range.upperBound
            runs.append(Run(range: start..<(start + count), style: style))
        }
        string += text
    }

    /// The text in `range` (UTF-16 offsets, as in the lines and runs of a layout).
    public func substring(_ range: Range<Int>) -> Substring {
        let utf16 = string.utf16
        let start = utf16.index(utf16.startIndex, offsetBy: max(0, min(range.lowerBound, utf16Count)))
        let end = utf16.index(start, offsetBy: max(0, min(range.upperBound, utf16Count) - max(0, range.lowerBound)))
        return string[start..<end]
    }

    /// The style in effect at UTF-16 offset `offset` (the last run's past the end).
    public func style(at offset: Int) -> TextStyle {
        runs[runIndex(at: offset)].style
    }

    /// The index of the run holding `offset` (binary search; the last run past the end).
    func runIndex(at offset: Int) -> Int {
        Self.runIndex(in: runs, at: offset)
    }

    /// The index of the run of `runs` holding `offset`.
    static func runIndex(in runs: [Run], at offset: Int) -> Int {
        var low = 0, high = runs.count - 1
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].range.upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first problem with the runs' styles or the paragraph options; nil when the text can be measured.
    public func problem() -> TextError? {
        // The path is only spelled out for a run that has a problem.
        for (index, run) in runs.enumerated() where run.style.problem(at: "") != nil {
            return run.style.problem(at: "runs[\(index)].style")
        }
        return paragraph.problem()
    }
}
