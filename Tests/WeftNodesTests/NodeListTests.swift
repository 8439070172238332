import Testing
import WeftLayout
@testable import WeftNodes

/// An object with identity that says it is a node but is not a `Node`: flattening keeps it in its parent's
/// layout, which places it, but it is no subnode.
private final class PlainObject: LayoutObject, @unchecked Sendable {
    var style: LayoutStyle { LayoutStyle() }
    var kindName: String { "plain" }
    var isNode: Bool { true }

    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        builder.leaf(object: self, size: range.clamp(Size(10, 10)))
    }
}

@Suite("Subnode lists")
struct NodeListTests {
    @Test("A list of subnodes is one word, so that a pass's updates, which hold three, stay small")
    func oneWord() {
        #expect(MemoryLayout<NodeList>.size == MemoryLayout<Int>.size)
    }

    @Test("A managed node's subnodes after a pass are its layout's nodes, kept as the layout; changes by hand make an array")
    func keptAsLayout() throws {
        let scene = Scene(["a", "b", "c", "d"], initial: [])
        _ = try scene.show(["a", "b", "c"])
        let list = scene.root.readPlacement { $0.pointee.subnodes }
        #expect(list.isKeptAsLayout)
        #expect(list.count == 3)
        #expect(names(list.array) == ["a", "b", "c"])
        #expect(list[0] === scene.leaves["a"] && list[2] === scene.leaves["c"])
        #expect(names(scene.root.subnodes) == ["a", "b", "c"])
        #expect(list.isSame(as: NodeList([scene.leaves["a"]!, scene.leaves["b"]!, scene.leaves["c"]!])))
        #expect(!list.isSame(as: NodeList([scene.leaves["a"]!, scene.leaves["c"]!, scene.leaves["b"]!])))

        // A relayout that places other nodes keeps the new layout's list, and its diff is against the old one.
        let diff = try scene.show(["c", "d"])
        #expect(names(scene.root.subnodes) == ["c", "d"])
        #expect(scene.root.readPlacement { $0.pointee.subnodes }.isKeptAsLayout)
        #expect(diff?.removals.map { $0.node.identifier } == ["a", "b"])
        #expect(diff?.insertions.map { $0.node.identifier } == ["d"])
        #expect(scene.leaves["a"]?.supernode == nil && scene.leaves["d"]?.supernode === scene.root)

        // Changed by hand, the list becomes an array of the same nodes, changed.
        var changed = scene.root.readPlacement { $0.pointee.subnodes }
        changed.insert(scene.leaves["a"]!, at: 1)
        #expect(!changed.isKeptAsLayout)
        #expect(names(changed.array) == ["c", "a", "d"])
        changed.removeAll { $0 === scene.leaves["c"] }
        #expect(names(changed.array) == ["a", "d"])
    }

    @Test("A layout that also places an object that is not a Node lists only its nodes, in order, as an array")
    func objectsThatAreNotNodes() throws {
        let first = CountingLeaf("first", size: Size(10, 10))
        let second = CountingLeaf("second", size: Size(10, 10))
        let plain = PlainObject()
        let root = ComposedNode("root") { _ in StackSpec.horizontal(children: [first, plain, second]) }
        root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(300, 100)))
        try onApplyQueue { try root.layoutIfNeeded() }
        let list = root.readPlacement { $0.pointee.subnodes }
        #expect(!list.isKeptAsLayout)
        #expect(names(list.array) == ["first", "second"])
        // Laid out in a row: the plain object between them takes its 10 points.
        #expect(second.frame == Rect(x: 20, y: 0, width: 10, height: 10))
        #expect(first.supernode === root && second.supernode === root)
    }
}
