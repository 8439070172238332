import WeftLayout

/// A layout pass over a node tree: every node's layout, subnodes and diff, computed off the apply queue and
/// applied in one apply-queue turn.
///
/// ``compute(root:range:)`` MAY run on any thread: it lays the root out (hitting caches where it can), then
/// walks the flattened layouts down the tree, computing each automatically managed node's new subnodes and
/// the diff from its current ones. ``apply()`` MUST run on the apply queue: it drops the parts computed for
/// an outdated version, checks that no node ends up in two places, then changes the hierarchy.
public struct LayoutPass: Sendable {
    struct Update: Sendable {
        let node: Node
        let version: UInt64
        /// The node's layout (detached: its root is the node); nil for a leaf (only its size matters).
        let layout: StoredLayout?
        let size: Size
        /// The range the layout was computed for (to lay the spec out again for an error message).
        let range: SizeRange
        let parent: Int
        /// The node's frame in its parent's layout (the root's is unused).
        let frameInParent: Rect
        /// For an automatically managed node: the subnodes the pass expected, the ones it produces and the diff;
        /// nil for others (so that a leaf's update holds no arrays: each was a retain and a release).
        let subnodes: ManagedSubnodes?

        var managed: Bool { subnodes != nil }
    }

    struct ManagedSubnodes: Sendable {
        let old: NodeList
        let new: NodeList
        let diff: HierarchyDiff
    }

    public let root: Node
    public let range: SizeRange
    /// The root's context when the pass was computed: its scale, and the apply queue it applies on.
    public let context: LayoutContext
    let updates: [Update]
    /// The nodes that changed while the pass was computed (after their parents laid them out, so the parents'
    /// layouts placed them at an outdated size): applying the pass then asks for another one.
    let changed: [Node]

    /// The root's layout.
    public var rootLayout: Layout {
        if let layout = updates[0].layout { return layout.attaching(root) }
        return BuilderPool.withBuilder(scale: context.scale) { builder in builder.finish(builder.leaf(root, size: updates[0].size)) }
    }

    /// The root's size.
    public var rootSize: Size { updates[0].size }

    /// The diffs this pass will apply, per automatically managed node, root first.
    public var diffs: [(node: Node, diff: HierarchyDiff)] {
        updates.compactMap { update in update.subnodes.map { (update.node, $0.diff) } }
    }

    /// Computes the pass for `root` laid out in `range`, in the root's ``Node/context``. MAY run on any thread.
    public static func compute(root: Node, range: SizeRange) throws(HierarchyError) -> LayoutPass {
        // The root's lines asked for at once (its reads below come one after another).
        root.prefetchForLayout()
        // One read of the root (its subnodes may change meanwhile only on the apply queue, and applying
        // diffs against the subnodes it finds then): its inputs, and its cache entry with its subnodes under its
        // lock unless it has no entry of its current version (then the root notes them when it stores its entry).
        let (context, found, rootReading) = root.rootLookup(range)
        // The nodes laid out while the root is computed note their readings, so the walk reads them again
        // only where the root's layout came from its cache.
        let notes = BuilderPool.takeNotes()
        defer { BuilderPool.giveNotes(notes) }
        let entry: LayoutCache.Entry
        do {
            entry = try root.rootEntry(range, context: context, found, notes: notes, notingRoot: rootReading == nil)
        } catch {
            throw .layoutFailed(error)
        }
        notes.index()
        let (managed, current): (Bool, NodeList)
        if let rootReading {
            (managed, current) = rootReading
        } else {
            // (From the root's note read in place: a whole reading copied its entry too.)
            if let noted = notes.walkReading(root, size: entry.size, scale: context.scale) {
                (managed, current) = noted
            } else {
                let reading = root.applyingReading(size: entry.size, scale: context.scale)
                (managed, current) = (reading.managed, reading.subnodes)
            }
        }
        var builder = Builder(scale: context.scale, placed: notes.takePlaced())
        let rootNodes = entry.layout?.sublayoutCount ?? 0
        builder.updates.reserveCapacity(1 + rootNodes)
        builder.placed.reserveCapacity(rootNodes)
        try builder.visit(root, version: entry.version, layout: entry.layout, size: entry.size, range: entry.range,
                          managed: managed, current: current, parent: -1, frame: Rect(x: 0, y: 0, width: 0, height: 0),
                          notes: notes, context: context)
        try builder.checkEachNodeOnce()
        notes.givePlaced(&builder.placed)
        return LayoutPass(root: root, range: range, context: context, updates: builder.updates, changed: builder.changed)
    }

    private struct Builder {
        /// The pass's scale. (Its context and notes are passed down the walk, borrowed: held here, each was a
        /// retain and a release per pass.)
        let scale: Double
        var updates: [Update] = []
        /// Every node placed by a parent in this pass, with that parent's update, to find a node in two places
        /// (the thread's buffer, kept with its notes).
        var placed: [PlacedNode]
        /// The children whose layout for the size their parent gave them was no longer cached.
        var changed: [Node] = []
        /// How many nodes deep the walk is (the root is 1), and, while that is more than `shallowPath`, every node
        /// on its path: the check for a cycle is then one lookup, not a walk up the path (which would make deep
        /// trees quadratic).
        var depth = 1
        var deepPath: Set<ObjectIdentifier>?
        static let shallowPath = 32

        init(scale: Double, placed: [PlacedNode]) {
            self.scale = scale
            self.placed = placed
        }

        /// Adds `node`'s update (its `entry`, and whether it manages its subnodes and which it has now), then
        /// visits the nodes of its layout.
        /// (The entry comes in parts: passed whole from a note, it was copied through its value witness.)
        mutating func visit(
            _ node: Node, version: UInt64, layout: StoredLayout?, size: Size, range: SizeRange, managed: Bool, current: NodeList,
            parent: Int, frame: Rect, notes: PassNotes, context: LayoutContext
        ) throws(HierarchyError) {
            // A node's layout is flattened: its sublayouts are its subnodes-to-be, in their frames. Each is cast
            // to a node once, here; the walk below takes them from `placed`.
            let here = updates.count
            let base = placed.count
            var children = NodeList()
            // (The sublayouts are read in place: a layout value made per sublayout, to read its object and then
            // its frame, cost two retains and releases of the storage each time.)
            if let layout {
                // (A loop, not a closure: a closure that appends to `placed` captured the whole builder, copied in
                // and out with a retain and a release of each of its references.)
                // (Each object read unretained, by address: read out of the layout's element enum, it was copied
                // with the whole enum through its value witness.)
                for k in 0..<layout.sublayoutCount {
                    guard let object = layout.unretainedSublayoutObject(k),
                          object._withUnsafeGuaranteedRef({ $0 is Node }) else { continue }
                    let child = Unmanaged<Node>.fromOpaque(object.toOpaque())
                    placed.append(PlacedNode(node: ObjectIdentifier(child.takeUnretainedValue()), update: here, child: child, sublayout: k))
                }
            }
            let end = placed.count
            if !managed && end > base, let layout { try refuseNonSubnodes(of: node, base..<end, layout: layout, range: range) }
            if managed && end > base, let layout {
                if end - base == layout.sublayoutCount, let list = NodeList(placedBy: layout) {
                    // Every sublayout a node (the usual case): the subnodes-to-be are the layout's, kept as the
                    // layout (which holds them): no array, and none of them retained.
                    children = list
                } else {
                    // Otherwise written once into an array of their exact count (appended one by one, each
                    // append was a uniqueness and capacity check through the runtime's generic array code).
                    children = NodeList(placed.withUnsafeBufferPointer { placed in
                        Array(unsafeUninitializedCapacity: end - base) { buffer, initialized in
                            for p in base..<end {
                                (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: placed[p].child.takeUnretainedValue())
                                initialized += 1
                            }
                        }
                    })
                }
            }
            updates.append(Update(
                node: node, version: version, layout: layout, size: size, range: range, parent: parent, frameInParent: frame,
                subnodes: managed ? ManagedSubnodes(old: current, new: children, diff: HierarchyDiff(from: current, to: children)) : nil))
            guard let layout, end > base else { return }
            for p in base..<end {
                let unretained = placed[p].child
                let frame = layout.sublayoutFrame(placed[p].sublayout)
                // The child's reading when its parent laid it out (read in place), or one read of it now: the
                // entry its parent placed and its subnodes.
                let size = frame.size
                if let n = notes.noteIndex(placed[p].node, size: size, scale: scale) {
                    // A leaf (no layout of its own, no subnodes to manage): its update, with nothing below it to
                    // visit. (Made here: a visit of its own passed and released its empty subnodes, and set up a
                    // walk over nothing.) The update takes the note's reference to the node.
                    if notes.isLeaf(n) {
                        try refuseCycle(placed[p].node, in: node, parent: parent)
                        updates.append(Update(
                            node: notes.takeNode(n) ?? unretained.takeUnretainedValue(), version: notes.version(n),
                            layout: nil, size: size, range: notes.range(n), parent: here, frameInParent: frame,
                            subnodes: nil))
                        continue
                    }
                    let child = unretained.takeUnretainedValue()
                    try enter(child, in: node, at: here, parent: parent)
                    // (Field by field: in a closure given the note in place, the call captured the whole builder.)
                    try visit(child, version: notes.version(n), layout: notes.layout(n), size: size, range: notes.range(n),
                              managed: notes.managed(n), current: notes.subnodes(n), parent: here, frame: frame,
                              notes: notes, context: context)
                    leave(child)
                    continue
                }
                let child = unretained.takeUnretainedValue()
                let found = child.applyingReading(size: size, scale: scale)
                let childEntry: LayoutCache.Entry
                if let cached = found.entry {
                    childEntry = cached
                } else {
                    changed.append(child)
                    do {
                        childEntry = try child.rootEntry(SizeRange(exactly: size), context: context)
                    } catch {
                        throw .layoutFailed(error)
                    }
                }
                try enter(child, in: node, at: here, parent: parent)
                try visit(child, version: childEntry.version, layout: childEntry.layout, size: childEntry.size,
                          range: childEntry.range, managed: found.managed, current: found.subnodes, parent: here,
                          frame: frame, notes: notes, context: context)
                leave(child)
            }
        }

        /// Refuses a node that does not manage its subnodes whose `layout` (for `range`) places a node that is not
        /// one of its subnodes (`placed[nodes]`: the nodes it places), as `layoutThatFits` does.
        @inline(never)
        func refuseNonSubnodes(of node: Node, _ nodes: Range<Int>, layout: StoredLayout, range: SizeRange) throws(HierarchyError) {
            guard let k = node.firstPlacedNonSubnode(count: nodes.count, { placed[nodes.lowerBound + $0].node }) else { return }
            let child = placed[nodes.lowerBound + k].child.takeUnretainedValue()
            throw .notASubnode(node: node.displayName, placed: child.displayName, place: node.place(of: child, range: range, scale: scale))
        }

        /// Refuses a node placed below itself: `id` placed by `node` (whose parent is update `parent`), when it is
        /// `node` or one of its ancestors in this walk. Layouts are cached, so two nodes can each have a cached
        /// layout that places the other (each computed before the other changed), and a walk down them would
        /// never end. (Inlined for the common case, a child of the root: one compare.)
        @inline(__always)
        mutating func refuseCycle(_ id: ObjectIdentifier, in node: Node, parent: Int) throws(HierarchyError) {
            if id == ObjectIdentifier(node) { throw .cycle(node: node.displayName, into: node.displayName) }
            if parent >= 0 || deepPath != nil { try refuseCycle(id, above: parent, in: node) }
        }

        /// ``refuseCycle(_:in:parent:)`` above `node`: from update `index` up. (Mutating although it changes
        /// nothing: called from the mutating walk, a non-mutating method was handed a copy of the whole builder.
        /// The path is read through the updates' buffer: through the array, each node read was a retain and a
        /// release.)
        @inline(never)
        mutating func refuseCycle(_ id: ObjectIdentifier, above index: Int, in node: Node) throws(HierarchyError) {
            if let deepPath {
                guard deepPath.contains(id) else { return }
            } else {
                let onPath = updates.withUnsafeBufferPointer { updates in
                    var i = index
                    while i >= 0 && ObjectIdentifier(updates[i].node) != id { i = updates[i].parent }
                    return i >= 0
                }
                guard onPath else { return }
            }
            let child = updates.first { ObjectIdentifier($0.node) == id }?.node.displayName ?? "a node"
            throw .cycle(node: child, into: node.displayName)
        }

        /// Refuses `child` placed by `node` (update `here`) if that would be a cycle (``refuseCycle(_:in:parent:)``),
        /// then counts it on the walk's path (pair with ``leave(_:)``).
        mutating func enter(_ child: Node, in node: Node, at here: Int, parent: Int) throws(HierarchyError) {
            let id = ObjectIdentifier(child)
            try refuseCycle(id, in: node, parent: parent)
            depth += 1
            guard depth > Self.shallowPath else { return }
            if deepPath == nil {
                var path = Set<ObjectIdentifier>()
                var i = here
                while i >= 0 {
                    path.insert(ObjectIdentifier(updates[i].node))
                    i = updates[i].parent
                }
                deepPath = path
            }
            deepPath?.insert(id)
        }

        /// Takes `child` off the walk's path again.
        mutating func leave(_ child: Node) {
            if depth > Self.shallowPath { deepPath?.remove(ObjectIdentifier(child)) }
            depth -= 1
            if depth <= Self.shallowPath { deepPath = nil }
        }

        /// Refuses a node placed twice: in two spots of one layout, or by two parents.
        func checkEachNodeOnce() throws(HierarchyError) {
            guard placed.count > 1 else { return }
            // Small passes (a cell) compare pairs in place; large ones sort a copy.
            var duplicate: (Int, Int)?
            if placed.count <= 32 {
                search: for i in 1..<placed.count {
                    for j in 0..<i where placed[j].node == placed[i].node {
                        duplicate = (j, i)
                        break search
                    }
                }
            } else {
                // The same pair as the scan above, whatever the nodes' addresses: of the nodes placed more than
                // once, the one whose second placement comes first, with its first placement. (The first equal
                // neighbours in address order named whichever duplicated node the allocator put lowest.)
                let order = placed.indices.sorted { (placed[$0].node, $0) < (placed[$1].node, $1) }
                for k in 1..<order.count where placed[order[k]].node == placed[order[k - 1]].node {
                    // Only a node's first two placements (its run in `order` is sorted by placement).
                    if k >= 2 && placed[order[k - 2]].node == placed[order[k]].node { continue }
                    if let (_, second) = duplicate, second < order[k] { continue }
                    duplicate = (order[k - 1], order[k])
                }
            }
            if let (a, b) = duplicate {
                let first = updates[placed[a].update]
                let second = updates[placed[b].update]
                guard let child = first.layout?.layout.sublayouts.lazy.compactMap({ $0.object as? Node })
                    .first(where: { ObjectIdentifier($0) == placed[a].node })
                else { return }
                let firstPlace = first.node.place(of: child, range: first.range, scale: scale, occurrence: 0)
                let secondPlace = second.node.place(of: child, range: second.range, scale: scale,
                                                    occurrence: first.node === second.node ? 1 : 0)
                throw .nodeInTwoPlaces(node: child.displayName, first: firstPlace, second: secondPlace)
            }
        }
    }

    /// What applying a pass did.
    public struct Result: Sendable {
        /// Node updates skipped because the node changed (a newer version exists) since they were computed.
        public var staleNodes = 0
        /// Subnodes inserted, removed and moved.
        public var insertions = 0
        public var removals = 0
        public var moves = 0
        /// The root's size before and after, when the pass changed it (a cell tells its owner). A root's first
        /// applied layout counts as a change from zero.
        public var rootSizeChange: (old: Size, new: Size)?
        /// Whether the root's part was applied but a part below it was outdated: a node changed (while it was
        /// not yet in the hierarchy, so the change did not reach the root) after the pass computed it, or while
        /// it was computed. The root needs another pass.
        public var needsAnotherPass = false
        /// The nodes found outdated (their parents' applied layouts placed them at their old size), for
        /// ``Node/requestAnotherPass(after:)``.
        var outdated: [Node] = []
    }

    /// Applies the pass. MUST run on the apply queue. On error nothing changes.
    @discardableResult
    public func apply() throws(HierarchyError) -> Result {
        try apply(deferringRemovalsFor: nil)
    }

    /// Applies the pass, leaving the nodes that `transitioning`'s update removes in place (a transition removes
    /// them when it completes). Returns the result and the root update's diff.
    func apply(deferringRemovalsFor transitioning: Node?) throws(HierarchyError) -> Result {
        try requireApplyQueue(context, "applying a layout", root)
        // 1. One reading of each node's placement (published, read with no lock), each node claimed first: the
        //    claim lasts until the node's write in step 5, so that another apply queue changing a node that
        //    belongs to two trees waits for this pass or is refused, and never changes it between this reading
        //    and that write. Parts computed for an outdated version are dropped, with everything below them.
        var readings = [Reading]()
        readings.reserveCapacity(updates.count)
        var oldRootSize: Size?
        // (The loops read each update's fields in place: an update copied whole is a dozen retains.)
        for i in updates.indices {
            let node = updates[i].node
            let parent = updates[i].parent
            if !node.claimPlacing() { throw refusal(i, other: nil, releasing: readings) }
            let version = node.currentVersion.load(ordering: .acquiring)
            let (current, supernode, appliedSize) = node.hierarchyReading(subnodes: updates[i].managed)
            let skip = (parent >= 0 && readings[parent].skip) || version != updates[i].version
            readings.append(Reading(id: ObjectIdentifier(node), skip: skip, current: current, supernode: supernode))
            if i == 0 && !skip { oldRootSize = appliedSize }
        }
        // 2. The subnodes each managed node will have, and the diff from what it has now.
        var plans: [(index: Int, diff: HierarchyDiff)] = []
        var leaving = Set<ObjectIdentifier>()
        for i in updates.indices where !readings[i].skip {
            guard let managed = updates[i].subnodes else { continue }
            let current = readings[i].current
            let diff = current.isSame(as: managed.old) ? managed.diff : HierarchyDiff(from: current, to: managed.new)
            readings[i].plan = plans.count
            plans.append((i, diff))
            diff.forEachRemovedNode { leaving.insert(ObjectIdentifier($0)) }
        }
        // 3. A node may enter a parent only if it has no other parent or leaves that one in this pass. (A node
        //    is a subnode of its supernode and of no other: one that is not yet this parent's enters it.)
        //    (Identifiers, not nodes, in the loop: `ObjectIdentifier(updates[p].node)` retains the parent.)
        for i in updates.indices where updates[i].parent >= 0 && readings[updates[i].parent].plan >= 0 {
            let parentID = readings[updates[i].parent].id
            guard let other = readings[i].supernode, other != parentID, !leaving.contains(readings[i].id) else { continue }
            // (Confirmed under the node's lock: the identifier read may have outlived its node.)
            guard let otherNode = updates[i].node.supernode, ObjectIdentifier(otherNode) != parentID else { continue }
            throw refusal(i, other: otherNode, releasing: readings)
        }
        // 4. Change the hierarchy: removals first, so that nodes can move between parents.
        var result = Result()
        result.staleNodes = readings.count(where: \.skip)
        result.needsAnotherPass = !readings[0].skip && (result.staleNodes > 0 || !changed.isEmpty)
        if result.needsAnotherPass {
            result.outdated = changed
            for (i, update) in updates.enumerated() where readings[i].skip && (update.parent < 0 || !readings[update.parent].skip) {
                result.outdated.append(update.node)
            }
        }
        for (i, diff) in plans where updates[i].node !== transitioning {
            diff.forEachRemovedNode { $0.leave(updates[i].node) }
        }
        for (_, diff) in plans {
            result.insertions += diff.insertionCount
            result.removals += diff.removalCount
            result.moves += diff.moves.count
        }
        // 5. One write per node, parents first: its place in a parent whose part is applied (entering a managed
        //    parent it is not in yet; its frame there) and, unless its own part is outdated, its subnodes (a
        //    managed node) and applied layout.
        let context = self.context  // (captured by the write below: the pass itself is not)
        var enteredOutdated: [Node] = []
        for i in updates.indices {
            // (Every node's claim ends here: with its write, once its placement is published, or unwritten.)
            defer { updates[i].node.releasePlacing() }
            let parentIndex = updates[i].parent
            let parent = parentIndex >= 0 && !readings[parentIndex].skip ? updates[parentIndex].node : nil
            let applies = !readings[i].skip
            guard parent != nil || applies else { continue }
            let enters = parent != nil && updates[parentIndex].managed
            let node = updates[i].node
            var subnodes: NodeList?
            var diff: HierarchyDiff?
            if applies, readings[i].plan >= 0 {
                let planned = plans[readings[i].plan].diff
                let new = updates[i].subnodes?.new ?? NodeList()
                subnodes = node === transitioning ? NodeList(planned.removals.map(\.node) + new) : new
                diff = planned
            }
            let frameInParent = updates[i].frameInParent
            let (layout, size, version) = (updates[i].layout, updates[i].size, updates[i].version)
            var contextChanged = false
            // (What the write replaces, the applied layout and last diff, is returned and released after the
            // lock: it may hold a removed node's last reference, whose deinit is the user's code.)
            let (enteredChanged, replaced) = node.withState { state -> (Bool, (StoredLayout?, HierarchyDiff?)) in
                var replaced: (StoredLayout?, HierarchyDiff?) = (nil, nil)
                var entering = false
                if let parent {
                    let inParent = state.isSupernode(parent)
                    entering = enters && !inParent
                    if entering && state.context !== context {
                        state.context = context
                        contextChanged = true
                    }
                    if entering || inParent { state.frame = frameInParent }
                }
                if applies {
                    if subnodes != nil { replaced.1 = state.lastDiff.take(); state.lastDiff = diff }
                    replaced.0 = state.appliedLayout.take()
                    state.appliedLayout = layout
                    state.appliedVersion = version
                    state.frame.size = size
                    state.lastError = nil
                }
                // (One published change of the placement: apply reads it with no lock.)
                if entering || applies {
                    if entering { state.supernodeLink = parent?.linkForSubnodes() }
                    state.changePlacement(publishingIn: node.placementSlots) { placement in
                        if entering { placement.supernodeID = parent.map(ObjectIdentifier.init) }
                        guard applies else { return }
                        if let subnodes { placement.subnodes = subnodes }
                        placement.appliedSize = size
                    }
                }
                // A node that changed since step 1 read its version, while it was not yet in this parent: its
                // change did not reach the parent (its setNeedsLayout found no supernode), so the root needs
                // another pass. (A change after this section finds the supernode.)
                return (entering && applies && state.version != version, replaced)
            }
            withExtendedLifetime(replaced) {}
            if enteredChanged { enteredOutdated.append(node) }
            // Its own subnodes (a node entering with subnodes added by hand) take the context too, as with
            // insertSubnode; those this pass places take it again as they enter, unchanged.
            if contextChanged { node.passContextDown(context, outdating: false) }
        }
        if !enteredOutdated.isEmpty && !readings[0].skip {
            result.needsAnotherPass = true
            result.outdated += enteredOutdated
        }
        if let old = oldRootSize, old != updates[0].size {
            result.rootSizeChange = (old, updates[0].size)
        }
        context.statistics.addApplied(
            insertions: result.insertions, removals: result.removals, moves: result.moves, staleDrops: result.staleNodes)
        return result
    }

    /// Releases the claims of the nodes read so far (`readings`) and words why update `i`'s node may not be
    /// applied here: `other` holds it, or (nil) another apply queue's change holds it.
    private func refusal(_ i: Int, other: Node?, releasing readings: [Reading]) -> HierarchyError {
        for j in readings.indices { updates[j].node.releasePlacing() }
        guard updates[i].parent >= 0 else {
            return .nodeInTwoPlaces(node: updates[i].node.displayName, first: Node.placedElsewhere, second: "the root of this layout pass")
        }
        let parent = updates[updates[i].parent]
        let place = parent.node.place(of: updates[i].node, range: parent.range, scale: context.scale)
        let first = other.map { "a subnode of \($0.displayName)" } ?? Node.placedElsewhere
        return .nodeInTwoPlaces(node: updates[i].node.displayName, first: first, second: place)
    }

    /// What ``apply(deferringRemovalsFor:)`` read of one node, and the index of its plan (-1: none).
    private struct Reading {
        /// The node's identity.
        let id: ObjectIdentifier
        let skip: Bool
        let current: NodeList
        let supernode: ObjectIdentifier?
        var plan = -1
    }
}
