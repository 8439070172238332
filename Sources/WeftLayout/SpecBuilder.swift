/// Builds spec trees in an arena: each method adds one spec and returns its reference, to be a child of the
/// next. No spec is an object and nothing is allocated once the arena has grown.
///
/// A node builds its spec in the builder its layout hands it (``SpecRef``s are valid in that builder, during
/// that call); any other code makes its own builder and ``finish(_:)``es the tree into a ``Spec`` value:
///
/// ```swift
/// var specs = SpecBuilder()
/// let row = specs.stack(StackOptions(spacing: 8, alignItems: .center),
///                       children: avatar, specs.box(size: Size(120, 17), identifier: "name"))
/// let cell = specs.finish(specs.inset(EdgeInsets(all: 8), row))
/// let layout = try Layout.compute(cell, in: SizeRange(min: Size(375, 0), max: Size(375, .infinity)))
/// ```
///
/// The value types ``StackSpec``, ``InsetSpec``... describe the same specs one value each, for code that
/// prefers them; they are added to an arena when laid out (each one that is stored as `any LayoutElement` is
/// boxed, so they allocate where the builder does not).
public struct SpecBuilder {
    /// The arena the specs go into.
    @usableFromInline package private(set) var arena: SpecArena

    /// A builder over a new arena.
    public init() {
        arena = SpecArena()
    }

    /// A builder that adds to `arena` (which must not be shared with another thread while it is filled).
    @usableFromInline package init(arena: SpecArena) {
        self.arena = arena
    }

    /// The tree under `root` as a finished value; the builder goes on with a new arena (the finished one is
    /// never added to again, so the spec may be laid out on any thread). A builder lent over a layout builder's
    /// scratch arena (a node's `layoutSpecThatFits`) copies the tree into an arena of its own instead, and goes
    /// on in the lent one, whose specs the layers above drop when the node is laid out.
    public mutating func finish(_ root: SpecRef) -> Spec {
        let finished = arena.isScratch ? SpecArena() : arena
        let index: Int32
        if !root.isSpec(of: arena) {
            // A reference of another builder: a wrapper of it, which refuses to be laid out
            // (``SpecRef/specChild(in:)``); as a spec of this arena, it would name another spec, or none.
            index = finished.append(.wrapper, style: LayoutStyle(), identifier: nil, parts: [root])
        } else if finished !== arena {
            index = finished.append(copyOf: root.index, in: arena)
        } else {
            index = root.index
        }
        if finished === arena { arena = SpecArena() }
        return Spec(arena: finished, index: index)
    }

    /// The reference to spec `index` of this builder's arena.
    @inlinable @inline(__always)
    func ref(_ index: Int32) -> SpecRef {
        SpecRef(index, in: arena)
    }

    // MARK: Specs

    /// A stack (``StackSpec``).
    public func stack(
        _ options: StackOptions = StackOptions(), horizontalAlignment: HorizontalAlignment = .none,
        verticalAlignment: VerticalAlignment = .none, children: [any SpecPart], style: LayoutStyle = LayoutStyle(),
        identifier: String? = nil
    ) -> SpecRef {
        let aligned = options.aligned(horizontal: horizontalAlignment, vertical: verticalAlignment)
        return ref(arena.append(
            .stack(aligned, horizontalAlignment, verticalAlignment), style: style, identifier: identifier, parts: children))
    }

    /// A stack of children given one by one (`children: avatar, name, spacer`): a parameter pack, so no array
    /// is built and nothing is allocated (an array literal of `any SpecPart` is allocated on every call).
    @inlinable
    public func stack<each Child: SpecPart>(
        _ options: StackOptions = StackOptions(), horizontalAlignment: HorizontalAlignment = .none,
        verticalAlignment: VerticalAlignment = .none, children: repeat each Child, style: LayoutStyle = LayoutStyle(),
        identifier: String? = nil
    ) -> SpecRef {
        let arena = self.arena
        let base = arena.scratch.count
        // (An expansion, not `for child in repeat each children`: the loop copied and destroyed each child
        // through the runtime's value witnesses.)
        repeat arena.scratch.append((each children).specChild(in: arena))
        return stackRecord(options, horizontalAlignment, verticalAlignment, style, identifier, childrenFrom: base)
    }

    // The common arities as plain generics, which overload resolution prefers to the pack: a pack is not
    // specialized where it is expanded, so each of its children goes through its type's witness table and is
    // copied and destroyed through the runtime's value witnesses. Pinned by the cold node-tree rows.

    /// A stack of two children given one by one.
    @inlinable
    public func stack<First: SpecPart, Second: SpecPart>(
        _ options: StackOptions = StackOptions(), horizontalAlignment: HorizontalAlignment = .none,
        verticalAlignment: VerticalAlignment = .none, children first: First, _ second: Second,
        style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        let base = push(first)
        push(second)
        return stackRecord(options, horizontalAlignment, verticalAlignment, style, identifier, childrenFrom: base)
    }

    /// A stack of three children given one by one.
    @inlinable
    public func stack<First: SpecPart, Second: SpecPart, Third: SpecPart>(
        _ options: StackOptions = StackOptions(), horizontalAlignment: HorizontalAlignment = .none,
        verticalAlignment: VerticalAlignment = .none, children first: First, _ second: Second, _ third: Third,
        style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        let base = push(first)
        push(second)
        push(third)
        return stackRecord(options, horizontalAlignment, verticalAlignment, style, identifier, childrenFrom: base)
    }

    /// A stack of four children given one by one.
    @inlinable
    public func stack<First: SpecPart, Second: SpecPart, Third: SpecPart, Fourth: SpecPart>(
        _ options: StackOptions = StackOptions(), horizontalAlignment: HorizontalAlignment = .none,
        verticalAlignment: VerticalAlignment = .none, children first: First, _ second: Second, _ third: Third,
        _ fourth: Fourth, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        let base = push(first)
        push(second)
        push(third)
        push(fourth)
        return stackRecord(options, horizontalAlignment, verticalAlignment, style, identifier, childrenFrom: base)
    }

    /// Pushes `child` on the arena's scratch stack; returns where it lies there.
    @inlinable @inline(__always) @discardableResult
    func push(_ child: some SpecPart) -> Int {
        let arena = self.arena
        arena.scratch.append(child.specChild(in: arena))
        return arena.scratch.count - 1
    }

    /// The stack record over the children pushed on the arena's scratch stack from `base` on.
    @inlinable @inline(__always)
    func stackRecord(
        _ options: StackOptions, _ horizontalAlignment: HorizontalAlignment, _ verticalAlignment: VerticalAlignment,
        _ style: LayoutStyle, _ identifier: String?, childrenFrom base: Int
    ) -> SpecRef {
        let aligned = options.aligned(horizontal: horizontalAlignment, vertical: verticalAlignment)
        return ref(arena.appendRecord(
            .stack(aligned, horizontalAlignment, verticalAlignment), style: style, identifier: identifier, scratchFrom: base))
    }

    /// A vertical stack.
    public func vstack(
        spacing: Double = 0, justifyContent: JustifyContent = .start, alignItems: AlignItems = .stretch,
        children: [any SpecPart], style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        stack(StackOptions(direction: .vertical, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems),
              children: children, style: style, identifier: identifier)
    }

    /// A horizontal stack.
    public func hstack(
        spacing: Double = 0, justifyContent: JustifyContent = .start, alignItems: AlignItems = .stretch,
        children: [any SpecPart], style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        stack(StackOptions(direction: .horizontal, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems),
              children: children, style: style, identifier: identifier)
    }

    /// Insets (``InsetSpec``).
    @inlinable
    public func inset(
        _ insets: EdgeInsets, _ child: some SpecPart, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.inset(insets), style: style, identifier: identifier, child: child))
    }

    /// An overlay above a child (``OverlaySpec``).
    public func overlay(
        child: some SpecPart, overlay: some SpecPart, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.overlay, style: style, identifier: identifier, first: child, second: overlay))
    }

    /// A background behind a child (``BackgroundSpec``).
    public func background(
        child: some SpecPart, background: some SpecPart, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.background, style: style, identifier: identifier, first: background, second: child))
    }

    /// A centered child (``CenterSpec``).
    public func center(
        _ centering: CenterSpec.Centering = .xy, sizing: RelativeSpec.Sizing = [], _ child: some SpecPart,
        style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.center(centering, sizing), style: style, identifier: identifier, child: child))
    }

    /// A child placed at the start, center or end of each axis (``RelativeSpec``).
    public func relative(
        horizontal: RelativeSpec.Position, vertical: RelativeSpec.Position, sizing: RelativeSpec.Sizing = [],
        _ child: some SpecPart, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.relative(horizontal, vertical, sizing), style: style, identifier: identifier, child: child))
    }

    /// A child of a fixed height-to-width ratio (``RatioSpec``).
    public func ratio(
        _ ratio: Double, _ child: some SpecPart, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.ratio(ratio), style: style, identifier: identifier, child: child))
    }

    /// Children at their styles' positions (``AbsoluteSpec``).
    public func absolute(
        sizing: AbsoluteSpec.Sizing = .default, children: [any SpecPart], style: LayoutStyle = LayoutStyle(),
        identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.absolute(sizing), style: style, identifier: identifier, parts: children))
    }

    /// Children each laid out in the spec's range (``WrapperSpec``).
    public func wrapper(_ children: [any SpecPart], style: LayoutStyle = LayoutStyle(), identifier: String? = nil) -> SpecRef {
        ref(arena.append(.wrapper, style: style, identifier: identifier, parts: children))
    }

    /// A corner element over one corner of a child (``CornerSpec``).
    public func corner(
        child: some SpecPart, corner: some SpecPart, location: CornerSpec.Location, offset: Point = .zero,
        wrapsCorner: Bool = false, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> SpecRef {
        ref(arena.append(.corner(location, offset, wrapsCorner), style: style, identifier: identifier,
                         first: child, second: corner))
    }

    /// An empty spec taking its range's minimum: with flexGrow, a spacer in a stack (``Spacer``).
    @inlinable
    public func spacer(style: LayoutStyle = LayoutStyle(), identifier: String? = nil) -> SpecRef {
        ref(arena.appendRecord(.spacer, style: style, identifier: identifier, scratchFrom: arena.scratch.count))
    }

    /// A leaf of an optional intrinsic size (``Box``).
    @inlinable
    public func box(size: Size? = nil, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) -> SpecRef {
        ref(arena.appendRecord(.box(size), style: style, identifier: identifier, scratchFrom: arena.scratch.count))
    }
}

/// A spec in a ``SpecBuilder``: a child for the builder's next specs, or the root to lay out. Valid only with
/// the builder (the arena) it came from: used with another, it is an element that refuses to be laid out.
public struct SpecRef: SpecPart, Hashable {
    @usableFromInline let index: Int32
    /// The address of the arena the spec is in: compared, never followed (the arena may be gone).
    @usableFromInline let arena: UInt

    @usableFromInline @inline(__always)
    init(_ index: Int32, in arena: SpecArena) {
        self.index = index
        self.arena = Self.address(of: arena)
    }

    /// `arena`'s address (a bit cast: `ObjectIdentifier(arena)` retained and released it each time).
    @inlinable @inline(__always)
    static func address(of arena: SpecArena) -> UInt {
        unsafeBitCast(arena, to: UInt.self)
    }

    /// Whether this is a spec of `arena`. (The index is checked too: an arena that took the address of a
    /// finished and freed one must not be read past its end.)
    @inlinable
    package func isSpec(of arena: SpecArena) -> Bool {
        self.arena == Self.address(of: arena) && UInt32(bitPattern: index) < UInt32(truncatingIfNeeded: arena.records.count)
    }

    /// The spec in `arena`; a reference of another arena becomes an element that refuses to be laid out, with
    /// an error that says so (looked up in this arena, it would name another spec, or none).
    @inlinable
    public func specChild(in arena: SpecArena) -> SpecChild {
        if isSpec(of: arena) { return SpecChild(spec: index) }
        return unknown(in: arena)
    }

    @usableFromInline
    func unknown(in arena: SpecArena) -> SpecChild {
        arena.appendElement(UnknownSpecReference(index: Int(index)))
    }
}

/// What a ``SpecRef`` that names no spec of the arena it is used in becomes (``SpecRef/specChild(in:)``):
/// laying it out throws.
struct UnknownSpecReference: LayoutElement {
    let index: Int

    var style: LayoutStyle { LayoutStyle() }
    var kindName: String { "unknown spec reference" }

    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        throw LayoutError("a SpecRef of another SpecBuilder (its spec \(index)): a SpecRef is valid only with the builder it came from")
    }
}
