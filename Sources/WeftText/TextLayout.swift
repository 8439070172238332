/// Measured text: its size, its lines as set, and the metrics that baseline alignment needs.
///
/// Every number is in points, with y growing down from the top of the first line. Lines and runs are in
/// logical (reading) order and runs are placed left to right: right-to-left text is measured correctly
/// (shaped in its direction, split into its bidi runs) but not reordered for drawing.
public struct TextLayout: Hashable, Sendable {
    /// The widest line's width (without hanging spaces at line ends).
    public var width: Double
    /// The sum of the lines' heights.
    public var height: Double
    public var lines: [TextLine]
    /// Whether text was left out to honour `maximumNumberOfLines`.
    public var isTruncated: Bool
    /// The token that ends the last line when it was tail-truncated, or nil.
    public var truncationToken: String?
    /// From the top to the first line's baseline (0 for no lines: then the metrics of the text's style).
    public var ascender: Double
    /// From the bottom to the last line's baseline: negative, as in Texture's `style.descender`.
    public var descender: Double

    public init(width: Double, height: Double, lines: [TextLine], isTruncated: Bool, truncationToken: String?,
                ascender: Double, descender: Double) {
        self.width = width
        self.height = height
        self.lines = lines
        self.isTruncated = isTruncated
        self.truncationToken = truncationToken
        self.ascender = ascender
        self.descender = descender
    }
}

/// One line of a ``TextLayout``.
public struct TextLine: Hashable, Sendable {
    /// The UTF-16 offsets of the text set on this line: with the spaces that hang at its end, without the
    /// line break that ended it; when the line was tail-truncated, up to the cut (spaces before the token
    /// dropped).
    public var range: Range<Int>
    /// The width of the text and token, without spaces that hang at the line's end.
    public var width: Double
    /// The line's top, from the top of the layout.
    public var top: Double
    public var height: Double
    /// The baseline's y, from the top of the layout.
    public var baseline: Double
    /// The pieces of the line that share a font and size, in logical order.
    public var runs: [TextRun]

    public init(range: Range<Int>, width: Double, top: Double, height: Double, baseline: Double, runs: [TextRun]) {
        self.range = range
        self.width = width
        self.top = top
        self.height = height
        self.baseline = baseline
        self.runs = runs
    }
}

/// A piece of a line set in one face at one size: where to draw it.
public struct TextRun: Hashable, Sendable {
    /// UTF-16 offsets into the text; empty for the truncation token.
    public var range: Range<Int>
    /// The x of the run's start (its left edge; runs are placed left to right in logical order).
    public var x: Double
    /// The advance of the run, including letter spacing and any trailing spaces.
    public var width: Double
    /// The face the run is set in (after font fallback), or nil for a measurer without fonts.
    public var font: FontFace?
    public var size: Double
    public var isRightToLeft: Bool
    /// Whether this run is the truncation token (its text is ``TextLayout/truncationToken``).
    public var isTruncationToken: Bool

    public init(range: Range<Int>, x: Double, width: Double, font: FontFace?, size: Double, isRightToLeft: Bool = false,
                isTruncationToken: Bool = false) {
        self.range = range
        self.x = x
        self.width = width
        self.font = font
        self.size = size
        self.isRightToLeft = isRightToLeft
        self.isTruncationToken = isTruncationToken
    }
}

/// Where a line in one style puts its baseline: for baseline alignment of text that is not laid out yet.
public struct LineMetrics: Hashable, Sendable {
    /// From the line's top to its baseline.
    public var ascender: Double
    /// From the line's bottom to its baseline: negative.
    public var descender: Double
    /// The line's height (ascender - descender).
    public var lineHeight: Double { ascender - descender }

    public init(ascender: Double, descender: Double) {
        self.ascender = ascender
        self.descender = descender
    }
}
