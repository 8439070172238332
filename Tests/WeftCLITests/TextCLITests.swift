import Foundation
import Testing

/// `weft layout` and `weft demo` with text: the measurer options, fonts registered from directories, and text
/// drawn in SVG pictures. Numbers come from the fonts (hb-shape and the fonts' tables) or from the fixed
/// metrics' documented fractions.
@Suite("weft layout: text")
struct TextCLITests {
    static let weft = #"{"type": "text", "id": "t", "text": "Weft", "fontSize": 20}"#
    static let dejaVu = "/usr/share/fonts/truetype/dejavu"
    static let mono = #"{"type": "text", "id": "m", "text": "weft", "fontFamily": "DejaVu Sans Mono", "fontSize": 20.48}"#

    @Test("Real fonts by default; --text-metrics fixed for the fixed fractions")
    func metrics() throws {
        // Noto Sans: hb-shape gives "Weft" 910 + 564 + 344 + 361 = 2179 units of 1000, 43.58 at 20 points; the
        // line is (1069 + 293) / 1000 x 20 = 27.24. Rounded up to the 1/2-point grid: 44 x 27.5.
        let fonts = try Weft.run(["layout", "-", "--format", "flat"], stdin: Self.weft)
        #expect(fonts.status == 0, "\(fonts.stderr)")
        #expect(fonts.stdout == "{\n  \"t\": [0, 0, 44, 27.5]\n}\n")
        // Fixed: W 0.85 + e 0.5 + f 0.3 + t 0.3 = 1.95 em = 39 at 20 points; the line 1.25 x 20 = 25.
        let fixed = try Weft.run(["layout", "-", "--format", "flat", "--text-metrics", "fixed"], stdin: Self.weft)
        #expect(fixed.stdout == "{\n  \"t\": [0, 0, 39, 25]\n}\n")
    }

    @Test("--font-dir registers the fonts of a directory beside the standard ones")
    func fontDirectory() throws {
        let without = try Weft.run(["layout", "-", "--format", "flat"], stdin: Self.mono)
        #expect(without.status == 2)
        #expect(without.stderr.hasPrefix(#"weft: root.fontFamily: no font family "DejaVu Sans Mono" is registered (registered: "#))
        // DejaVu Sans Mono: 1233 units of 2048 a glyph, 12.33 at 20.48 points: 4 x 12.33 = 49.32; its line
        // (1901 + 483) / 2048 x 20.48 = 23.84. Rounded: 49.5 x 24.
        let with = try Weft.run(["layout", "-", "--format", "flat", "--font-dir", Self.dejaVu], stdin: Self.mono)
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.stdout == "{\n  \"m\": [0, 0, 49.5, 24]\n}\n")
        // Repeatable, and the standard fonts stay: Noto Sans still measures "Weft" as above.
        let both = try Weft.run(["layout", "-", "--format", "flat", "--font-dir", Self.dejaVu, "--font-dir", Self.dejaVu],
                                stdin: Self.weft)
        #expect(both.stdout == "{\n  \"t\": [0, 0, 44, 27.5]\n}\n")
    }

    @Test("--font-dir skips a named pipe posing as a font with a warning naming it, and lays out")
    func fontDirectoryWithPipe() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weft-cli-fonts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(atPath: Self.dejaVu + "/DejaVuSansMono.ttf", toPath: directory.appendingPathComponent("mono.ttf").path)
        let pipe = directory.appendingPathComponent("x.ttf").path
        try #require(mkfifo(pipe, 0o600) == 0)
        let result = try Weft.run(["layout", "-", "--format", "flat", "--font-dir", directory.path], stdin: Self.mono)
        #expect(result.status == 0)
        #expect(result.stderr == "weft: warning: --font-dir \(directory.path): \(pipe): not a regular file: a named pipe; skipped\n")
        // DejaVu Sans Mono from mono.ttf, as in `fontDirectory`.
        #expect(result.stdout == "{\n  \"m\": [0, 0, 49.5, 24]\n}\n")
    }

    @Test("Font sizes outside 0.01 to 10,000 points are refused at the element's fontSize")
    func fontSizes() throws {
        for (size, shown) in [("1e300", "1e+300"), ("1e-300", "1e-300"), ("0.001", "0.001"), ("10001", "10001")] {
            let document = #"{"type": "stack", "children": [{"type": "text", "id": "t", "text": "Weft", "fontSize": "# + size + "}]}"
            let result = try Weft.run(["layout", "-"], stdin: document)
            #expect(result.status == 2)
            #expect(result.stderr == "weft: root.children[0].fontSize: expected a number from 0.01 to 10000, got \(shown)\n")
        }
        let runs = #"{"type": "text", "runs": [{"text": "a"}, {"text": "b", "fontSize": 20000}]}"#
        #expect(try Weft.run(["layout", "-"], stdin: runs).stderr
            == "weft: root.runs[1].fontSize: expected a number from 0.01 to 10000, got 20000\n")
    }

    @Test("Bad text options and text input exit with status 2 and one line")
    func badInput() throws {
        let cases: [([String], String, String)] = [
            (["--font-dir", "no/such/dir"], Self.weft, "--font-dir no/such/dir: not a directory"),
            (["--font-dir", "Sources"], Self.weft, "--font-dir Sources: no font files (.ttf, .otf, .ttc, .otc) in the directory"),
            (["--font-dir", Self.dejaVu, "--text-metrics", "fixed"], Self.weft, "--font-dir: fonts are not used with --text-metrics fixed"),
            (["--text-metrics", "serif"], Self.weft, #"--text-metrics: expected one of fonts, fixed, got "serif""#),
            ([], #"{"type": "text", "text": "a", "fontSize": -2}"#, "root.fontSize: expected a number from 0.01 to 10000, got -2"),
            ([], #"{"type": "text", "runs": [{"text": "a", "fontWeight": 1200}]}"#,
             "root.runs[0].fontWeight: expected a whole number from 1 to 1000, got 1200"),
            ([], #"{"type": "text", "text": "\udc00"}"#, #"root.text: malformed JSON at line 1, column 33: unpaired surrogate \udc00"#),
        ]
        for (options, document, message) in cases {
            let result = try Weft.run(["layout", "-"] + options, stdin: document)
            #expect(result.status == 2, "\(options)")
            #expect(result.stderr == "weft: \(message)\n")
            #expect(result.stdout.isEmpty)
        }
        // 10 MB of text: refused as over the limit, not measured.
        let huge = #"{"type": "text", "text": ""# + String(repeating: "0123456789", count: 1_000_000) + #""}"#
        let result = try Weft.run(["layout", "-"], stdin: huge)
        #expect(result.stderr == "weft: root.text: the text has more than 1048576 UTF-16 code units, the measurer's limit\n")
    }

    @Test("SVG pictures draw the text lines and list text leaves in a legend")
    func picture() throws {
        let result = try Weft.run(["layout", "-", "--format", "svg"], stdin: Self.weft)
        #expect(result.status == 0)
        // The baseline 1.069 x 20 = 21.38 below the top, in Noto Sans at 20 points; the line box 43.58 x 27.24.
        #expect(result.stdout.contains(##"<text x="0" y="21.38" font-family="Noto Sans" font-size="20" font-weight="400" "##
            + ##"fill="#1a202c" xml:space="preserve">Weft</text>"##))
        #expect(result.stdout.contains(##"<rect x="0" y="0" width="43.58" height="27.24" fill="#fefcbf""##))
        #expect(result.stdout.contains(#">text &quot;t&quot; [0, 0, 44, 27.5]: 1 line</text>"#))
    }
}

@Suite("weft demo: text")
struct DemoTextTests {
    @Test("The demo measures with real fonts and reports the text cache; --text-metrics fixed uses none")
    func textCache() throws {
        let fonts = try Weft.run(["demo", "--cells", "100"])
        #expect(fonts.status == 0, "\(fonts.stderr)")
        let row = try #require(fonts.stdout.split(separator: "\n").first { $0.contains("text cache") })
        #expect(row.contains(" texts measured ("), "\(row)")
        let fixed = try Weft.run(["demo", "--cells", "100", "--text-metrics", "fixed"])
        #expect(fixed.stdout.contains("text cache                        not used (fixed metrics)"), "\(fixed.stdout)")
        #expect(fixed.stdout.contains("diffs applied                     500 insertions, 0 removals, 0 moves"))
    }
}
