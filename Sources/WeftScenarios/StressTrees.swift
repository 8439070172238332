import WeftLayout

/// The trees of the stress scenarios, identical to the peers' runs (Yoga's benchmark suite).
public enum StressTrees {
    /// Wide: one row of 10,000 children with flexGrow 1 (each 10x10 on its own), in a row 100,000 wide.
    public static func wide(children count: Int = 10_000) -> (StackSpec, SizeRange) {
        let style = LayoutStyle(width: .points(10), height: .points(10), flexGrow: 1)
        let children = (0..<count).map { _ in Box(style: style) }
        let row = StackSpec(StackOptions(direction: .horizontal, alignItems: .start), children: children)
        return (row, SizeRange(min: Size(Double(count) * 10, 0), max: Size(Double(count) * 10, .infinity)))
    }

    /// Deep: a chain of 1,000 nested vertical stacks around one 10x10 leaf.
    public static func deep(levels: Int = 1000) -> (any LayoutElement, SizeRange) {
        var element: any LayoutElement = Box(size: Size(10, 10))
        for _ in 0..<levels {
            element = StackSpec(StackOptions(direction: .vertical), children: [element])
        }
        return (element, .unconstrained)
    }

    /// Huge nested: four levels of ten below a root, alternating vertical and horizontal, every node 10x10
    /// with flexGrow 1: 1 + 10 + 100 + 1,000 + 10,000 = 11,111 nodes.
    public static func hugeNested(fanOut: Int = 10) -> (any LayoutElement, SizeRange) {
        let style = LayoutStyle(width: .points(10), height: .points(10), flexGrow: 1)
        func level(_ depth: Int) -> any LayoutElement {
            if depth == 4 { return Box(style: style) }
            let direction: StackDirection = depth % 2 == 0 ? .horizontal : .vertical
            return StackSpec(StackOptions(direction: direction), children: (0..<fanOut).map { _ in level(depth + 1) },
                             style: style)
        }
        let root = StackSpec(StackOptions(direction: .vertical), children: (0..<fanOut).map { _ in level(1) })
        return (root, .unconstrained)
    }

    /// The nested patterns of `nested(_:levels:)`: stacks nested in flexible stacks, each level's stack
    /// flexGrow 1 in a direction that alternates, laid out in exactly 1000 x 1000.
    public enum NestedPattern: String, CaseIterable, Sendable {
        /// Each stack flexBasis 50%, one 10x10 leaf at the bottom.
        case alternating
        /// The same, with a sibling leaf of flexBasis 30% beside the nest at each level.
        case sibling
        /// One child each, a different flexBasis per level (40% to 89%).
        case varyingBasis = "varying basis"
    }

    /// `levels` stacks nested in the given pattern, and the exact range they are laid out in.
    public static func nested(_ pattern: NestedPattern, levels: Int) -> (any LayoutElement, SizeRange) {
        var element: any LayoutElement = Box(size: Size(10, 10))
        for level in 0..<levels {
            let direction: StackDirection = level % 2 == 0 ? .vertical : .horizontal
            let basis = pattern == .varyingBasis ? 0.4 + 0.01 * Double(level % 50) : 0.5
            let style = LayoutStyle(flexGrow: 1, flexBasis: .fraction(basis))
            var children = [element]
            if pattern == .sibling { children.append(Box(style: LayoutStyle(flexBasis: .fraction(0.3)))) }
            element = StackSpec(StackOptions(direction: direction), children: children, style: style)
        }
        return (element, SizeRange(exactly: Size(1000, 1000)))
    }

    /// The number of elements in a tree.
    public static func count(_ element: any LayoutElement) -> Int {
        1 + element.childElements.reduce(0) { $0 + count($1) }
    }
}
