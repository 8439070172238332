import Synchronization
import Testing
import WeftLayout

/// Stacks nested in flexible stacks cost work linear in their depth: a stack lays a flexible child out at its
/// basis and again at its flexed size (Texture's algorithm), and a nested container whose range fixes its size
/// is not laid out for its size alone, so each level lays its child out once. What still asks every level for
/// sizes no other level asked for is refused within a bounded amount of work.
@Suite("Nested flexible stacks")
struct NestedFlexTests {
    /// Counts its layouts; a 10x10 leaf clamped into its range.
    final class Counter: Sendable {
        let layouts = Atomic<Int>(0)
        var count: Int { layouts.load(ordering: .relaxed) }
    }

    struct CountingLeaf: LayoutElement {
        let counter: Counter
        var style: LayoutStyle = LayoutStyle()
        var kindName: String { "countingLeaf" }

        func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
            counter.layouts.add(1, ordering: .relaxed)
            return builder.leaf(self, size: range.clamp(Size(10, 10)))
        }
    }

    /// Lays its child out in its own range and takes its size: an element that is not a spec, so its size is
    /// known only from its layout (as a node's is).
    struct Opaque: LayoutElement {
        let child: any LayoutElement
        let style: LayoutStyle
        var kindName: String { "opaque" }
        var childElements: [any LayoutElement] { [child] }

        func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
            let ref = try child.layout(range, parentSize: parentSize, in: &builder)
            return builder.layout(self, size: builder.size(of: ref), sublayout: ref)
        }
    }

    /// Horizontal stacks, each in an ``Opaque`` element of flexGrow 1 and a basis no other level has, around a
    /// flexible box: each level lays its child out at its basis and again grown, and no two layouts of a level
    /// are asked for the same size, so the work doubles with each level.
    static func doubling(_ depth: Int) -> any LayoutElement {
        var element: any LayoutElement = Box(style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        for level in 0..<depth {
            let stack = StackSpec(StackOptions(direction: .horizontal), children: [element])
            element = Opaque(child: stack, style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.3 + 0.013 * Double(level))))
        }
        return element
    }

    /// A nested pattern: what wraps the element below at each level.
    enum Pattern: CaseIterable {
        /// Alternating directions, each stack flexGrow 1 and flexBasis 50%.
        case alternating
        /// The same, with a fixed-basis (30%) sibling leaf beside the nest at each level.
        case sibling
        /// One child each, a different flexBasis per level.
        case varyingBasis
        /// Alternating stacks each wrapped in an inset of 1.
        case inset
        /// Alternating stacks each under an overlay.
        case overlay
        /// Alternating stacks each in a ratio spec.
        case ratio
        /// Alternating stacks, alignItems center (the cross range is not exact), flexBasis 50%.
        case centered

        func tree(_ depth: Int, leaf: any LayoutElement) -> any LayoutElement {
            let flexible = LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5))
            var element = leaf
            for level in 0..<depth {
                let direction: StackDirection = level % 2 == 0 ? .vertical : .horizontal
                switch self {
                case .alternating:
                    element = StackSpec(StackOptions(direction: direction), children: [element], style: flexible)
                case .sibling:
                    let side = Box(style: LayoutStyle(flexBasis: .fraction(0.3)))
                    element = StackSpec(StackOptions(direction: direction), children: [element, side], style: flexible)
                case .varyingBasis:
                    let basis = LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.4 + 0.01 * Double(level % 50)))
                    element = StackSpec(StackOptions(direction: direction), children: [element], style: basis)
                case .inset:
                    let stack = StackSpec(StackOptions(direction: direction), children: [element], style: flexible)
                    element = InsetSpec(insets: EdgeInsets(top: 1, left: 1, bottom: 1, right: 1), child: stack, style: flexible)
                case .overlay:
                    let stack = StackSpec(StackOptions(direction: direction), children: [element], style: flexible)
                    element = OverlaySpec(child: stack, overlay: Box(), style: flexible)
                case .ratio:
                    let stack = StackSpec(StackOptions(direction: direction), children: [element], style: flexible)
                    element = RatioSpec(ratio: 1, child: stack, style: flexible)
                case .centered:
                    element = StackSpec(StackOptions(direction: direction, alignItems: .center), children: [element], style: flexible)
                }
            }
            return element
        }
    }

    /// The ranges the patterns are laid out in: exactly 1000 x 1000, where every level's size is fixed by its
    /// range, and 375 wide with an open height, where only the main size of the horizontal levels is.
    static let ranges = [SizeRange(exactly: Size(1000, 1000)), SizeRange(min: Size(375, 0), max: Size(375, .infinity))]

    /// How many times the leaf at the bottom of `depth` levels is laid out.
    func leafLayouts(_ pattern: Pattern, _ depth: Int, in range: SizeRange) throws -> Int {
        let counter = Counter()
        let tree = pattern.tree(depth, leaf: CountingLeaf(counter: counter))
        _ = try Layout.compute(tree, in: range)
        return counter.count
    }

    @Test("The leaf of every nested pattern is laid out a number of times that grows linearly with the depth",
          arguments: Pattern.allCases, NestedFlexTests.ranges)
    func leafLayoutsGrowLinearly(_ pattern: Pattern, range: SizeRange) throws {
        let (n, twice) = (try leafLayouts(pattern, 40, in: range), try leafLayouts(pattern, 80, in: range))
        // Laid out afresh at every level, 40 levels lay the leaf out 2^40 times; each level laying its child out
        // a bounded number of times keeps twice the depth within twice the count (plus the levels' constant).
        #expect(n >= 1 && n <= 4 * 40, "\(pattern): \(n) layouts at 40 levels")
        #expect(twice <= 2 * n + 4, "\(pattern): \(n) layouts at 40 levels, \(twice) at 80")
    }

    @Test("160 levels of each nested pattern lay out, not refused")
    func deepPatternsLayOut() throws {
        for pattern in Pattern.allCases {
            let layout = try Layout.compute(pattern.tree(160, leaf: Box(size: Size(10, 10))), in: SizeRange(exactly: Size(1000, 1000)))
            #expect(layout.size == Size(1000, 1000), "\(pattern)")
            let open = try Layout.compute(pattern.tree(160, leaf: Box(size: Size(10, 10))), in: Self.ranges[1])
            #expect(open.size.width == 375, "\(pattern)")
        }
    }

    /// Every level flexes its one child to the full size: the child's basis is half the stack's main size, and
    /// growing gives it the other half; stretched across, it takes the full cross size too. The innermost stack
    /// stretches the 10x10 leaf across its cross axis: 10 along its main axis, 1000 across.
    @Test("Alternating flexible stacks each fill the exact size, as flexing and stretching prescribe")
    func alternatingFrames() throws {
        let layout = try Layout.compute(Pattern.alternating.tree(30, leaf: Box(size: Size(10, 10))),
                                        in: SizeRange(exactly: Size(1000, 1000)))
        var level = layout
        var depth = 0
        while let child = level.sublayouts.first, !child.sublayouts.isEmpty {
            #expect(child.size == Size(1000, 1000) && child.position == Point(x: 0, y: 0), "level \(depth)")
            level = child
            depth += 1
        }
        #expect(depth == 29)
        // The innermost stack (level 0) is vertical: the leaf is 10 high and stretched to 1000 wide.
        #expect(level.sublayouts.first?.size == Size(1000, 10))
    }

    /// With a sibling of basis 30% (not flexible) at each level, the nest (basis 50%, flexGrow 1) grows by the
    /// remaining 20%: the nest takes 70% of the main size, the sibling 30% after it; both span the cross size.
    /// (The sibling is a Box of no size: its basis sets its main size, stretching its cross size.)
    @Test("A nest beside a fixed-basis sibling takes the rest of the main size at every level")
    func siblingFrames() throws {
        // Sizes chosen so that every share stays whole: 1000 x 1000, vertical outermost (level 2), then
        // horizontal (level 1), then vertical (level 0).
        let layout = try Layout.compute(Pattern.sibling.tree(3, leaf: Box(size: Size(10, 10))),
                                        in: SizeRange(exactly: Size(1000, 1000)))
        let outer = layout.sublayouts.map { Rect(origin: $0.position, size: $0.size) }
        #expect(outer == [Rect(x: 0, y: 0, width: 1000, height: 700), Rect(x: 0, y: 700, width: 1000, height: 300)])
        let middle = layout.sublayouts[0].sublayouts.map { Rect(origin: $0.position, size: $0.size) }
        #expect(middle == [Rect(x: 0, y: 0, width: 700, height: 700), Rect(x: 700, y: 0, width: 300, height: 700)])
        let inner = layout.sublayouts[0].sublayouts[0].sublayouts.map { Rect(origin: $0.position, size: $0.size) }
        // The innermost stack holds the 10x10 leaf (not flexible) and the sibling (210, 30% of 700): nothing grows,
        // and both are stretched to the 700 across.
        #expect(inner == [Rect(x: 0, y: 0, width: 700, height: 10), Rect(x: 0, y: 10, width: 700, height: 210)])
    }

    /// Lays ``doubling(_:)`` out `within` levels deep with `builder` (1e6 x 10, each level filling the width),
    /// then `past` levels deep, which must be refused as a limit whose reason `expected` accepts, then `within`
    /// levels again: each computation counts afresh.
    static func refusesDoubling(
        past: Int, within: Int, using builder: inout LayoutBuilder, reason expected: (String) -> Bool
    ) throws {
        let range = SizeRange(exactly: Size(1e6, 10))
        let laidOut = try Layout.compute(doubling(within), in: range, using: &builder)
        #expect(laidOut.size == Size(1e6, 10))
        var innermost = laidOut
        while let child = innermost.sublayouts.first { innermost = child }
        #expect(innermost.size.width == 1e6)
        do {
            _ = try Layout.compute(doubling(past), in: range, using: &builder)
            Issue.record("\(past) levels were laid out past the limit")
        } catch {
            #expect(error.kind == .limit)
            #expect(expected(error.reason), "\(error.reason)")
            #expect(error.path.hasPrefix("root.children[0]"))
        }
        #expect((try? Layout.compute(doubling(within), in: range, using: &builder))?.size == Size(1e6, 10))
    }

    /// Stacks whose children are not specs (``doubling(_:)``) are asked for new sizes at every level, and the work
    /// doubles per level. It is refused once laying children out again has made the builder's limit of layouts
    /// beyond 8 per layout made once, a bounded amount of work and memory.
    @Test("Work that doubles with each level is refused within the builder's limit of layouts made again")
    func doublingWorkIsRefused() throws {
        var builder = LayoutBuilder(scale: 1)
        builder.againLimit = 2_000
        // 8 levels: 2^8 - 1 layouts again at most, within the limit; 30 levels far past it.
        try Self.refusesDoubling(past: 30, within: 8, using: &builder) {
            $0.hasPrefix("laying children out again made ") && $0.contains("more than the limit of 2000 + 8 for each of the")
        }
    }
}
