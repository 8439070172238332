/// How one run of text is set: the attributes of Texture's attributed strings that matter for layout.
public struct TextStyle: Hashable, Sendable {
    /// The font family (`"Noto Sans"`), or nil for the registry's default family. Case does not matter.
    public var family: String?
    /// The font size in points, in ``sizeRange``.
    public var size: Double
    /// The weight, as in CSS and OpenType: 100 thin, 400 regular, 700 bold (1...1000). The registered face
    /// nearest to it is used (CSS's font matching); weights are never synthesized.
    public var weight: Int
    /// Whether an italic face is wanted. A family without one is set upright (no synthetic slant).
    public var isItalic: Bool
    /// Points added after every grapheme cluster (may be negative). When it is not 0 the optional ligatures
    /// (`liga`, `clig`, `dlig`, `hlig`) are turned off, as CSS asks, so that spaced letters stay apart.
    public var letterSpacing: Double
    /// The distance from one line's top to the next's, in points (> 0), or nil for the font's own:
    /// ascender + descender + line gap. Extra (or missing) space is split evenly above and below the glyphs.
    public var lineHeight: Double?
    /// OpenType features to set or clear (`FontFeature("liga", 0)`), after HarfBuzz's defaults.
    public var features: [FontFeature]

    /// The font sizes accepted, in points. Glyphs are shaped in font units and scaled by the size in
    /// Doubles, so neither HarfBuzz nor FreeType bounds it; the bounds keep sizes where layout means
    /// something. Below 0.01 pt a line is under a pixel at any scale up to 100 (screens are 1 to 4), and rounds
    /// to nothing; 10,000 pt (3.5 m) is beyond any screen or poster, and at it the longest text (2^20 units,
    /// ``FontMeasurer/defaultMaximumLength``) at the largest scale (10,000) stays under 2^53 pixels, where a
    /// Double still holds whole pixels exactly.
    public static let sizeRange: ClosedRange<Double> = 0.01...10_000

    public init(family: String? = nil, size: Double = 14, weight: Int = 400, isItalic: Bool = false,
                letterSpacing: Double = 0, lineHeight: Double? = nil, features: [FontFeature] = []) {
        self.family = family
        self.size = size
        self.weight = weight
        self.isItalic = isItalic
        self.letterSpacing = letterSpacing
        self.lineHeight = lineHeight
        self.features = features
    }

    /// The first problem with these attributes, as an error whose path starts at `path`; nil when usable.
    public func problem(at path: String = "style") -> TextError? {
        if !Self.sizeRange.contains(size) {
            return TextError("expected a number from \(TextError.number(Self.sizeRange.lowerBound)) to "
                             + "\(TextError.number(Self.sizeRange.upperBound)), got \(TextError.number(size))", path: path + ".size")
        }
        if !(1...1000).contains(weight) {
            return TextError("expected a whole number from 1 to 1000, got \(weight)", path: path + ".weight")
        }
        if !letterSpacing.isFinite {
            return TextError("expected a finite number, got \(TextError.number(letterSpacing))", path: path + ".letterSpacing")
        }
        if let lineHeight, !(lineHeight.isFinite && lineHeight > 0) {
            return TextError("expected a number > 0, got \(TextError.number(lineHeight))", path: path + ".lineHeight")
        }
        for (index, feature) in features.enumerated() where !feature.isValid {
            return TextError("expected four ASCII letters, digits or spaces, got \"\(feature.tag)\"",
                             path: path + ".features[\(index)].tag")
        }
        return nil
    }
}

/// An OpenType feature setting for a whole run: `tag` (four characters, `"liga"`, `"tnum"`) and its value
/// (0 turns it off, 1 on, higher picks an alternate).
public struct FontFeature: Hashable, Sendable {
    public var tag: String
    public var value: UInt32

    public init(_ tag: String, _ value: UInt32 = 1) {
        self.tag = tag
        self.value = value
    }

    /// Whether the tag is four printable ASCII characters.
    var isValid: Bool {
        tag.utf8.count == 4 && tag.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The tag as HarfBuzz's 32-bit number (valid tags only).
    var tagValue: UInt32 {
        tag.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}

/// How a paragraph is broken into lines and cut: Texture's text node options.
public struct ParagraphStyle: Hashable, Sendable {
    /// Where lines may break.
    public enum Wrapping: String, Hashable, Sendable {
        /// At UAX #14 line break opportunities; a word wider than the line breaks between grapheme clusters.
        case word
        /// Between any two grapheme clusters.
        case character
    }

    /// What happens to text beyond `maximumNumberOfLines`.
    public enum Truncation: String, Hashable, Sendable {
        /// The last line ends with `truncationToken`, set in the style of the text it follows.
        case tail
        /// The lines beyond the limit are dropped; nothing marks the cut.
        case clip
    }

    public var wrapping: Wrapping
    /// The most lines to set (0: no limit).
    public var maximumNumberOfLines: Int
    public var truncation: Truncation
    /// What ends a tail-truncated last line.
    public var truncationToken: String

    public init(wrapping: Wrapping = .word, maximumNumberOfLines: Int = 0, truncation: Truncation = .tail,
                truncationToken: String = "\u{2026}") {
        self.wrapping = wrapping
        self.maximumNumberOfLines = maximumNumberOfLines
        self.truncation = truncation
        self.truncationToken = truncationToken
    }

    /// The first problem with these options, as an error whose path starts at `path`; nil when usable.
    public func problem(at path: String = "paragraph") -> TextError? {
        if maximumNumberOfLines < 0 {
            return TextError("expected a whole number >= 0, got \(maximumNumberOfLines)", path: path + ".maximumNumberOfLines")
        }
        if truncationToken.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            return TextError("expected no line breaks in the token", path: path + ".truncationToken")
        }
        return nil
    }
}
