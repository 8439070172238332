/// A registered font face: which file and face it is, how it is styled, and its vertical metrics.
///
/// Immutable; a class so that the runs of every layout point at their face without copying its strings.
/// Two faces are equal when they are the same face of the same file.
public final class FontFace: Hashable, Sendable, CustomStringConvertible {
    /// The family name FreeType reads from the file (the typographic family where the font has one).
    public let family: String
    /// The style name (`"Bold Italic"`).
    public let styleName: String
    /// The OS/2 weight class (400 regular, 700 bold).
    public let weight: Int
    public let isItalic: Bool
    /// The font file.
    public let path: String
    /// The face's index in its file (0 unless the file is a TTC/OTC collection).
    public let index: Int
    public let unitsPerEm: Int
    /// From the baseline up to the top of the font's line, in ems (HarfBuzz's horizontal extents: the OS/2
    /// typographic metrics when the font sets USE_TYPO_METRICS, else `hhea`'s).
    public let ascender: Double
    /// From the baseline down to the bottom of the font's line, in ems: negative.
    public let descender: Double
    /// The font's extra space between lines, in ems.
    public let lineGap: Double

    init(family: String, styleName: String, weight: Int, isItalic: Bool, path: String, index: Int, unitsPerEm: Int,
         ascender: Double, descender: Double, lineGap: Double) {
        self.family = family
        self.styleName = styleName
        self.weight = weight
        self.isItalic = isItalic
        self.path = path
        self.index = index
        self.unitsPerEm = unitsPerEm
        self.ascender = ascender
        self.descender = descender
        self.lineGap = lineGap
    }

    public static func == (lhs: FontFace, rhs: FontFace) -> Bool {
        lhs === rhs || (lhs.path == rhs.path && lhs.index == rhs.index)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(index)
    }

    /// `Noto Sans Bold (NotoSans-Bold.ttf)`.
    public var description: String {
        "\(family) \(styleName) (\(FontFile.lastComponent(of: path))\(index > 0 ? " #\(index)" : ""))"
    }

    /// The font's own line height at `size` points: ascender - descender + line gap.
    public func naturalLineHeight(size: Double) -> Double {
        (ascender - descender + lineGap) * size
    }
}

/// A script, named by its ISO 15924 code, for choosing fallback fonts: `FontScript("Arab")`.
///
/// Two codes have a special use: ``emoji`` (`Zsye`) for emoji presentation sequences, and ``common``
/// (`Zyyy`) for the fallbacks tried after a script's own, for every script.
public struct FontScript: Hashable, Sendable, CustomStringConvertible {
    /// The four-letter code, capitalized: `Latn`, `Arab`, `Hani`.
    public var code: String

    public init(_ code: String) {
        self.code = code
    }

    public var description: String { code }

    public static let latin = FontScript("Latn")
    public static let greek = FontScript("Grek")
    public static let cyrillic = FontScript("Cyrl")
    public static let arabic = FontScript("Arab")
    public static let hebrew = FontScript("Hebr")
    public static let han = FontScript("Hani")
    public static let hiragana = FontScript("Hira")
    public static let katakana = FontScript("Kana")
    public static let hangul = FontScript("Hang")
    public static let devanagari = FontScript("Deva")
    public static let thai = FontScript("Thai")
    public static let emoji = FontScript("Zsye")
    public static let common = FontScript("Zyyy")

    /// The script of HarfBuzz's script tag (an ISO 15924 code in four bytes).
    init(tag: UInt32) {
        let bytes = [UInt8(tag >> 24), UInt8(tag >> 16 & 0xFF), UInt8(tag >> 8 & 0xFF), UInt8(tag & 0xFF)]
        code = String(decoding: bytes, as: UTF8.self)
    }
}
