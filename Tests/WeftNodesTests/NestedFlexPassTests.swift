import Testing
import WeftLayout
@testable import WeftNodes

/// Stacks nested in flexible stacks around a node leaf cost a layout pass, and `layoutThatFits`, work linear in
/// their depth, as they do for specs alone (`NestedFlexTests`): each level lays its child out once for real.
@Suite("Nested flexible stacks in a pass")
struct NestedFlexPassTests {
    /// `depth` stacks in alternating directions, each flexGrow 1 and flexBasis 50%, around `leaf`.
    static func nest(_ depth: Int, around leaf: Node) -> any LayoutElement {
        var element: any LayoutElement = leaf
        for level in 0..<depth {
            element = StackSpec(StackOptions(direction: level % 2 == 0 ? .vertical : .horizontal), children: [element],
                                style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        }
        return element
    }

    /// How many times a pass (or `layoutThatFits`) of a root whose spec nests `depth` stacks measures the leaf.
    static func measurements(_ depth: Int, inPass: Bool) throws -> Int {
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in nest(depth, around: leaf) }
        let range = SizeRange(exactly: Size(1000, 1000))
        if inPass {
            let pass = try LayoutPass.compute(root: root, range: range)
            // Every level fills the exact size; the innermost (vertical) stretches the leaf to 1000 x 10.
            #expect(pass.rootLayout.size == Size(1000, 1000))
            #expect(pass.rootLayout.flattened().first { ($0.element as? Node) === leaf }?.frame.size == Size(1000, 10))
        } else {
            #expect(try root.layoutThatFits(range).size == Size(1000, 1000))
        }
        return leaf.measurements
    }

    @Test("A pass and layoutThatFits measure a node leaf under nested flexible stacks a number of times linear in the depth",
          arguments: [true, false])
    func leafMeasurementsGrowLinearly(inPass: Bool) throws {
        let (n, twice) = (try Self.measurements(20, inPass: inPass), try Self.measurements(40, inPass: inPass))
        // Laid out afresh at every level, 20 levels measure the leaf 2^20 times; a bounded number of layouts
        // per level keeps twice the depth within twice the count.
        #expect(n >= 1 && n <= 4 * 20, "\(n) measurements at 20 levels")
        #expect(twice <= 2 * n + 4, "\(n) measurements at 20 levels, \(twice) at 40")
    }
}
