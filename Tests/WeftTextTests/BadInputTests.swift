import Testing
import WeftText

/// Bad values get an error that says what and where; odd but valid text gets a documented result.
@Suite("Bad text input")
struct BadInputTests {
    static let measurers: [any TextMeasurer] = [Support.measurer, FixedMetricsMeasurer()]

    @Test("Sizes, weights, spacing, line heights and features are checked, with their run's path")
    func styles() throws {
        let cases: [(TextStyle, TextError)] = [
            (TextStyle(size: 0), TextError("expected a number from 0.01 to 10000, got 0", path: "runs[0].style.size")),
            (TextStyle(size: -3), TextError("expected a number from 0.01 to 10000, got -3", path: "runs[0].style.size")),
            (TextStyle(size: .nan), TextError("expected a number from 0.01 to 10000, got nan", path: "runs[0].style.size")),
            (TextStyle(size: .infinity), TextError("expected a number from 0.01 to 10000, got inf", path: "runs[0].style.size")),
            (TextStyle(size: 1e300), TextError("expected a number from 0.01 to 10000, got 1e+300", path: "runs[0].style.size")),
            (TextStyle(size: 1e-300), TextError("expected a number from 0.01 to 10000, got 1e-300", path: "runs[0].style.size")),
            (TextStyle(size: 10_000.5), TextError("expected a number from 0.01 to 10000, got 10000.5", path: "runs[0].style.size")),
            (TextStyle(weight: 0), TextError("expected a whole number from 1 to 1000, got 0", path: "runs[0].style.weight")),
            (TextStyle(letterSpacing: .nan), TextError("expected a finite number, got nan", path: "runs[0].style.letterSpacing")),
            (TextStyle(lineHeight: 0), TextError("expected a number > 0, got 0", path: "runs[0].style.lineHeight")),
            (TextStyle(features: [FontFeature("liga"), FontFeature("ligature")]),
             TextError("expected four ASCII letters, digits or spaces, got \"ligature\"", path: "runs[0].style.features[1].tag")),
        ]
        for measurer in Self.measurers {
            for (style, error) in cases {
                #expect(throws: error) { try measurer.measure("text", style: style) }
                #expect(throws: error.within("runs[0].")) { try measurer.lineMetrics(for: style) }
            }
            let second = AttributedText([("a", TextStyle()), ("b", TextStyle(size: -1))])
            #expect(throws: TextError("expected a number from 0.01 to 10000, got -1", path: "runs[1].style.size")) {
                try measurer.measure(second, constraints: TextConstraints())
            }
        }
    }

    @Test("Paragraph options and widths are checked")
    func paragraphAndWidth() throws {
        for measurer in Self.measurers {
            #expect(throws: TextError("expected a whole number >= 0, got -1", path: "paragraph.maximumNumberOfLines")) {
                try measurer.measure("a", paragraph: ParagraphStyle(maximumNumberOfLines: -1))
            }
            #expect(throws: TextError("expected no line breaks in the token", path: "paragraph.truncationToken")) {
                try measurer.measure("a", paragraph: ParagraphStyle(truncationToken: "\n"))
            }
            for width in [-1, Double.nan] {
                #expect(throws: TextError("expected a number >= 0 or infinity, got \(width.isNaN ? "nan" : "-1")", path: "constraints.width")) {
                    try measurer.measure("a", width: width)
                }
            }
            // Width 0 is valid: one grapheme cluster a line.
            #expect(try measurer.measure("ab", width: 0).lines.count == 2)
        }
    }

    @Test("Invalid UTF-8 is refused at its first bad byte; a JSON decoder's U+FFFD is measured as a character")
    func utf8() throws {
        #expect(throws: TextError("invalid UTF-8 at byte 1", path: "string")) {
            try AttributedText(validatingUTF8: [0x61, 0xFF, 0x62])
        }
        // A lone surrogate (U+D800) encoded as UTF-8 is invalid too.
        #expect(throws: TextError("invalid UTF-8 at byte 2", path: "string")) {
            try AttributedText(validatingUTF8: [0x61, 0x62, 0xED, 0xA0, 0x80])
        }
        #expect(try AttributedText(validatingUTF8: Array("héllo".utf8)).string == "héllo")
        let replaced = try Support.measurer.measure("a\u{FFFD}b", style: TextStyle(size: 10))
        #expect(replaced.lines.count == 1 && replaced.width > 0)
    }

    @Test("A text over the length limit is refused before any work")
    func tooLong() throws {
        let tenMegabytes = String(repeating: "0123456789", count: 1_048_576)
        #expect(throws: TextError("the text has 10485760 UTF-16 code units, more than this measurer's limit of 1048576",
                                  path: "string", kind: .limit)) {
            try Support.measurer.measure(tenMegabytes)
        }
    }

    @Test("A grapheme cluster over 1,024 code units is refused, naming its offset")
    func longCluster() throws {
        // "ab " then e with 1,024 acute accents (each one code unit): a cluster of 1,025 units at offset 3.
        let text = "ab " + "e" + String(repeating: "\u{301}", count: 1024) + " cd"
        #expect(throws: TextError("the grapheme cluster at UTF-16 offset 3 has 1025 code units, more than the limit of 1024",
                                  path: "string", kind: .limit)) {
            try FontMeasurer(registry: Support.measurer.registry).measure(text)
        }
        // Marks beyond the limit are refused whatever base they follow: 512K of them after one letter.
        let many = "x" + String(repeating: "\u{300}", count: 512 * 1024)
        #expect(throws: TextError("the grapheme cluster at UTF-16 offset 0 has 524289 code units, more than the limit of 1024",
                                  path: "string", kind: .limit)) {
            try FontMeasurer(registry: Support.measurer.registry).measure(many)
        }
    }

    @Test("The smallest and largest font sizes are measured in proportion")
    func sizeBounds() throws {
        // Widths scale with the size: 10,000 pt is 1,000 times 10 pt, 0.01 pt a thousandth of it.
        let ten = try Support.measurer.measure("Weft", style: TextStyle(size: 10)).width
        let largest = try Support.measurer.measure("Weft", style: TextStyle(size: 10_000)).width
        let smallest = try Support.measurer.measure("Weft", style: TextStyle(size: 0.01)).width
        #expect(ten > 0)
        #expect(close(largest, ten * 1000, 1e-9) && close(smallest, ten / 1000, 1e-9))
    }

    @Test("A long text is measured whole: chunked shaping gives the sum of its parts")
    func longText() throws {
        // 60,000 words shaped in chunks of at most 4,096 code units, cut at spaces: no kerning with spaces in
        // Noto Sans, so the width is the words' and spaces' advances (the last space hangs).
        let noto = Support.notoSans
        let layout = try FontMeasurer(registry: Support.measurer.registry).measure(String(repeating: "abc ", count: 60_000), style: TextStyle(size: 10))
        let word = noto.advance("a", size: 10) + noto.advance("b", size: 10) + noto.advance("c", size: 10)
        #expect(close(layout.width, 60_000 * word + 59_999 * noto.advance(" ", size: 10), 1e-9))
    }

    @Test("Controls, a grapheme cluster at the length limit and a lone combining mark measure without trouble")
    func oddText() throws {
        // e and 1,023 acute accents: one cluster of 1,024 code units, the most accepted, is one line at any width.
        let marks = "e" + String(repeating: "\u{301}", count: 1023)
        #expect(try Support.measurer.measure(marks, width: 1).lines.count == 1)
        #expect(try Support.measurer.measure("\u{0}\u{1}\u{7F}\u{301}").lines.count == 1)
        #expect(try Support.measurer.measure("\u{200D}\u{FE0F}\u{1F3FD}").lines.count == 1)
    }
}

extension TextError {
    /// The error with its path's leading `prefix` removed.
    func within(_ prefix: String) -> TextError {
        var copy = self
        if copy.path.hasPrefix(prefix) { copy.path.removeFirst(prefix.count) }
        return copy
    }
}
