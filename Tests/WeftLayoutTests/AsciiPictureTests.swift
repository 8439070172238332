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

    /// Nested stacks: the picture of depth d has about 2d lines of about 4d characters, so its size grows as
    /// d squared, and the work of drawing it (headings measured once, characters written once) grows with the
    /// picture's size, not faster (it was cubic when every level re-padded its children's lines).
    @Test("Drawing deep nesting is linear in the picture's size")
    func deepNesting() throws {
        func picture(depth: Int) throws -> (size: Int, work: Int) {
            var element: any LayoutElement = Box(size: Size(1, 1))
            for _ in 0..<depth { element = StackSpec.vertical(children: [element]) }
            let layout = try Layout.compute(element, in: SizeRange(min: .zero, max: Size(100, 100)))
            var work = 0
            let text = AsciiPicture.render(layout, work: &work)
            return (text.count, work)
        }
        let small = try picture(depth: 100)
        let large = try picture(depth: 400)
        // 4x the depth: 16x the picture, and the work in proportion to it.
        let sizeRatio = Double(large.size) / Double(small.size)
        let workRatio = Double(large.work) / Double(small.work)
        #expect(sizeRatio > 12 && sizeRatio < 17, "picture grew \(sizeRatio)x")
        #expect(workRatio < sizeRatio * 1.1, "work grew \(workRatio)x for a picture \(sizeRatio)x larger")
        #expect(large.work < 2 * large.size)
    }
}
