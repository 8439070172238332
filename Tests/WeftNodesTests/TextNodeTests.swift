import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
import WeftText

/// Numbers from the fonts, not from the engine: advances from HarfBuzz's own `hb-shape` on Debian's font
/// files (``FontFacts``), vertical metrics from the fonts' tables (fontTools: Noto Sans, Noto Sans Bold and
/// Noto Serif Italic all have 1000 units per em, hhea ascender 1069, descender -293, no line gap).
/// Layout sizes are then rounded up to the 1/2-point grid (scale 2).
enum FontFacts {
    static let notoSans = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    static let notoSansBold = "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf"
    static let notoSerifItalic = "/usr/share/fonts/truetype/noto/NotoSerif-Italic.ttf"

    /// `hb-shape --output-format=json FONT TEXT`, the advance (`ax`) of each glyph, in font units (one cluster a
    /// glyph for these texts). "W" is 930 alone but 910 before "e": kerning.
    static let advances: [(font: String, text: String, advances: [Int])] = [
        (notoSans, "Weft lays out text", [910, 564, 344, 361, 260, 258, 561, 510, 479, 260, 605, 618, 361, 260, 361, 544, 529, 361]),
        (notoSans, "\u{2026}", [791]),
        (notoSansBold, "Bold ", [672, 619, 305, 633, 260]),
        (notoSerifItalic, "italic", [304, 368, 579, 304, 304, 487]),
    ]

    /// The advances of `text` in `font`, in font units.
    static func units(_ text: String, font: String = notoSans) -> [Int] {
        advances.first { $0.font == font && $0.text == text }?.advances ?? []
    }

    /// The points of the first `count` glyphs of `text` at `size`.
    static func width(_ text: String, font: String = notoSans, glyphs range: Range<Int>? = nil, size: Double) -> Double {
        let all = units(text, font: font)
        return Double(all[range ?? 0..<all.count].reduce(0, +)) * size / 1000
    }

    /// Noto's line: (1069 + 293) / 1000 em.
    static func lineHeight(size: Double) -> Double { 1.362 * size }
    static func ascender(size: Double) -> Double { 1.069 * size }
    static func descender(size: Double) -> Double { -0.293 * size }
}

/// Two numbers equal to within rounding of sums of products.
func close(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
}

/// Rounds up to the 1/2-point grid, as layout does at scale 2.
func onGrid(_ value: Double) -> Double { (value * 2).rounded(.up) / 2 }

@Suite("Text nodes with real fonts")
struct TextNodeTests {
    let unbounded = SizeRange(min: .zero, max: Size(.infinity, .infinity))

    @Test("By default a text node measures with the standard fonts: HarfBuzz's advances, the font's line")
    func realFonts() throws {
        let node = TextNode(text: "Weft", textStyle: TextStyle(size: 20))
        // "Weft" at 20 pt: (910 + 564 + 344 + 361) / 1000 x 20 = 43.58; the line 1.362 x 20 = 27.24.
        let width = FontFacts.width("Weft lays out text", glyphs: 0..<4, size: 20)
        let layout = try node.measurement(width: .infinity)
        #expect(close(layout.width, width) && close(layout.height, FontFacts.lineHeight(size: 20)))
        #expect(try node.layoutThatFits(unbounded).size == Size(onGrid(width), onGrid(FontFacts.lineHeight(size: 20))))
        #expect(try node.layoutThatFits(unbounded).size == Size(44, 27.5))
        // Baselines from the font: ascender 1.069 x 20, descender -0.293 x 20.
        #expect(close(node.style.ascender, FontFacts.ascender(size: 20)))
        #expect(close(node.style.descender, FontFacts.descender(size: 20)))
    }

    @Test("Text wraps at word boundaries in its range's width")
    func wrapping() throws {
        let node = TextNode(text: "Weft lays out text", textStyle: TextStyle(size: 20))
        // "Weft lays" is 84.94 wide; "Weft lays out" 121.82 passes 100, so "out" starts the second line,
        // "out text" (glyphs 10 to 17), 72.78 wide. The space after "lays" hangs at the first line's end.
        let first = FontFacts.width("Weft lays out text", glyphs: 0..<9, size: 20)
        let second = FontFacts.width("Weft lays out text", glyphs: 10..<18, size: 20)
        #expect(FontFacts.width("Weft lays out text", glyphs: 0..<13, size: 20) > 100)
        let layout = try node.measurement(width: 100)
        #expect(layout.lines.map(\.range) == [0..<10, 10..<18])
        #expect(layout.lines.count == 2 && close(layout.lines[0].width, first) && close(layout.lines[1].width, second))
        let size = try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, .infinity))).size
        #expect(size == Size(onGrid(first), onGrid(2 * FontFacts.lineHeight(size: 20))))
        #expect(size == Size(85, 54.5))
    }

    @Test("The last line is cut for the token, measured in the text's font")
    func truncation() throws {
        let node = TextNode(text: "Weft lays out text", textStyle: TextStyle(size: 20),
                            paragraphStyle: ParagraphStyle(maximumNumberOfLines: 1))
        // The token "…" is 0.791 x 20 = 15.82 wide, leaving 84.18 of 100: "Weft lay" (75.36) fits, "Weft lays"
        // (84.94) does not.
        let token = FontFacts.width("\u{2026}", size: 20)
        let kept = FontFacts.width("Weft lays out text", glyphs: 0..<8, size: 20)
        #expect(kept + token <= 100 && FontFacts.width("Weft lays out text", glyphs: 0..<9, size: 20) + token > 100)
        let layout = try node.measurement(width: 100)
        #expect(layout.isTruncated && layout.lines.map(\.range) == [0..<8])
        #expect(close(layout.width, kept + token))
        #expect(try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, .infinity))).size == Size(91.5, 27.5))
    }

    @Test("Runs keep their own fonts: weights and families resolve through the registry")
    func runs() throws {
        let text = AttributedText([("Bold ", TextStyle(size: 20, weight: 700)),
                                   ("italic", TextStyle(family: "Noto Serif", size: 20, isItalic: true))])
        let node = TextNode(attributedText: text)
        let layout = try node.measurement(width: .infinity)
        let width = FontFacts.width("Bold ", font: FontFacts.notoSansBold, size: 20)
            + FontFacts.width("italic", font: FontFacts.notoSerifItalic, size: 20)
        #expect(close(layout.width, width))
        #expect(layout.lines.first?.runs.map { $0.font?.path } == [FontFacts.notoSansBold, FontFacts.notoSerifItalic])
        #expect(try node.layoutThatFits(unbounded).size == Size(97, 27.5))
        #expect(node.textStyle == text.runs[0].style, "the node's text style is the first run's")
    }

    /// Texture's text node: the ascender comes from the font at the first character, the descender from the
    /// one at the last. With a line height of 40 at 20 pt, the extra 40 - 27.24 is split above and below.
    @Test("The style's baselines come from the first and last runs' fonts, line height included")
    func baselines() throws {
        let mixed = TextNode(attributedText: AttributedText([("small ", TextStyle(size: 10)), ("big", TextStyle(size: 20))]))
        #expect(close(mixed.style.ascender, FontFacts.ascender(size: 10)))
        #expect(close(mixed.style.descender, FontFacts.descender(size: 20)))
        let tall = TextNode(text: "x", textStyle: TextStyle(size: 20, lineHeight: 40))
        let halfLeading = (40 - FontFacts.lineHeight(size: 20)) / 2
        #expect(close(tall.style.ascender, FontFacts.ascender(size: 20) + halfLeading))
        #expect(close(tall.style.descender, FontFacts.descender(size: 20) - halfLeading))
    }

    /// The advances above are HarfBuzz's: `hb-shape` (Debian's libharfbuzz-bin, which setup.sh installs) still
    /// prints them for the same font files.
    @Test("hb-shape prints the advances these tests use", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/hb-shape")))
    func advancesFromHarfBuzz() throws {
        for (font, text, advances) in FontFacts.advances {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/hb-shape")
            process.arguments = ["--output-format=json", font, text]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let glyphs = try JSONSerialization.jsonObject(with: output) as? [[String: Any]] ?? []
            #expect(glyphs.map { $0["ax"] as? Int ?? -1 } == advances, "\(text) in \(font)")
        }
    }

    @Test("Setters change the text atomically and relayout only when the value changes")
    func setters() throws {
        let node = TextNode(text: "a", textStyle: TextStyle(size: 10), measurer: FixedMetricsMeasurer())
        let version = node.layoutVersion
        node.text = "a"
        #expect(node.layoutVersion == version, "the same text: no relayout")
        node.text = "ab"
        #expect(node.layoutVersion == version + 1)
        #expect(node.attributedText == AttributedText("ab", style: TextStyle(size: 10)))
        // A new style restyles the whole text and moves the baselines (fixed metrics: 0.925 and -0.325 em).
        node.textStyle = TextStyle(size: 20)
        #expect(node.layoutVersion == version + 2)
        #expect(node.attributedText?.runs.map(\.style) == [TextStyle(size: 20)])
        #expect(node.style.ascender == 18.5 && node.style.descender == -6.5)
        node.paragraphStyle = ParagraphStyle(maximumNumberOfLines: 2)
        #expect(node.attributedText?.paragraph.maximumNumberOfLines == 2)
        // Attributed text sets the text style and paragraph options that later plain strings use.
        node.attributedText = AttributedText("x", style: TextStyle(size: 8), paragraph: ParagraphStyle(wrapping: .character))
        node.text = "yz"
        #expect(node.attributedText == AttributedText("yz", style: TextStyle(size: 8), paragraph: ParagraphStyle(wrapping: .character)))
        node.text = nil
        #expect(node.text == nil && node.attributedText == nil)
        #expect(try node.layoutThatFits(unbounded).size == .zero)
        #expect(node.textStyle == TextStyle(size: 8), "the style stays for the next text")
    }
}
