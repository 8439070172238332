import Testing
import WeftFormat
import WeftLayout
@testable import WeftNodes
import WeftText

/// The `text` leaf of the JSON format. Fixed metrics (documented fractions of the size) where sizes are
/// checked, real fonts where families are.
@Suite("The text leaf of the JSON format")
struct TextLeafDecoderTests {
    let fixed = LayoutDecoder.withNodes(textMeasurer: FixedMetricsMeasurer())

    func frames(_ json: String, decoder: LayoutDecoder, max: Size = Size(100, 100)) throws -> [String: Rect] {
        let document = try decoder.decode(json)
        let layout = try Layout.compute(document.root, in: SizeRange(min: .zero, max: max))
        return Dictionary(uniqueKeysWithValues: layout.allFrames().compactMap { e in e.element.identifier.map { ($0, e.frame) } })
    }

    func textNode(_ json: String, decoder: LayoutDecoder) throws -> TextNode {
        try #require(try decoder.decode(json).root as? TextNode)
    }

    @Test("The simple form: one string, a size and a line height; the text carries its baseline")
    func simpleForm() throws {
        let frames = try frames("""
        {"type": "stack", "alignItems": "baselineFirst", "children": [
          {"type": "text", "id": "t", "text": "ab", "fontSize": 10, "lineHeight": 20},
          {"type": "image", "id": "i", "size": [8, 8], "style": {"ascender": 8}}
        ]}
        """, decoder: fixed)
        // Fixed metrics: "ab" at 10 pt is 10 wide; its ascender 8 + (20 - 10) / 2 = 13 is the baseline, so the
        // image (ascender 8) sits at 13 - 8 = 5.
        #expect(frames["t"] == Rect(x: 0, y: 0, width: 10, height: 20))
        #expect(frames["i"] == Rect(x: 10, y: 5, width: 8, height: 8))
    }

    @Test("Runs take the leaf's style and change it; paragraph options are read")
    func runsAndParagraph() throws {
        let node = try textNode("""
        {"type": "text", "fontSize": 10, "maximumNumberOfLines": 2, "truncation": "clip", "truncationToken": ">",
         "wrapping": "character", "runs": [
           {"text": "ab ", "fontWeight": 700, "italic": true},
           {"text": "cd", "fontSize": 20, "letterSpacing": 1, "lineHeight": 30, "fontFamily": "Noto Serif"}]}
        """, decoder: fixed)
        let expected = AttributedText([
            ("ab ", TextStyle(size: 10, weight: 700, isItalic: true)),
            ("cd", TextStyle(family: "Noto Serif", size: 20, letterSpacing: 1, lineHeight: 30)),
        ], paragraph: ParagraphStyle(wrapping: .character, maximumNumberOfLines: 2, truncation: .clip, truncationToken: ">"))
        #expect(node.attributedText == expected)
        // Fixed metrics: "ab" 10, the space 2.5, "cd" at 20 pt with 1 point after each letter 2 x (10 + 1) = 22;
        // the line is as tall as its tallest run's line height, 30.
        #expect(try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, 100))).size == Size(34.5, 30))
    }

    @Test("Families resolve through the measurer's registry, in any case")
    func families() throws {
        let decoder = LayoutDecoder.withNodes(textMeasurer: try smallMeasurer())
        let node = try textNode(#"{"type": "text", "text": "x", "fontFamily": "noto SANS"}"#, decoder: decoder)
        #expect(node.textProblem == nil)
        #expect(try node.measurement(width: 100).lines.first?.runs.first?.font?.path == FontFacts.notoSans)
    }

    @Test("Bad values are refused at their JSON path")
    func badInput() throws {
        let decoder = LayoutDecoder.withNodes(textMeasurer: try smallMeasurer(maximumLength: 10))
        let unknown = #"no font family "Nope" is registered (registered: Noto Sans)"#
        let cases: [(String, LayoutError)] = [
            (#"{"fontFamily": "Nope", "text": "a"}"#, LayoutError(unknown, path: "root.fontFamily")),
            (#"{"runs": [{"text": "a"}, {"text": "b", "fontFamily": "Nope"}]}"#, LayoutError(unknown, path: "root.runs[1].fontFamily")),
            (#"{"fontFamily": ""}"#, LayoutError("expected a non-empty string", path: "root.fontFamily")),
            (#"{"fontSize": 0}"#, LayoutError("expected a number from 0.01 to 10000, got 0", path: "root.fontSize")),
            (#"{"fontSize": 1e300}"#, LayoutError("expected a number from 0.01 to 10000, got 1e+300", path: "root.fontSize")),
            (#"{"fontSize": 1e-300}"#, LayoutError("expected a number from 0.01 to 10000, got 1e-300", path: "root.fontSize")),
            (#"{"runs": [{"text": "a", "fontSize": -1}]}"#, LayoutError("expected a number from 0.01 to 10000, got -1", path: "root.runs[0].fontSize")),
            (#"{"fontWeight": 0}"#, LayoutError("expected a whole number from 1 to 1000, got 0", path: "root.fontWeight")),
            (#"{"fontWeight": 450.5}"#, LayoutError("expected a whole number from 1 to 1000, got 450.5", path: "root.fontWeight")),
            (#"{"lineHeight": 0}"#, LayoutError("expected a number > 0, got 0", path: "root.lineHeight")),
            (#"{"italic": "yes"}"#, LayoutError(#"expected true or false, got "yes""#, path: "root.italic")),
            (#"{"maximumNumberOfLines": 1.5}"#, LayoutError("expected a whole number >= 0, got 1.5", path: "root.maximumNumberOfLines")),
            (#"{"truncation": "head"}"#, LayoutError(#"expected one of "tail", "clip", got "head""#, path: "root.truncation")),
            (#"{"wrapping": "line"}"#, LayoutError(#"expected one of "word", "character", got "line""#, path: "root.wrapping")),
            (#"{"truncationToken": "a\nb"}"#, LayoutError("expected no line breaks in the token", path: "root.truncationToken")),
            (#"{"text": "a", "runs": []}"#, LayoutError(#"give either "text" or "runs", not both"#, path: "root.runs")),
            (#"{"runs": "a"}"#, LayoutError(#"expected an array of runs ({"text": ...}), got "a""#, path: "root.runs")),
            (#"{"runs": [5]}"#, LayoutError("expected a text run (a JSON object), got 5", path: "root.runs[0]")),
            (#"{"runs": [{"fontSize": 3}]}"#, LayoutError(#"missing; a text run needs "text""#, path: "root.runs[0].text")),
            (#"{"text": "01234567890"}"#, LayoutError("the text has more than 10 UTF-16 code units, the measurer's limit",
                                                      path: "root.text", kind: .limit)),
            (#"{"runs": [{"text": "012345"}, {"text": "678901"}]}"#,
             LayoutError("the text has more than 10 UTF-16 code units, the measurer's limit", path: "root.runs", kind: .limit)),
        ]
        for (members, error) in cases {
            let json = #"{"type": "text", "#  + members.dropFirst()
            #expect(throws: error, "\(json)") { try decoder.decode(json) }
        }
        // Unknown members get a hint, in runs too.
        #expect(throws: (any Error).self) { try decoder.decode(#"{"type": "text", "fontsize": 3}"#) }
        do {
            _ = try decoder.decode(#"{"type": "text", "runs": [{"text": "a", "colour": "red"}]}"#)
            Issue.record("an unknown run member was accepted")
        } catch {
            #expect(error.path == "root.runs[0].colour" && error.reason.hasPrefix("unknown property"))
        }
        // An escaped lone surrogate (invalid UTF-16, which no UTF-8 text can hold) is refused by the parser.
        do {
            _ = try decoder.decode(#"{"type": "text", "text": "a\ud800"}"#)
            Issue.record("a lone surrogate was accepted")
        } catch {
            #expect(error.kind == .malformed && error.path == "root.text" && error.reason.hasSuffix("unpaired surrogate \\ud800"))
        }
    }

    /// 10 MB of text: refused with the standard measurer's limit (2^20 UTF-16 code units) before any shaping.
    @Test("A 10 MB text is refused as a limit")
    func hugeText() throws {
        let json = #"{"type": "text", "text": ""# + String(repeating: "0123456789", count: 1_000_000) + #""}"#
        #expect(throws: LayoutError("the text has more than 1048576 UTF-16 code units, the measurer's limit", path: "root.text",
                                    kind: .limit)) {
            try LayoutDecoder.withNodes().decode(json)
        }
    }
}
