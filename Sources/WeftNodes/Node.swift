import Synchronization
import WeftLayout
import WeftSync

/// Returns a node's layout spec for a size range (Texture's `layoutSpecBlock`), built in the given builder or
/// as a value spec.
public typealias LayoutSpecBlock = @Sendable (Node, SizeRange, inout SpecBuilder) -> (any SpecPart)?

/// A node: an element with identity, a cached layout, and a place in a hierarchy of subnodes.
///
/// Subclass it and override ``layoutSpecThatFits(_:)`` (or give it a ``layoutSpecBlock``) to compose other
/// elements; override ``calculateSizeThatFits(_:)`` to measure a leaf. With
/// ``automaticallyManagesSubnodes``, the node's subnodes are exactly the nodes of its flattened layout.
///
/// Threading contract:
/// - Layout calculation (``layoutThatFits(_:)``, and a parent's layout that includes this node) MAY run on
///   any thread, concurrently, for any nodes.
/// - ``setNeedsLayout()`` and property setters MAY be called from any thread. Each change is atomic: two
///   threads setting different fields of ``style`` (`node.style.flexGrow = 1`, ``updateStyle(_:)``) both land.
/// - Hierarchy mutation (``addSubnode(_:)``, ``insertSubnode(_:at:)``, ``removeFromSupernode()``, applying
///   layouts and transitions, ``setInterfaceState(_:)``) MUST run on the apply queue of the node's
///   ``context``; elsewhere it is refused with ``HierarchyError/offApplyQueue(operation:node:)``. Reading the
///   hierarchy MAY happen anywhere.
/// - No lock is held while user code (``layoutSpecThatFits(_:)``, ``calculateSizeThatFits(_:)``), another node
///   or the layout algorithm runs. Each change of a layout input (``style``, ``context``,
///   ``layoutSpecBlock``, ``automaticallyManagesSubnodes``) publishes an immutable snapshot of them, which
///   layout reads with no lock (and the version is an atomic); each change of a node's place in the hierarchy
///   (subnodes, its supernode's identity, applied size) publishes one the same way, which applying a pass and
///   the ``subnodes`` getter read with no lock. The rest of a node's state (its cache, its applied layout and
///   frame) sits behind one lock, touched in short sections only: a cold layout takes it once per node, to store
///   the node's entry; applying a pass, once per node, to write it; a repeated ``layoutThatFits(_:)`` for the
///   range last answered, with no input changed, takes no lock.
open class Node: LayoutObject, @unchecked Sendable {
    // @unchecked: all mutable state is in `guarded`, written only while holding its lock and read so, except the
    // input snapshots and placements, which readers reach through `inputSlots` and `placementSlots` (SlotPairs)
    // with no lock; the rest are Atomics and a PublishedReference.

    struct State {
        // A change of any input a cached layout depends on (the style narrows the range, the context sets the
        // scale, the version counts invalidations) bumps `generation`; a change of an input the snapshot holds
        // marks it stale. `finishWrite` publishes both (and the version) before the lock is released.
        var style = LayoutStyle() {
            didSet {
                guard style != oldValue else { return }
                styleChanges &+= 1
                generation &+= 1
                snapshotStale = true
            }
        }
        var context = LayoutContext.default {
            didSet {
                guard context !== oldValue else { return }
                generation &+= 1
                snapshotStale = true
            }
        }
        var generation: UInt64 = 0
        /// Counts changes of `style` (what ``Node/updateStyle(_:)`` compares: a style holding a NaN is not equal
        /// to itself).
        var styleChanges: UInt64 = 0
        /// Whether an input the published ``Snapshot`` holds changed since it was published.
        var snapshotStale = false
        var identifier: String?
        var layoutSpecBlock: LayoutSpecBlock? { didSet { snapshotStale = true } }
        /// The published snapshots of the inputs above (``Node/inputSlots`` says which is current): read with no
        /// lock by layout, so written only by `finishWrite`, into the slot that is not current.
        var inputs = (Snapshot.initial, Snapshot.initial)

        /// Assigns input slot `slot` (0 or 1).
        @inline(__always)
        mutating func setInputs(_ slot: Int, _ snapshot: Snapshot) {
            if slot == 0 { inputs.0 = snapshot } else { inputs.1 = snapshot }
        }

        /// Takes input slot `slot`'s snapshot out, leaving the initial one.
        @inline(__always)
        mutating func takeInputs(_ slot: Int) -> Snapshot {
            var taken = Snapshot.initial
            if slot == 0 { swap(&taken, &inputs.0) } else { swap(&taken, &inputs.1) }
            return taken
        }
        var version: UInt64 = 1 { didSet { generation &+= 1 } }
        // (Here, before the cache: a pass reads it under the lock where it stores its entry, on the same line.)
        var automaticallyManagesSubnodes = false {
            didSet {
                guard automaticallyManagesSubnodes != oldValue else { return }
                version &+= 1
                snapshotStale = true
            }
        }
        var cache = LayoutCache()
        var constrainedRange: SizeRange?
        var relayoutScheduled = false
        var transition: UInt64 = 0
        // Hierarchy state: written only on an apply queue, under the lock. What applying a pass reads first of
        // each node (its subnodes, its supernode's identity and its applied size) is published in two slots like
        // the inputs (``Node/placementSlots`` says which is current; `placementSlot` mirrors it for writers), so
        // that apply and the `subnodes` getter read it with no lock; written only by `changePlacement`.
        /// How the node reaches its supernode: the back reference the supernode gives its subnodes. (Not a weak
        /// reference: that gave every parent a side table, which made each retain and release of a parent the
        /// runtime's slow kind and cost an allocation for its first subnode.)
        var supernodeLink: BackReference<Node>?

        /// The supernode, retained; nil once it began to go away.
        var supernode: Node? { supernodeLink?.object }

        /// Whether `node` is the supernode (compared, not retained).
        func isSupernode(_ node: Node) -> Bool {
            supernodeLink?.refers(to: node) ?? false
        }
        var placement0 = Placement()
        var placement1 = Placement()
        var placementSlot = 0
        var frame = Rect(x: 0, y: 0, width: 0, height: 0)
        var appliedLayout: StoredLayout?
        var appliedVersion: UInt64 = 0
        var lastDiff: HierarchyDiff?
        var lastError: (any Error & Sendable)?
        var interfaceState: InterfaceState = []

        /// Changes the placement: `change` applies to a copy of the current one in the other slot (changed in
        /// place, not through a local), which is then published (`slots` waits for the readers of the old one),
        /// and the old slot lets go of what it held. Under the lock only.
        mutating func changePlacement(publishingIn slots: borrowing SlotPair, _ change: (inout Placement) -> Void) {
            let old = placementSlot
            if old == 0 {
                placement1 = placement0
                change(&placement1)
            } else {
                placement0 = placement1
                change(&placement0)
            }
            slots.publish(1 - old)
            placementSlot = 1 - old
            if old == 0 { placement0 = Placement() } else { placement1 = Placement() }
        }

        /// Sets the supernode and publishes its identity with it (the two never differ). Under the lock only.
        mutating func setSupernode(_ node: Node?, publishingIn slots: borrowing SlotPair) {
            supernodeLink = node?.linkForSubnodes()
            changePlacement(publishingIn: slots) { $0.supernodeID = node.map(ObjectIdentifier.init) }
        }
    }

    /// Where a node is in the hierarchy, as applied: what applying a pass checks first, read with no lock.
    struct Placement {
        /// (For a node that manages its subnodes, after a pass: the applied layout's nodes, kept as that layout.)
        var subnodes = NodeList()
        /// The supernode's identity (`State.supernodeLink`, the reference itself, stays under the lock). It may
        /// outlive its node: a match or a mismatch that matters is confirmed against `State.supernode` under the
        /// lock.
        var supernodeID: ObjectIdentifier?
        var appliedSize = Size.zero
    }

    /// The layout inputs of one state of the node, published by every change of them: what layout reads without
    /// the node's lock (a stack reading a child's style, a lookup narrowing its range, the default spec reading
    /// the block).
    struct Snapshot {
        // (In this order, with the problem boxed, a snapshot stays under 256 bytes, the size above which a copy,
        // as a style change makes, goes through the C library's copy loop. Pinned by Benchmarks 4.)
        let style: LayoutStyle
        /// What is wrong with `style` (checked once, when the snapshot is made), or nil.
        let styleProblem: StyleError?
        /// `style`'s ``LayoutStyle/fixedRange`` (resolved once, when the snapshot is made), or nil.
        let fixedRange: SizeRange?
        let automaticallyManagesSubnodes: Bool
        let context: LayoutContext
        let layoutSpecBlock: LayoutSpecBlock?

        init(style: LayoutStyle, context: LayoutContext, automaticallyManagesSubnodes: Bool, layoutSpecBlock: LayoutSpecBlock?) {
            self.style = style
            do {
                try style.validate()
                styleProblem = nil
            } catch {
                styleProblem = StyleError(error)
            }
            fixedRange = style.fixedRange
            self.automaticallyManagesSubnodes = automaticallyManagesSubnodes
            self.context = context
            self.layoutSpecBlock = layoutSpecBlock
        }

        /// `range` narrowed by the snapshot's style (``LayoutStyle/narrowed(_:parentSize:)``), from its fixed range
        /// where it has one. (Static, over a pointer: only the fields it needs are read, the snapshot is not copied.)
        @inline(__always)
        static func narrowed(_ snapshot: UnsafeMutablePointer<Snapshot>, _ range: SizeRange, parentSize: Size) -> SizeRange {
            if let fixed = snapshot.pointee.fixedRange { return range.intersection(fixed) }
            return snapshot.pointee.style.narrowed(range, parentSize: parentSize)
        }

        /// The snapshot of `state`'s inputs (read in place: the state is not copied).
        static func of(_ state: inout State) -> Snapshot {
            Snapshot(style: state.style, context: state.context, automaticallyManagesSubnodes: state.automaticallyManagesSubnodes,
                     layoutSpecBlock: state.layoutSpecBlock)
        }

        /// A new node's inputs, until its first change.
        static let initial = Snapshot(style: LayoutStyle(), context: .default, automaticallyManagesSubnodes: false, layoutSpecBlock: nil)
    }

    /// The state and its mutex in one allocation (reached through the box, so no exclusivity check runs).
    let guarded = Locked(making: { State() })
    /// Which of `State.inputs` is the current snapshot of the node's layout inputs, and the readers inside: read
    /// with no lock (``readInputs(_:)``), written under the lock (which serializes the writers), with no
    /// allocation.
    let inputSlots = SlotPair()
    /// Which of `State.placement0` and `placement1` is current, and the readers inside (``readPlacement(_:)``):
    /// the same scheme.
    let placementSlots = SlotPair()
    /// Whether ``layoutSpecBlock`` is set (stored with it, under the lock): the default
    /// ``layoutSpecThatFits(_:in:)`` of a node without one (most leaves) returns without reading the snapshot.
    let hasSpecBlock = Atomic<Bool>(false)
    /// `State.generation`, readable without the lock (stored whenever a section changed it, before the lock is
    /// released, after the snapshot).
    let inputsGeneration = Atomic<UInt64>(0)
    /// `State.version`, readable without the lock (stored whenever a section changed it, before the lock is
    /// released).
    let currentVersion = Atomic<UInt64>(1)
    /// The newest version for which a layout was stored in the cache: while it is not the current version, a
    /// lookup knows it misses without taking the lock.
    let storedVersion = Atomic<UInt64>(0)
    /// Whether a hierarchy change holds this node: a layout pass applying it, from before it reads the node's
    /// placement to its write of it, or `insertSubnode` (the node and its new parent).
    /// Taken with one compare-and-swap (``claimPlacing()``), so that two apply queues never change one node's
    /// placement from two readings of it: the second waits for the first, or is refused. 0: free, 1: held,
    /// 2: held, and another change waits for it.
    let placing = Atomic<UInt8>(0)
    /// The layout last answered for a root range, and the generation it was computed at: a repeated
    /// ``layoutThatFits(_:)`` for that range is answered from it with no lock.
    let rootRecord = PublishedReference<RootRecord>()

    /// The back reference this node's subnodes hold (``State/supernodeLink``), made for its first subnode.
    let subnodesLink = BackReferenceSlot<Node>()

    public init() {}

    /// Lets go of what it holds without recursion. Released by the runtime, each node freed its subnodes from
    /// within its own deinit, and they theirs: a chain of some 20,000 nodes ran off an 8 MB stack. Now a node
    /// going away hands everything of its state that can hold other nodes (its subnodes, its cached and applied
    /// layouts, which hold the nodes they place, its last diff, its spec block, which may capture them, and its
    /// published root answer) to its thread's ``ReleaseQueue``: the outermost deinit on the thread lets them go
    /// one at a time, and each node that goes hands its own over in turn; none is released under the lock.
    /// Nothing but the going node is changed (a subnode another thread still holds stays whole). A node that
    /// holds none of these takes no lock here. (A subclass's stored properties are freed by the runtime before
    /// this runs: nodes held only there are freed recursively.)
    deinit {
        // Nothing that can hold another node (no subnodes, no layout ever stored, no spec block, no published
        // answer): nothing to do, and no lock taken.
        guard !readPlacement({ $0.pointee.subnodes.isEmpty }) || storedVersion.load(ordering: .relaxed) != 0
                || hasSpecBlock.load(ordering: .relaxed) || rootRecord.isSet else { return }
        var held = ReleaseQueue.Held()
        held.record = rootRecord.take()
        var displaced: Snapshot?
        guarded.withLock { state in
            let (generation, version) = (state.generation, state.version)
            held.nodes = state.placementSlot == 0 ? state.placement0.subnodes : state.placement1.subnodes
            state.changePlacement(publishingIn: placementSlots) { $0.subnodes = NodeList() }
            held.layouts = state.cache.takeLayouts()
            held.applied = state.appliedLayout.take()
            held.diff = state.lastDiff.take()
            state.layoutSpecBlock = nil
            displaced = finishWrite(&state, generation: generation, version: version)
        }
        // The spec block (which may capture nodes) goes with the rest; the snapshot that held it goes here, after
        // the lock, no longer its last holder.
        held.block = displaced?.layoutSpecBlock
        displaced = nil
        ReleaseQueue.release(&held)
    }

    /// The back reference for this node's subnodes (made the first time).
    func linkForSubnodes() -> BackReference<Node> {
        subnodesLink.reference(to: self)
    }

    /// A node with an identifier, a style and, optionally, a layout spec block.
    public convenience init(identifier: String?, style: LayoutStyle = LayoutStyle(), layoutSpec: LayoutSpecBlock? = nil) {
        self.init()
        withState { state in
            state.identifier = identifier
            state.style = style
            state.layoutSpecBlock = layoutSpec
            hasSpecBlock.store(layoutSpec != nil, ordering: .releasing)
        }
    }

    /// Runs `body` on the state under the node's lock, then publishes what it changed. What the change let go
    /// of in the inputs (a replaced spec block and what it captured, a replaced context) is released after the
    /// lock is: a deinit it runs (a user's object) may change this node. (What `body` replaces itself is
    /// released inside: return it from `body` to let it go after the lock, as the cache's removals do.)
    @inline(__always)
    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        var displaced: Snapshot?
        defer { withExtendedLifetime(displaced) {} }
        return try guarded.withLock { state in
            let generation = state.generation
            let version = state.version
            defer { displaced = finishWrite(&state, generation: generation, version: version) }
            return try body(&state)
        }
    }

    /// Publishes what a critical section changed, before its lock is released: the snapshot first, then the
    /// version and the generation (a reader that loads the generation before the snapshot never pairs a newer
    /// generation with an older snapshot). Returns the snapshot it replaced, if any, for the caller to release
    /// once the lock is released.
    @inline(__always)
    func finishWrite(_ state: inout State, generation: UInt64, version: UInt64) -> Snapshot? {
        var displaced: Snapshot?
        if state.snapshotStale {
            state.snapshotStale = false
            // The new snapshot into the slot that is not current, published; then the old one (no reader is left
            // in it) is taken out, to let go of what it held (a replaced spec block, and what it captured; a
            // replaced context) after the lock.
            let slot = inputSlots.slotToWrite
            state.setInputs(slot, Snapshot.of(&state))
            inputSlots.publish(slot)
            displaced = state.takeInputs(1 - slot)
        }
        if state.version != version { currentVersion.store(state.version, ordering: .releasing) }
        if state.generation != generation { inputsGeneration.store(state.generation, ordering: .releasing) }
        return displaced
    }

    /// Reads the node's published inputs, with no lock: the current slot of `State.inputs`, in place (writers
    /// only assign the other slot, under the lock; no reader is in it). Reached by address from the state's (a
    /// formal access to the state would overlap the writers' own).
    @inline(__always)
    func readInputs<T>(_ body: (UnsafeMutablePointer<Snapshot>) -> T) -> T {
        guard let offset = Self.slotOffsets.inputs else {
            return withState { state in
                var snapshot = Snapshot.of(&state)
                return withUnsafeMutablePointer(to: &snapshot, body)
            }
        }
        let slots = (UnsafeMutableRawPointer(guarded.valueAddress()) + offset).assumingMemoryBound(to: Snapshot.self)
        return inputSlots.read { slot in body(slots + slot) }
    }

    /// Reads the node's placement in the hierarchy, with no lock: the current one of `State.placement0` and
    /// `placement1`, in place, as ``readInputs(_:)`` does.
    @inline(__always)
    func readPlacement<T>(_ body: (UnsafeMutablePointer<Placement>) -> T) -> T {
        guard let first = Self.slotOffsets.placement0, let second = Self.slotOffsets.placement1 else {
            return withState { state in
                var placement = state.placementSlot == 0 ? state.placement0 : state.placement1
                return withUnsafeMutablePointer(to: &placement, body)
            }
        }
        let base = UnsafeMutableRawPointer(guarded.valueAddress())
        return placementSlots.read { slot in body((base + (slot == 0 ? first : second)).assumingMemoryBound(to: Placement.self)) }
    }

    /// Where `State.inputs` (a pair of consecutive values) and the two placements lie in the state, and the style
    /// in a snapshot; nil if the layout does not say (never for a stored property: the locked reads above, and the
    /// copied style, are a fallback, not a path).
    static var slotOffsets: (inputs: Int?, placement0: Int?, placement1: Int?, style: Int?) {
        @inline(__always) get {
            (pairOffset(\State.inputs, of: Snapshot.self), MemoryLayout<State>.offset(of: \State.placement0),
             MemoryLayout<State>.offset(of: \State.placement1), MemoryLayout<Snapshot>.offset(of: \Snapshot.style))
        }
    }

    @inline(__always)
    private static func pairOffset<T>(_ path: PartialKeyPath<State>, of: T.Type) -> Int? {
        guard let offset = MemoryLayout<State>.offset(of: path),
              MemoryLayout<(T, T)>.size == MemoryLayout<T>.stride + MemoryLayout<T>.size
        else { return nil }
        return offset
    }

    /// The node's lock, for state a subclass keeps in its own stored properties (`lock.withLock { ... }`).
    var lock: NodeLock { NodeLock(guarded: guarded) }

    struct NodeLock {
        let guarded: Locked<State>

        @inline(__always)
        func withLock<T>(_ body: () throws -> T) rethrows -> T {
            try guarded.withLock { _ in try body() }
        }
    }

    // MARK: Properties

    /// The style and its problem from the snapshot, which checked the style when it was made.
    public func checkedStyle() throws(LayoutError) -> LayoutStyle {
        let (style, problem) = readInputs { ($0.pointee.style, $0.pointee.styleProblem) }
        if let problem { throw problem.error }
        return style
    }

    /// `body` runs on the snapshot's style in place, while the snapshot is read (a writer waits meanwhile). `body`
    /// MUST only read the style: it must not block, change a node, or call code that may (a change of this node's
    /// inputs waits for this read to end, so made from `body` it would wait for itself, under the node's lock).
    public func withCheckedStyle(_ body: (_ style: UnsafePointer<LayoutStyle>, _ fixedRange: SizeRange?) -> Void) throws(LayoutError) {
        let problem: StyleError? = readInputs { inputs in
            if let styleProblem = inputs.pointee.styleProblem { return styleProblem }
            // The style in place in the snapshot, and its range resolved when the snapshot was made.
            if let offset = Self.slotOffsets.style {
                body((UnsafeRawPointer(inputs) + offset).assumingMemoryBound(to: LayoutStyle.self), inputs.pointee.fixedRange)
            } else {
                withUnsafePointer(to: inputs.pointee.style) { body($0, inputs.pointee.fixedRange) }
            }
            return nil
        }
        if let problem { throw problem.error }
    }

    /// How the node asks its parent to size and place it. Setting it does not invalidate the layout (as in
    /// Texture, specs often set a child's style while building): call ``setNeedsLayout()`` when it matters.
    ///
    /// A change in place (`node.style.flexGrow = 1`) is one atomic read-modify-write: concurrent changes of
    /// different fields all land. (The node's lock is held while the new value is stored in place, so the
    /// statement must not itself change this node.)
    public var style: LayoutStyle {
        get { readInputs { $0.pointee.style } }
        set { withState { $0.style = newValue } }
        _modify {
            let state = guarded.lockedPointer()
            let (generation, version) = (state.pointee.generation, state.pointee.version)
            var displaced: Snapshot?
            defer {
                displaced = finishWrite(&state.pointee, generation: generation, version: version)
                guarded.unlock()
                withExtendedLifetime(displaced) {}
            }
            yield &state.pointee.style
        }
    }

    /// Changes the style with `change`, atomically: `change` runs on a copy without any lock held, and is run
    /// again on the newer style if another thread changed the style meanwhile (so it must only compute the new
    /// style from the one it is given).
    public func updateStyle(_ change: (inout LayoutStyle) -> Void) {
        while true {
            let (original, changes) = withState { state in (state.style, state.styleChanges) }
            var changed = original
            change(&changed)
            let stored = withState { state -> Bool in
                guard state.styleChanges == changes else { return false }
                state.style = changed
                return true
            }
            if stored { return }
        }
    }

    /// The context the node lays out in (scale, apply queue, layout queue, statistics); ``LayoutContext/default``
    /// until set. A feed sets its own on its cells; a subnode takes its supernode's when it is added, and passes
    /// it on to its own subnodes.
    ///
    /// Setting a different context sets it on every node below too, and outdates their layouts and the node's,
    /// as ``setConstrainedRangeQuietly(_:)`` does (versions bumped, no pass scheduled): a pass computed in the old
    /// context (its scale, for its apply queue) is never applied, and ``layoutIfNeeded()`` lays the node out
    /// again. Set it where the subtree does not change meanwhile (its apply queue, or before it is shared): a
    /// subnode added on another thread while it is passed down may keep the old one.
    public var context: LayoutContext {
        get { readInputs { $0.pointee.context } }
        set {
            let changed = withState { state -> Bool in
                guard state.context !== newValue else { return false }
                state.context = newValue
                state.version &+= 1
                return true
            }
            if changed { passContextDown(newValue, outdating: true) }
        }
    }

    /// A name for debugging output and error messages.
    public var identifier: String? {
        get { withState { $0.identifier } }
        set { withState { $0.identifier = newValue } }
    }

    /// Whether the node's subnodes come from its layout: exactly the nodes of its flattened layout, in layout
    /// order. Such a node refuses ``addSubnode(_:)`` and friends. A node that does not manage them gets them by
    /// hand, and its layout may place only those: one placing another node is refused
    /// (``HierarchyError/notASubnode(node:placed:place:)``).
    public var automaticallyManagesSubnodes: Bool {
        get { readInputs { $0.pointee.automaticallyManagesSubnodes } }
        set { withState { $0.automaticallyManagesSubnodes = newValue } }
    }

    /// A block that returns the layout spec, used by the default ``layoutSpecThatFits(_:)``.
    public var layoutSpecBlock: LayoutSpecBlock? {
        get { readInputs { $0.pointee.layoutSpecBlock } }
        set {
            withState { state in
                state.layoutSpecBlock = newValue
                hasSpecBlock.store(newValue != nil, ordering: .releasing)
            }
        }
    }

    /// The layout version: bumped by every ``setNeedsLayout()``. A layout computed for an older version is
    /// never applied.
    public var layoutVersion: UInt64 { currentVersion.load(ordering: .acquiring) }

    // MARK: LayoutElement

    open var kindName: String { String(describing: type(of: self)) }

    public final var isNode: Bool { true }

    public func placeOfSublayout(_ index: Int) -> String { "layoutSpec" }

    open var baselineAscender: Double { style.ascender }

    open var baselineDescender: Double { style.descender }

    // MARK: Overridable layout

    /// The node's layout spec for `range` (already narrowed by the node's style), or nil for a leaf.
    ///
    /// Build the spec in `specs` (``SpecBuilder``: nothing is allocated, the arena is reused) and return its
    /// root, or return a value spec (``StackSpec``...) or a single element. Build a new spec on every call, as
    /// in Texture; the references the builder hands out are valid during this call only.
    ///
    /// The default returns ``layoutSpecBlock``'s spec, or nil. Called without any lock held, on whatever
    /// thread computes the layout; it MAY run on several threads at once, so it must only read state that is
    /// safe to read concurrently.
    open func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        guard hasSpecBlock.load(ordering: .acquiring), let block = layoutSpecBlock else { return nil }
        return block(self, range, &specs)
    }

    /// A leaf's size for `constrainedSize`, or an error naming what cannot be measured: what layout calls.
    ///
    /// The default is ``calculateSizeThatFits(_:)``'s size; a leaf whose content can be invalid (a text with
    /// an unknown font) overrides this to throw. Same threading rules as ``layoutSpecThatFits(_:in:)``.
    open func sizeThatFits(_ constrainedSize: Size) throws(LayoutError) -> Size {
        calculateSizeThatFits(constrainedSize)
    }

    /// A leaf's size for `constrainedSize` (the max of its range; dimensions may be infinite).
    ///
    /// The default, like Texture's, is `constrainedSize` when both dimensions are valid sizes (finite and below
    /// Texture's limit, `Size.isValid`) and zero otherwise.
    /// The result is clamped into the range. Same threading rules as ``layoutSpecThatFits(_:)``.
    open func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
        constrainedSize.isValid ? constrainedSize : .zero
    }

    /// Called on the apply queue when a layout pass for this node failed (the previous layout stays applied).
    /// The default keeps the error in ``lastLayoutError``.
    open func didFailLayout(_ error: any Error & Sendable) {
        withState { $0.lastError = error }
    }

    /// Called on the apply queue after a layout pass of this node as a root changed its size. The default does
    /// nothing; ``CellNode`` tells its owner.
    open func didChangeSize(from oldSize: Size, to newSize: Size) {}

    // MARK: Overridable transitions

    /// Animates a layout transition; call `context.completeTransition(_:)` when done. Runs on the apply queue,
    /// after inserted subnodes were added and before removed ones are taken away.
    ///
    /// The default records each subnode's final frame (no animation to run here) and completes at once.
    open func animateLayoutTransition(_ context: TransitionContext) {
        for node in context.insertedSubnodes + context.movedOrKeptSubnodes {
            if let frame = context.finalFrame(for: node) { context.recordFrame(frame, for: node) }
        }
        context.completeTransition(true)
    }

    /// Called on the apply queue when a transition completes. The default removes the subnodes the new layout
    /// no longer holds (they stayed during the animation).
    open func didCompleteLayoutTransition(_ context: TransitionContext) {
        do {
            try finishTransitionRemovals(context)
        } catch {
            didFailLayout(error)
        }
    }

    // MARK: Interface state

    /// The ranges of its container the node is in (Texture's `interfaceState`), as last set on the apply queue.
    public var interfaceState: InterfaceState { withState { $0.interfaceState } }

    /// Moves the node into `newState`, calling the enter and exit hooks for each range that changed (exits
    /// first, then enters, from the outermost range in). MUST run on the apply queue (containers call it);
    /// elsewhere it throws ``HierarchyError/offApplyQueue(operation:node:)`` and changes nothing.
    public func setInterfaceState(_ newState: InterfaceState) throws(HierarchyError) {
        try requireApplyQueue("setInterfaceState")
        let old = withState { state -> InterfaceState in
            defer { state.interfaceState = newState }
            return state.interfaceState
        }
        if old == newState { return }
        if old.contains(.visible) && !newState.contains(.visible) { didExitVisibleState() }
        if old.contains(.display) && !newState.contains(.display) { didExitDisplayState() }
        if old.contains(.preload) && !newState.contains(.preload) { didExitPreloadState() }
        if !old.contains(.preload) && newState.contains(.preload) { didEnterPreloadState() }
        if !old.contains(.display) && newState.contains(.display) { didEnterDisplayState() }
        if !old.contains(.visible) && newState.contains(.visible) { didEnterVisibleState() }
    }

    /// The node entered its container's preload range: fetch what it needs (images, data). Apply queue.
    open func didEnterPreloadState() {}
    /// The node left the preload range. Apply queue.
    open func didExitPreloadState() {}
    /// The node entered the display range: it would be drawn now. Apply queue.
    open func didEnterDisplayState() {}
    /// The node left the display range. Apply queue.
    open func didExitDisplayState() {}
    /// The node became visible. Apply queue.
    open func didEnterVisibleState() {}
    /// The node stopped being visible. Apply queue.
    open func didExitVisibleState() {}

    /// The error of the last failed layout pass, if the last pass failed.
    public var lastLayoutError: (any Error & Sendable)? { withState { $0.lastError } }
}
