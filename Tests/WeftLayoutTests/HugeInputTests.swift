import Testing
import WeftFormat
import WeftLayout

/// Finite but huge input never gives `inf` or `nan` in the output: it lays out with a documented result or is
/// refused with an error that names the place.
@Suite("Huge input")
struct HugeInputTests {
    /// Decodes `text` and lays it out in `range`.
    func layout(_ text: String, in range: SizeRange = .unconstrained, scale: Double = 2) throws -> Layout {
        try Layout.compute(LayoutDecoder().decode(text).root, in: range, scale: scale)
    }

    /// The error laying `text` out throws, or nil.
    func layoutError(_ text: String, in range: SizeRange = .unconstrained, scale: Double = 2) -> LayoutError? {
        do {
            _ = try layout(text, in: range, scale: scale)
            return nil
        } catch {
            return error as? LayoutError
        }
    }

    /// Every number in the `json` and `flat` output, after checking that both parse as JSON.
    func outputNumbers(_ layout: Layout) throws -> [Double] {
        var numbers: [Double] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .number(let n): numbers.append(n)
            case .array(let items): items.forEach(collect)
            case .object(let members): for key in members.keys { if let member = members[key] { collect(member) } }
            default: break
            }
        }
        for format in [LayoutFormat.json, .flat] {
            let text = format.render(layout)
            #expect(!text.contains("inf") && !text.contains("nan"), "\(format): \(text)")
            collect(try JSONParser().parse(text))
        }
        return numbers
    }

    /// A pretty-printed tree indents each level by two spaces more, up to 64: deeper levels stay there, so the
    /// `json` output of a deep tree grows with its elements, not with elements x depth.
    @Test("The json format's indentation stops growing at 64 spaces, and the output stays valid JSON")
    func jsonIndentationIsBounded() throws {
        var element: any LayoutElement = Box(size: Size(1, 1), identifier: "leaf")
        for _ in 0..<100 { element = WrapperSpec(element) }
        let text = LayoutFormat.json.render(try Layout.compute(element, in: .unconstrained))
        let lines = text.split(separator: "\n")
        let widest = lines.map { $0.prefix { $0 == " " }.count }.max() ?? 0
        #expect(widest == 64)
        // Two levels down (a member line, then a child's brace) the indentation is 2 more each time until the cap.
        #expect(lines.first { $0.contains("\"children\"") }?.prefix { $0 == " " }.count == 2)
        #expect(lines.filter { $0.contains("\"id\": \"leaf\"") }.count == 1)
        guard case .object = try JSONParser(maxDepth: 512).parse(text) else {
            Issue.record("the output is not a JSON object")
            return
        }
    }

    /// Stacks nested in flexible stacks: each stack (flexGrow 1, flexBasis `basis(level)`, in an exact main size)
    /// lays its one child out at its basis, then again grown to the full size. Laid out afresh each time, a tree
    /// `depth` stacks deep lays children out again R(depth) = 2 R(depth - 1) + 1 = 2^depth - 1 times (2^22 layouts
    /// took 20 s and 592 MB for a 1.6 KB document).
    func nested(_ depth: Int, basis: (Int) -> Double = { _ in 0.5 }) -> any LayoutElement {
        var element: any LayoutElement = Box(style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        for level in 0..<depth {
            element = StackSpec.horizontal(children: [element], style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(basis(level))))
        }
        return element
    }

    /// With the same basis at every level, each nested stack is asked for few sizes (its parent's basis and full
    /// size, and so on up): remembered once laid out, 40 levels take about 40^2 layouts, not 2^40.
    @Test("Nested flexible stacks lay each nested spec out once per size, not 2^depth times")
    func nestedFlexibleStacksAreRemembered() throws {
        let range = SizeRange(exactly: Size(1e6, 10))
        var builder = LayoutBuilder(scale: 1)
        // Far below 2^40 - 1; without the memo the 4,001st layout again is refused.
        builder.relayoutLimit = 4_000
        let layout = try Layout.compute(nested(40), in: range, using: &builder)
        // Every level grows to its parent's exact width, 1e6 x 10, down to the box.
        var level = layout
        var depth = 0
        while let child = level.sublayouts.first {
            #expect(child.size == Size(1e6, 10) && child.position == Point(x: 0, y: 0))
            level = child
            depth += 1
        }
        #expect(depth == 40)
    }

    /// The memo's answers are the layouts themselves: trees laid out with it and without it (`memoAfter` = never)
    /// are the same, frame for frame. Each tree nests stacks in alternating directions, a fixed box beside each
    /// nested stack, all flexible (grow and shrink), with bases that repeat every few levels (so the memo both
    /// answers and misses), and places the whole nest twice side by side in a row: the second is asked for the
    /// sizes the first was, so its layouts, kept in the result, are the memo's copies, at their own positions.
    @Test("A tree laid out with the memo of spec layouts equals the same tree laid out without it")
    func memoChangesNoLayout() throws {
        func tree(_ depth: Int, period: Int) -> Spec {
            var specs = SpecBuilder()
            var nest = specs.box(size: Size(10, 10), style: LayoutStyle(flexGrow: 1, flexShrink: 1))
            for level in 0..<depth {
                let options = StackOptions(
                    direction: level % 2 == 0 ? .horizontal : .vertical, spacing: Double(level % 3),
                    alignItems: level % 3 == 0 ? .stretch : .center)
                nest = specs.stack(
                    options, children: specs.box(size: Size(7, 5), style: LayoutStyle(flexGrow: 1, flexShrink: 1)), nest,
                    style: LayoutStyle(flexGrow: 1, flexShrink: 1, flexBasis: .fraction(0.3 + 0.1 * Double(level % period))))
            }
            return specs.finish(specs.stack(StackOptions(direction: .horizontal, spacing: 4), children: nest, nest))
        }
        func frames(_ layout: Layout) -> [Rect] {
            var result: [Rect] = []
            var pending = [(layout, Point(x: 0, y: 0))]
            while let (next, origin) = pending.popLast() {
                let at = Point(x: origin.x + next.position.x, y: origin.y + next.position.y)
                result.append(Rect(x: at.x, y: at.y, width: next.size.width, height: next.size.height))
                for child in next.sublayouts.reversed() { pending.append((child, at)) }
            }
            return result
        }
        for (depth, period) in [(12, 1), (14, 2), (12, 3), (16, 5)] {
            let range = SizeRange(exactly: Size(900, 700))
            var remembering = LayoutBuilder(scale: 2)
            var plain = LayoutBuilder(scale: 2)
            plain.memoAfter = .max
            let spec = tree(depth, period: period)
            let a = frames(try Layout.compute(spec, in: range, using: &remembering))
            let b = frames(try Layout.compute(spec, in: range, using: &plain))
            #expect(a == b, "depth \(depth), period \(period)")
            // The row, and twice the nest: `depth` stacks, `depth` boxes beside them and the innermost box.
            #expect(a.count == 1 + 2 * (2 * depth + 1))
            // The two nests are the same size, the second 4 points after the first.
            let (first, second) = (a[1], a[2 + 2 * depth])
            #expect(first.size == second.size)
            #expect(second.origin.x == first.origin.x + first.size.width + 4)
        }
    }

    /// Where each level's basis is a different fraction and the nested stacks are in elements whose size only
    /// their layout tells (`NestedFlexTests.doubling`), every nested stack is asked for a new size each time and
    /// the memo finds nothing: the builder's count of children laid out again refuses the 2^depth work.
    @Test("Nested flexible stacks at new sizes every time are refused past the builder's relayout limit")
    func relayoutLimit() throws {
        var builder = LayoutBuilder(scale: 1)
        builder.relayoutLimit = 1023
        // 9 levels: at most 511 children laid out again; 11 levels: 2,047 without a size asked twice, refused as
        // a limit at the 1,024th.
        try NestedFlexTests.refusesDoubling(past: 11, within: 9, using: &builder) {
            $0.hasPrefix("more than 1023 children laid out again in one layout (the limit)")
        }
    }

    @Test("A box of size [1e308, 1] is recorded as 0x0, as Texture's ASLayout does with an invalid size")
    func hugeBoxSize() throws {
        // 1e308 >= 1e7, so ASIsCGSizeValidForSize fails and the size becomes 0x0 (both dimensions).
        let box = try layout(#"{"type": "box", "id": "b", "size": [1e308, 1]}"#)
        #expect(box.frame == Rect(x: 0, y: 0, width: 0, height: 0))
        #expect(try outputNumbers(box) == [0, 0, 0, 0, 0, 0, 0, 0])
        // Next to an ordinary sibling in a row: the huge box takes no room, so the sibling starts at 0. The
        // line is 10 high, and stretching lays the huge box out again at exactly 0 x 10 (main size kept):
        // (1e308, 1) clamped into that is 0 x 10, a valid size.
        let row = try layout(#"""
            {"type": "stack", "children": [
              {"type": "box", "id": "huge", "size": [1e308, 1]}, {"type": "box", "id": "next", "size": [10, 10]}]}
            """#)
        #expect(row.sublayouts.map(\.frame)
            == [Rect(x: 0, y: 0, width: 0, height: 10), Rect(x: 0, y: 0, width: 10, height: 10)])
        #expect(try outputNumbers(row).allSatisfy(\.isFinite))
    }

    @Test("A spacing of 1e308 is refused, naming the child it pushes out of range")
    func hugeSpacing() throws {
        // The second child would start at 10 + 1e308; rounded to the 2x grid, 2e308 pixels overflow.
        let error = try #require(layoutError(#"""
            {"type": "stack", "spacing": 1e308, "children": [
              {"type": "box", "size": [10, 10]}, {"type": "box", "size": [10, 10]}]}
            """#))
        #expect(error.path == "root.children[1]")
        #expect(error.reason.hasPrefix(
            "the layout places this element at (inf, 0), beyond the ±8.988465674311579e+307 points"))
        // A spacing that keeps positions in range lays out, with finite output.
        let far = try layout(#"""
            {"type": "stack", "spacing": 1e300, "children": [
              {"type": "box", "size": [10, 10]}, {"type": "box", "size": [10, 10]}]}
            """#)
        #expect(far.sublayouts[1].position.x == 1e300)
        #expect(try outputNumbers(far).allSatisfy(\.isFinite))
    }

    @Test("Insets of -1e308 are refused, naming the inset's child")
    func hugeNegativeInsets() throws {
        // The child sits at the left inset, -1e308; rounded to the 2x grid, -2e308 pixels overflow.
        let error = try #require(layoutError(#"{"type": "inset", "insets": -1e308, "child": {"type": "box"}}"#))
        #expect(error.path == "root.child")
        #expect(error.reason.hasPrefix("the layout places this element at (-inf, -inf)"))
        let nested = try #require(layoutError(#"""
            {"type": "background", "background": {"type": "box"},
             "child": {"type": "inset", "insets": {"top": -1e308}, "child": {"type": "box", "size": [5, 5]}}}
            """#))
        #expect(nested.path == "root.child.child")
    }

    @Test("An infinite inset needs a max that is a valid size: CGFLOAT_MAX and 2e7 count as unbounded")
    func infiniteInsetUnderHugeMax() throws {
        let inset = #"{"type": "inset", "insets": {"left": "inf"}, "child": {"type": "box", "size": [10, 10]}}"#
        let huge = SizeRange(min: .zero, max: Size(width: .greatestFiniteMagnitude, height: 10))
        let error = try #require(layoutError(inset, in: huge))
        #expect(error.path == "root.insets.left")
        #expect(error.reason.hasPrefix("an infinite inset needs a finite max width"))
        // 2e7 is no size either (ASPointsValidForSize: below 1e7): the spec would be 2e7 wide, which ASLayout
        // asserts on.
        let twice = SizeRange(min: .zero, max: Size(width: 2e7, height: 10))
        #expect(layoutError(inset, in: twice)?.path == "root.insets.left")
        // Under a max that is a valid size the child is pushed to the right: x = 9,999,990 - (0 + 10).
        let bounded = try layout(inset, in: SizeRange(min: .zero, max: Size(width: 9_999_990, height: 10)))
        #expect(bounded.sublayouts[0].position.x == 9_999_980)
        #expect(bounded.size == Size(width: 9_999_990, height: 10))
    }

    @Test("A scale of 1e308 is refused; scales from 0.01 to 10000 are accepted")
    func hugeScale() throws {
        let box = #"{"type": "box", "size": [10.3, 1]}"#
        #expect(layoutError(box, scale: 1e308) == LayoutError(
            "expected a scale from 0.01 to 10000 pixels per point, got 1e+308", path: "scale"))
        #expect(layoutError(box, scale: 0.001)?.path == "scale")
        #expect(layoutError(box, scale: .nan)?.path == "scale")
        #expect(PixelGrid.problem(scale: 10_000) == nil && PixelGrid.problem(scale: 0.01) == nil)
        // At the largest scale a size just below 1e7 still rounds to a finite number.
        let grid = PixelGrid(scale: 10_000)
        #expect(grid.ceil(Size.sizeLimit.nextDown).isFinite)
        #expect(try layout(box, scale: 10_000).size == Size(width: 10.3, height: 1))
    }

    @Test("Positions up to the limit lay out; the limit is CGFLOAT_MAX / 2")
    func positionLimit() throws {
        #expect(Layout.positionLimit == Double.greatestFiniteMagnitude / 2)
        // A corner offset of -8e307 keeps the corner in range: its frame in the root is finite.
        let corner = try layout(#"""
            {"type": "corner", "location": "topLeft", "offset": [-8e307, 0],
             "child": {"type": "box", "size": [10, 10]}, "corner": {"type": "box", "id": "badge", "size": [4, 4]}}
            """#)
        #expect(corner.sublayouts[1].position.x == -8e307)
        #expect(try outputNumbers(corner).allSatisfy(\.isFinite))
        // Twice that is out of range (on the left: Texture's own check has no lower bound, Weft's has).
        let error = try #require(layoutError(#"""
            {"type": "corner", "location": "topLeft", "offset": [-9e307, 0],
             "child": {"type": "box", "size": [10, 10]}, "corner": {"type": "box", "size": [4, 4]}}
            """#))
        #expect(error.path == "root.corner")
    }

    @Test("The writer never prints a number JSON cannot hold")
    func writerWritesNull() throws {
        // A layout finished by hand, bypassing Layout.compute's check, with a position that overflows.
        var builder = LayoutBuilder(scale: 2)
        let leaf = builder.leaf(Box(identifier: "far"), size: Size(width: 10, height: 10))
        builder.setPosition(leaf, Point(x: 1e308, y: 0))
        let root = builder.layout(
            WrapperSpec([Box()], identifier: "root"), size: Size(width: 10, height: 10), sublayout: leaf)
        let layout = builder.finish(root)
        #expect(layout.sublayouts[0].position.x == .infinity)
        for format in [LayoutFormat.json, .flat] {
            let text = format.render(layout)
            #expect(!text.contains("inf"))
            #expect(text.contains("[null, 0, 10, 10]"), "\(format): \(text)")
            _ = try JSONParser().parse(text)
        }
    }
}

extension HugeInputTests {
    @Test("checkPositions names the first element out of range in a builder's tree, and passes a sound one")
    func checkPositions() throws {
        var builder = LayoutBuilder(scale: 1)
        let near = builder.leaf(Box(), size: Size(width: 1, height: 1))
        builder.setPosition(near, Point(x: 5, y: 5))
        let far = builder.leaf(Box(), size: Size(width: 1, height: 1))
        // 9e307 is beyond CGFLOAT_MAX / 2 = 8.988465674311579e307, although finite.
        builder.setPosition(far, Point(x: 0, y: 9e307))
        let stack = StackSpec(children: [Box(), Box()])
        let bad = builder.layout(stack, size: Size(width: 2, height: 2), sublayouts: near, far)
        #expect(throws: LayoutError(
            "the layout places this element at (0, 9e+307), beyond the ±8.988465674311579e+307 points a position "
                + "may lie from the root", path: "root.children[1]")) {
            try builder.checkPositions(under: bad)
        }
        let good = builder.layout(stack, size: Size(width: 2, height: 2), sublayouts: near, near)
        try builder.checkPositions(under: good)
    }
}
