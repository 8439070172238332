import Testing
@testable import WeftFormat
import WeftLayout

@Suite("ASCII pictures")
struct AsciiPictureTests {
    /// A horizontal stack (alignItems stretch, Texture's default) of a 10x20 box and a 5x5 box: the line is 20
    /// high, so b is stretched to 5x20 and placed at x 10; the stack is 15x20. Leaves are `[ title ]`; the
    /// stack's children sit side by side, one space apart, framed by `| ` and ` |` under a border line with the
    /// stack's title.
    @Test("A horizontal stack draws its children side by side")
    func sideBySide() throws {
        let stack = StackSpec.horizontal(children: [
            Box(size: Size(10, 20), identifier: "a"), Box(size: Size(5, 5), identifier: "b"),
        ], identifier: "s")
        let layout = try Layout.compute(stack, in: SizeRange(min: .zero, max: Size(100, 100)))
        let a = "[ box \"a\" 10x20 @0,0 ]"    // 22 characters
        let b = "[ box \"b\" 5x20 @10,0 ]"    // 22 characters
        let heading = "stack \"s\" 15x20 @0,0"   // 20 characters; the body (22 + 1 + 22 = 45) is wider
        #expect([a.count, b.count, heading.count] == [22, 22, 20])
        let expected = [
            "+-" + heading + String(repeating: "-", count: 45 - 20 + 1) + "+",
            "| " + a + " " + b + " |",
            "+" + String(repeating: "-", count: 47) + "+",
        ].joined(separator: "\n") + "\n"
        #expect(AsciiPicture.render(layout) == expected)
    }

    /// A vertical stack's children sit one above the other, each padded to the widest.
    @Test("A vertical stack draws its children one above the other")
    func aboveEachOther() throws {
        let stack = StackSpec.vertical(alignItems: .start, children: [
            Box(size: Size(10, 20), identifier: "a"), Box(size: Size(5, 5), identifier: "bb"),
        ], identifier: "s")
        let layout = try Layout.compute(stack, in: SizeRange(min: .zero, max: Size(100, 100)))
        let a = "[ box \"a\" 10x20 @0,0 ]"      // 22 characters
        let b = "[ box \"bb\" 5x5 @0,20 ]"      // 22 characters
        let heading = "stack \"s\" 10x25 @0,0"     // 20 characters: the inner width is 22
        #expect([a.count, b.count, heading.count] == [22, 22, 20])
        let expected = [
            "+-" + heading + String(repeating: "-", count: 22 - 20 + 1) + "+",
            "| " + a + " |",
            "| " + b + " |",
            "+" + String(repeating: "-", count: 24) + "+",
        ].joined(separator: "\n") + "\n"
        #expect(AsciiPicture.render(layout) == expected)
    }

    /// Ids with a line break, a carriage return, an escape character and a line separator: each is written as an
    /// escape, so the picture keeps one line per row (3: the frame's two and the box's) and one width.
    @Test("Control characters and line separators in ids are escaped")
    func controlCharacters() throws {
        let stack = StackSpec.vertical(children: [
            Box(size: Size(10, 20), identifier: "a\nb\r\u{1b}\u{2028}c"),
        ], identifier: "s")
        let layout = try Layout.compute(stack, in: SizeRange(min: .zero, max: Size(100, 100)))
        let lines = AsciiPicture.render(layout).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3)
        #expect(Set(lines.map(\.count)).count == 1)
        #expect(lines[1].contains(#"box "a\nb\r\u{1b}\u{2028}c" 10x20 @0,0"#), "\(lines[1])")
        #expect(AsciiPicture.oneLine("plain \"id\" é") == "plain \"id\" é")
    }

    @Test("Wide characters (CJK, fullwidth forms, emoji) take two columns: frames and rows stay aligned")
    func wideCharacters() throws {
        // Side by side and above each other, ids of two-column characters beside ASCII ones.
        let row = StackSpec.horizontal(children: [
            Box(size: Size(10, 20), identifier: "漢字"), Box(size: Size(5, 5), identifier: "ab"),
        ], identifier: "行")
        let stack = StackSpec.vertical(children: [row, Box(size: Size(3, 3), identifier: "👍ｶﾅＡ")], identifier: "s")
        let layout = try Layout.compute(stack, in: SizeRange(min: .zero, max: Size(100, 100)))
        let lines = AsciiPicture.render(layout).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // A terminal's columns: the CJK ideographs, the thumbs-up emoji and the fullwidth Ａ take two; the
        // halfwidth katakana ｶﾅ, one each, as every other character here.
        let two: Set<Character> = ["漢", "字", "行", "👍", "Ａ"]
        let widths = lines.map { line in line.reduce(0) { $0 + (two.contains($1) ? 2 : 1) } }
        #expect(Set(widths).count == 1, "\(widths)\n\(lines.joined(separator: "\n"))")
        #expect(lines.count == 2 + 3 + 1)
        #expect(AsciiPicture.columns("漢字 ab") == 7)
        #expect(AsciiPicture.columns("e\u{301}") == 1, "a letter and its accent are one column")
        #expect(AsciiPicture.columns("🇫🇷") == 2)
    }

    /// A chain of `depth` vertical stacks over a 1x1 box, and its picture.
    private func chainPicture(depth: Int) throws -> (text: String, work: Int) {
        var element: any LayoutElement = Box(size: Size(1, 1))
        for _ in 0..<depth { element = StackSpec.vertical(children: [element]) }
        let layout = try Layout.compute(element, in: SizeRange(min: .zero, max: Size(100, 100)))
        var work = 0
        let text = AsciiPicture.render(layout, work: &work)
        return (text, work)
    }

    /// Nested stacks no deeper than the frames drawn: a chain of d stacks is d frames of two lines each around
    /// the box's line, each frame four characters wider than the one inside, so the picture grows as d squared;
    /// the work of drawing it (headings measured once, characters written once) grows with the picture's size,
    /// not faster (it was cubic when every level re-padded its children's lines).
    @Test("Drawing nested frames is linear in the picture's size")
    func deepNesting() throws {
        let small = try chainPicture(depth: 8)
        let large = try chainPicture(depth: 32)
        #expect(small.text.split(separator: "\n").count == 2 * 8 + 1)
        #expect(large.text.split(separator: "\n").count == 2 * 32 + 1)
        // 4x the depth: about 16x the picture, and the work in proportion to it.
        let sizeRatio = Double(large.text.count) / Double(small.text.count)
        let workRatio = Double(large.work) / Double(small.work)
        #expect(sizeRatio > 8 && sizeRatio < 17, "picture grew \(sizeRatio)x")
        #expect(workRatio < sizeRatio * 1.1, "work grew \(workRatio)x for a picture \(sizeRatio)x larger")
        #expect(large.work < 2 * large.text.count)
    }

    /// Deeper than `maxNesting` (32) frames: the stacks at levels 0 to 31 are framed (two lines each), the stack
    /// at level 32 is the innermost frame (two lines) and lists the d - 32 elements below it, one line each,
    /// titled with their level. So d + 34 lines, all as wide as the outermost frame, and the picture grows
    /// with d, not d squared (it was 367 MB for the deepest chain a thread could lay out).
    @Test("A chain deeper than the frames drawn is listed inside the innermost frame")
    func deeperThanTheFrames() throws {
        #expect(AsciiPicture.maxNesting == 32)
        for depth in [34, 100, 600] {
            let (text, work) = try chainPicture(depth: depth)
            let lines = text.split(separator: "\n")
            #expect(lines.count == depth + 34, "depth \(depth)")
            #expect(Set(lines.map(\.count)).count == 1, "depth \(depth): lines of one width")
            // The innermost frame's first listed line is level 33, its last the box at level `depth`; each line
            // sits inside the 33 frames: 33 "| " on the left.
            let firstListed = lines[33]
            let lastListed = lines[depth]
            let framing = String(repeating: "| ", count: 33)
            #expect(firstListed.hasPrefix(framing + "[ level 33: stack "), "\(firstListed.prefix(120))")
            #expect(lastListed.hasPrefix(framing + "[ level \(depth): box 1x1 @0,0 ]"), "\(lastListed.prefix(120))")
            #expect(work < 2 * text.count)
        }
        // Linear: 6x the depth from 100 to 600, at most 7x the characters (the outermost frames are the same).
        let ratio = Double(try chainPicture(depth: 600).text.count) / Double(try chainPicture(depth: 100).text.count)
        #expect(ratio < 7, "picture grew \(ratio)x for 6x the depth")
    }
}
