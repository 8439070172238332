import Testing
@testable import WeftLayout

/// A leaf with identity that is not a node: what a layer above the layout core puts in specs.
private final class Marker: LayoutObject {
    let size: Size
    let name: String

    init(_ name: String, size: Size) {
        self.name = name
        self.size = size
    }

    var style: LayoutStyle { LayoutStyle() }
    var kindName: String { "marker" }
    var identifier: String? { name }

    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        builder.leaf(object: self, size: range.clamp(size))
    }
}

/// A marker that counts the prefetch hints it is given, and whether each came before it was laid out.
private final class PrefetchCounter: LayoutObject, @unchecked Sendable {
    // @unchecked: used on the test's thread only.
    var hints = 0
    var hintsBeforeLayout = 0
    var laidOut = false

    var style: LayoutStyle { LayoutStyle() }
    var kindName: String { "counter" }
    var identifier: String? { nil }

    func prefetchForLayout() {
        hints += 1
        if !laidOut { hintsBeforeLayout += 1 }
    }

    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        laidOut = true
        return builder.leaf(object: self, size: range.clamp(Size(5, 5)))
    }
}

/// A spec's children are of three kinds in its arena: specs, elements without identity and elements with
/// identity (kept in their own table). Each must come back as itself, in spec order.
@Suite("Spec arenas")
struct SpecArenaTests {
    @Test("Objects, value leaves and specs mixed in one stack keep their order, identity and frames")
    func mixedChildren() throws {
        let a = Marker("a", size: Size(10, 20))
        let b = Marker("b", size: Size(40, 8))
        var specs = SpecBuilder()
        let row = specs.stack(StackOptions(direction: .horizontal), children: a, specs.box(size: Size(30, 5)), b,
                              Box(size: Size(6, 6)))
        let spec = specs.finish(row)
        // A horizontal stack with no spacing: each child starts where the last ended (0, 10, 40, 80) at its own
        // width; the stack is as wide as their sum (86) and as tall as the tallest child (20), and Texture's
        // default alignItems, stretch, makes every child that tall.
        let layout = try Layout.compute(spec, in: SizeRange(min: .zero, max: Size(200, 200)))
        #expect(layout.size == Size(86, 20))
        #expect(layout.sublayouts.map(\.frame) == [
            Rect(x: 0, y: 0, width: 10, height: 20), Rect(x: 10, y: 0, width: 30, height: 20),
            Rect(x: 40, y: 0, width: 40, height: 20), Rect(x: 80, y: 0, width: 6, height: 20),
        ])
        #expect(layout.sublayouts[0].object === a)
        #expect(layout.sublayouts[1].object == nil)
        #expect(layout.sublayouts[2].object === b)
        #expect(layout.sublayouts[3].object == nil)
        let children = spec.childElements
        #expect(children.count == 4)
        #expect((children[0] as? Marker) === a)
        #expect(children[1].kindName == "box")
        #expect((children[2] as? Marker) === b)
        // (A value spec is added to the arena as a spec of its kind.)
        #expect(children[3].kindName == "box")
    }

    @Test("Each object a spec holds is given the prefetch hint once per place, as the spec is built, before any layout")
    func prefetchHints() throws {
        let a = PrefetchCounter()
        let b = PrefetchCounter()
        var specs = SpecBuilder()
        // a twice (two places), b once, inside a nested spec.
        let row = specs.stack(StackOptions(direction: .horizontal), children: a, specs.inset(EdgeInsets(all: 1), b), a)
        #expect(a.hints == 2 && b.hints == 1, "hinted as the spec is built")
        let spec = specs.finish(row)
        let layout = try Layout.compute(spec, in: SizeRange(min: .zero, max: Size(100, 100)))
        #expect(layout.size == Size(17, 7))
        #expect(a.laidOut && b.laidOut)
        #expect(a.hintsBeforeLayout == 2 && b.hintsBeforeLayout == 1)
        // Finished in a scratch arena, a spec is copied into one of its own: its objects are not hinted again.
        let scratch = SpecArena()
        scratch.isScratch = true
        var lent = SpecBuilder(arena: scratch)
        let c = PrefetchCounter()
        let pair = lent.stack(StackOptions(direction: .horizontal), children: c, c)
        let copied = lent.finish(pair)
        #expect(copied.arena !== scratch, "copied out of the scratch arena")
        #expect(c.hints == 2)
    }

    @Test("A spec finished in a scratch arena is a copy of its tree in an arena of its own; the builder goes on in the scratch one")
    func finishInScratchCopies() throws {
        let a = Marker("a", size: Size(10, 20))
        let scratch = SpecArena()
        scratch.isScratch = true
        var specs = SpecBuilder(arena: scratch)
        // A spec before the tree, which the copy leaves out.
        _ = specs.box(size: Size(99, 99))
        var grow = LayoutStyle()
        grow.flexGrow = 1
        let row = specs.stack(StackOptions(direction: .horizontal, spacing: 5), children: a,
                              specs.inset(EdgeInsets(all: 3), specs.box(size: Size(30, 5), identifier: "box")),
                              specs.spacer(style: grow), Box(size: Size(6, 6)), identifier: "row")
        let copied = specs.finish(row)
        #expect(specs.arena === scratch)
        #expect(copied.arena !== scratch)
        // The tree's four specs (the stack, the inset, the inner box, the spacer) and the value box, which is added
        // as a spec of its kind; not the first box.
        #expect(copied.arena.count == 5)
        // The same tree built in an arena of its own, for comparison.
        var plain = SpecBuilder()
        let expected = plain.finish(plain.stack(StackOptions(direction: .horizontal, spacing: 5), children: a,
                                                plain.inset(EdgeInsets(all: 3), plain.box(size: Size(30, 5), identifier: "box")),
                                                plain.spacer(style: grow), Box(size: Size(6, 6)), identifier: "row"))
        let range = SizeRange(min: Size(120, 0), max: Size(120, 100))
        let layout = try Layout.compute(copied, in: range)
        let reference = try Layout.compute(expected, in: range)
        // 10 + 5 + 36 + 5 + spacer + 5 + 6 = 120: the spacer grows to 53.
        #expect(layout.size == Size(120, 20))
        #expect(layout.sublayouts.map(\.frame) == reference.sublayouts.map(\.frame))
        #expect(layout.sublayouts.map(\.frame)[2] == Rect(x: 56, y: 0, width: 53, height: 20))
        #expect(layout.sublayouts[0].object === a)
        #expect(copied.identifier == "row")
        #expect(copied.childElements[1].childElements[0].identifier == "box")
        // A spec that occurs twice in the tree is copied once: 16 stacks each of the one before, twice, over a
        // box are 17 specs (copied per occurrence, 2^17 - 1).
        var shared = specs.box(size: Size(1, 1))
        for _ in 0..<16 { shared = specs.stack(children: shared, shared) }
        #expect(specs.finish(shared).arena.count == 17)
        // A deep tree is copied in a loop (copied recursively, 200,000 levels ran off the stack before any layout
        // could refuse the tree): every spec once, the root last; laying it out is refused by the stack guard.
        var deep = specs.box(size: Size(1, 1))
        for _ in 0..<200_000 { deep = specs.inset(EdgeInsets(all: 1), deep) }
        let deepCopy = specs.finish(deep)
        #expect(deepCopy.arena.count == 200_001)
        #expect(deepCopy.kindName == "inset")
        do {
            _ = try Layout.compute(deepCopy, in: range)
            Issue.record("200,000 nested insets were laid out")
        } catch {
            #expect(error.kind == .limit)
        }
        // The scratch arena is rewound and reused; the copy is untouched.
        scratch.rewind(to: SpecArena().mark)
        _ = specs.box(size: Size(1, 1))
        #expect(try Layout.compute(copied, in: range).sublayouts.map(\.frame) == reference.sublayouts.map(\.frame))
    }

    @Test("A node's spec taken off the arena's stack takes its objects with it; the arena is reused")
    func rewindDropsObjects() throws {
        let arena = SpecArena()
        let specs = SpecBuilder(arena: arena)
        let outer = Marker("outer", size: Size(5, 5))
        let first = specs.stack(StackOptions(direction: .vertical), children: outer)
        let mark = arena.mark
        // A nested spec (as a node's, laid out inside its parent's) is added, then dropped.
        let inner = Marker("inner", size: Size(7, 7))
        _ = specs.stack(StackOptions(direction: .vertical), children: inner, Box(size: Size(1, 1)))
        arena.rewind(to: mark)
        // Added after the rewind, an object takes the freed place; the first spec still finds its own.
        let again = Marker("again", size: Size(3, 9))
        let second = specs.stack(StackOptions(direction: .vertical), children: again)
        let firstLayout = try Layout.compute(Spec(arena: arena, index: first.index), in: .unconstrained)
        let secondLayout = try Layout.compute(Spec(arena: arena, index: second.index), in: .unconstrained)
        #expect(firstLayout.sublayouts[0].object === outer)
        #expect(firstLayout.size == Size(5, 5))
        #expect(secondLayout.sublayouts[0].object === again)
        #expect(secondLayout.size == Size(3, 9))
        #expect(arena.count == 2)
    }

    @Test("A SpecRef used in a builder that has no such spec is refused with an error when laid out, not looked up")
    func foreignReference() throws {
        var other = SpecBuilder()
        for _ in 0..<50 { _ = other.box(size: Size(1, 1)) }
        let foreign = other.box(size: Size(3, 3))
        var specs = SpecBuilder()
        // (When `foreign` is pushed, this builder has one spec: the box.)
        let stack = specs.stack(children: specs.box(size: Size(2, 2)), foreign)
        let spec = specs.finish(stack)
        do {
            _ = try Layout.compute(spec, in: SizeRange(min: .zero, max: Size(100, 100)))
            Issue.record("a stack with a foreign SpecRef was laid out")
        } catch {
            #expect(error.path == "root.children[1]")
            #expect(error.reason == "a SpecRef of another SpecBuilder (its spec 50): a SpecRef is valid only with the builder it came from")
        }
        // One that names a spec of this builder's arena by its index (0: the box) is refused all the same.
        var third = SpecBuilder()
        let early = other.box(size: Size(5, 5))
        _ = third.box(size: Size(2, 2))
        #expect(throws: LayoutError.self) {
            try Layout.compute(third.finish(third.inset(EdgeInsets(all: 1), early)), in: SizeRange(min: .zero, max: Size(100, 100)))
        }
        // Finished as the root of another builder: refused too, where it was looked up past the arena's end.
        var fourth = SpecBuilder()
        _ = fourth.box(size: Size(1, 1))
        do {
            _ = try Layout.compute(fourth.finish(foreign), in: SizeRange(min: .zero, max: Size(100, 100)))
            Issue.record("a foreign SpecRef finished as a root was laid out")
        } catch {
            #expect(error.reason == "a SpecRef of another SpecBuilder (its spec 50): a SpecRef is valid only with the builder it came from")
        }
        // The reference is still good in its own builder.
        #expect(try Layout.compute(other.finish(foreign), in: SizeRange(min: .zero, max: Size(100, 100))).size == Size(3, 3))
    }

    @Test("A child of the root placed at 0 lies at +0, not -0 (finishing subtracts the root's rounded position)")
    func rootChildAtZeroHasPositiveZero() throws {
        var specs = SpecBuilder()
        let row = specs.stack(
            StackOptions(direction: .horizontal), children: specs.box(size: Size(10, 10)), specs.box(size: Size(5, 5)))
        let layout = try Layout.compute(specs.finish(row), in: SizeRange(min: .zero, max: Size(100, 100)))
        let first = layout.sublayouts[0].position
        #expect(first == .zero)
        // -0 compares equal to 0 but prints as "-0.0" and has the other bit pattern.
        #expect(first.x.sign == .plus && first.y.sign == .plus, "position \(first)")
        #expect(layout.sublayouts[1].position == Point(x: 10, y: 0))
    }

    @Test("A stack of children given one by one keeps them in order whatever their number (2 to 4 have overloads of their own, 1 and 5 are the parameter pack)")
    func childrenOneByOneInOrder() throws {
        // Widths 1, 2, 4, 8, 16 in a row: child k starts at the sum of the widths before it, and the row is as
        // wide as all of them, whichever overload (or the pack) built the stack.
        let markers = (0..<5).map { Marker("m\($0)", size: Size(Double(1 << $0), 3)) }
        let m = markers
        let options = StackOptions(direction: .horizontal)
        let specs = SpecBuilder()
        let rows = [
            specs.stack(options, children: m[0]),
            specs.stack(options, children: m[0], m[1]),
            specs.stack(options, children: m[0], m[1], m[2]),
            specs.stack(options, children: m[0], m[1], m[2], m[3]),
            specs.stack(options, children: m[0], m[1], m[2], m[3], m[4]),
        ]
        let arena = specs.arena
        for (index, row) in rows.enumerated() {
            let count = index + 1
            let layout = try Layout.compute(Spec(arena: arena, index: row.index), in: .unconstrained)
            #expect(layout.size == Size(Double((1 << count) - 1), 3), "\(count) children")
            #expect(layout.sublayouts.map { $0.object as? Marker }.map { $0?.name } == (0..<count).map { "m\($0)" })
            #expect(layout.sublayouts.map(\.position.x) == (0..<count).map { Double((1 << $0) - 1) })
        }
    }
}
