import Dispatch
import Glibc
import Synchronization
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// What a node lets go of when it changes (a replaced spec block and what it captured, an evicted cached layout
/// and the nodes only it held) is released after the node's lock is released: the deinit of a user's object
/// (user code) may change the node, which under the lock waited for itself forever.
@Suite("Releases outside the node's lock")
struct ReleasesOutsideTheLockTests {
    /// Runs `body` on another thread and waits for it. A thread waiting for a lock it holds itself never
    /// finishes, and would keep the test process from exiting: after `seconds`, the process says so and exits.
    private func finishes(within seconds: Double, _ what: String, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            body()
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .timedOut {
            let message = "ReleasesOutsideTheLockTests: \(what) never finished (a deinit waiting for the node's lock, held by the release that ran it)\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            _exit(1)
        }
    }

    /// An object captured by a spec block, whose deinit sets the node's width.
    final class WidthSetter: Sendable {
        unowned let node: Node
        init(_ node: Node) { self.node = node }
        deinit { node.style.width = .points(5) }
    }

    @Test("A replaced spec block's captured object may change the node from its deinit")
    func replacedBlock() {
        let node = Node()
        do {
            let setter = WidthSetter(node)
            node.layoutSpecBlock = { _, _, _ in _ = setter; return nil }
        }
        #expect(node.style.width == .auto)
        // Replacing the block lets the setter go: its deinit sets the width, which takes the node's lock.
        finishes(within: 10, "replacing the spec block") { node.layoutSpecBlock = nil }
        #expect(node.style.width == .points(5))
    }

    @Test("A replaced image observer's captured object may change the node from its deinit")
    func replacedObserver() {
        let node = ImageNode()
        do {
            let setter = WidthSetter(node)
            node.onImageChange = { _ in _ = setter }
        }
        finishes(within: 10, "replacing the image observer") { node.onImageChange = nil }
        #expect(node.style.width == .points(5))
    }

    /// A node whose deinit (a subclass's: user code) sets its old parent's height.
    final class HeightSettingChild: Node, @unchecked Sendable {
        weak var parentNode: Node?
        deinit { parentNode?.style.height = .points(7) }
    }

    /// A parent whose spec makes a new child on each call: a child is held only by the parent's cached layout
    /// that places it (the parent is laid out as a subnode of a root, so no published root answer holds it).
    /// The parent's cache keeps four layouts: laid out in a fifth range, its oldest layout is replaced, and with
    /// it goes the last reference to the first child, whose deinit sets the parent's height (while the fifth
    /// layout is being stored). Invalidating the parent then drops the other four, whose children do the same.
    @Test("Children freed when their parent's cached layouts are replaced or dropped may change the parent")
    func replacedEntries() throws {
        let made = Atomic<Int>(0)
        let parent = Node()
        parent.identifier = "parent"
        parent.layoutSpecBlock = { node, _, _ in
            made.add(1, ordering: .relaxed)
            let child = HeightSettingChild()
            child.parentNode = node
            child.style.width = .points(10)
            child.style.height = .points(10)
            return InsetSpec(insets: EdgeInsets(all: 1), child: child)
        }
        let root = ComposedNode("root") { _ in WrapperSpec(parent) }
        let widths: [Double] = [100, 90, 80, 70]
        // Each 12x12 (the child 10x10, inset by 1), in four ranges: four cached layouts, four children alive.
        for width in widths {
            #expect(try root.layoutThatFits(SizeRange(min: .zero, max: Size(width, 100))).size == Size(12, 12))
        }
        #expect(made.load(ordering: .relaxed) == 4)
        #expect(parent.style.height == .auto)
        let fifth = Locked<Size?>(nil)
        finishes(within: 10, "laying the parent out in a fifth range") {
            fifth.withLock { $0 = try? root.layoutThatFits(SizeRange(min: .zero, max: Size(60, 100))).size }
        }
        // Computed before the first child went; then the first child set the parent's height.
        #expect(made.load(ordering: .relaxed) == 5)
        #expect(fifth.withLock { $0 } == Size(12, 12))
        #expect(parent.style.height == .points(7))
        // Invalidated: the four layouts left are dropped (their children's deinits set the height again).
        parent.style.height = .auto
        finishes(within: 10, "invalidating the parent") { parent.setNeedsLayout() }
        #expect(parent.style.height == .points(7))
    }

    /// A managed parent whose subnodes are A, then B, then C, one pass each. After the second pass, A is held only
    /// by the parent's last diff (its removal); applying the third replaces that diff, and A goes.
    @Test("A removed subnode that only the last diff held may change its old parent from its deinit")
    func replacedDiff() throws {
        let kids = Locked<[Node]>([])
        let parent = Node()
        parent.automaticallyManagesSubnodes = true
        parent.layoutSpecBlock = { _, _, _ in StackSpec.vertical(children: kids.withLock { $0.map { $0 as any LayoutElement } }) }
        func child() -> HeightSettingChild {
            let child = HeightSettingChild()
            child.parentNode = parent
            child.style.width = .points(10)
            child.style.height = .points(10)
            return child
        }
        let range = SizeRange(min: .zero, max: Size(100, 100))
        weak var first: Node?
        for round in 0..<2 {
            do {
                let next = child()
                if round == 0 { first = next }
                kids.withLock { $0 = [next] }
            }
            parent.setNeedsLayout()
            let pass = try LayoutPass.compute(root: parent, range: range)
            try ApplyQueue.main.sync { _ = try pass.apply() }
        }
        #expect(first != nil)
        #expect(parent.lastAppliedDiff?.removals.first?.node === first)
        kids.withLock { $0 = [child()] }
        parent.setNeedsLayout()
        let pass = try LayoutPass.compute(root: parent, range: range)
        finishes(within: 10, "applying the third pass") { try? ApplyQueue.main.sync { _ = try pass.apply() } }
        #expect(first == nil)
        #expect(parent.style.height == .points(7))
    }

    /// A root (managing no subnodes) that lays out a child it was given by hand: once the child is removed from
    /// it and its spec no longer places it, the child is held only by the root's applied layout (invalidating the
    /// root drops its cached one). Applying the next pass replaces the applied layout, and with it the child goes.
    @Test("A child that only the applied layout held may change the root from its deinit")
    func replacedAppliedLayout() throws {
        let placed = Locked<Node?>(nil)
        let root = Node()
        root.layoutSpecBlock = { _, _, _ in
            guard let child = placed.withLock({ $0 }) else { return Spacer() }
            return InsetSpec(insets: EdgeInsets(all: 1), child: child)
        }
        let range = SizeRange(min: .zero, max: Size(100, 100))
        do {
            let child = HeightSettingChild()
            child.parentNode = root
            child.style.width = .points(10)
            child.style.height = .points(10)
            try ApplyQueue.main.sync { try root.addSubnode(child) }
            placed.withLock { $0 = child }
            let first = try LayoutPass.compute(root: root, range: range)
            try ApplyQueue.main.sync { _ = try first.apply() }
            try ApplyQueue.main.sync { try child.removeFromSupernode() }
            placed.withLock { $0 = nil }
        }
        root.setNeedsLayout()
        #expect(root.style.height == .auto, "the child is still held by the applied layout")
        let second = try LayoutPass.compute(root: root, range: range)
        finishes(within: 10, "applying the second pass") { try? ApplyQueue.main.sync { _ = try second.apply() } }
        #expect(root.style.height == .points(7))
    }
}
