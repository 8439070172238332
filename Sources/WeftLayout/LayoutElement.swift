/// Anything that can be laid out: a spec, a leaf such as ``Box``, or a node (next layer).
///
/// Threading: every requirement MAY be called from any thread, concurrently with any other call. Specs are
/// immutable values; an element whose state can change (a node) publishes each state as an immutable snapshot.
///
/// An element lays itself out into a ``LayoutBuilder`` (an arena owned by the caller) and returns the
/// reference of the layout it made. Specs lay their children out; leaves measure.
public protocol LayoutElement: SpecPart, Sendable {
    /// How the element asks its parent to size and place it.
    var style: LayoutStyle { get }

    /// A name for output and error messages (a JSON element's `"id"`), or nil.
    var identifier: String? { get }

    /// A short name of the element's kind, such as `stack` or `inset`, for pictures and error paths.
    var kindName: String { get }

    /// Whether the element is a node: flattening keeps nodes and does not look inside them.
    var isNode: Bool { get }

    /// The element's children in spec order (for traversal, pictures and checks; not used by layout).
    var childElements: [any LayoutElement] { get }

    /// How an error path names the sublayout at `index` of this element's layout: `children[2]`, `child`,
    /// `overlay`...
    func placeOfSublayout(_ index: Int) -> String

    /// The distance from the element's top to its first baseline (a vertical stack reports its first child's).
    var baselineAscender: Double { get }

    /// The offset from the element's bottom to its last baseline, usually negative (a vertical stack reports
    /// its last child's).
    var baselineDescender: Double { get }

    /// The element's style if it can be laid out, or the style's first problem (at `style.<property>`). The
    /// default reads ``style`` and validates it; an element that validated its style when it was set (a node)
    /// answers without checking again.
    func checkedStyle() throws(LayoutError) -> LayoutStyle

    /// Calls `body` with the element's style if it can be laid out (``checkedStyle()``), where the element
    /// keeps it if it can (a node: in its snapshot, not copied), and with the style's ``LayoutStyle/fixedRange``
    /// if the element keeps that resolved (nil: not kept, or none). Not generic: a generic requirement called
    /// through an existential looked its result type's metadata up at run time, on every call. (A pointer, not
    /// a borrowed style: a style read from where the element keeps it and passed borrowed was copied first.)
    /// The pointer is valid only during the call. `body` MUST be quick and MUST NOT block, change the element or
    /// call user code: a node's writers wait while it runs.
    func withCheckedStyle(_ body: (_ style: UnsafePointer<LayoutStyle>, _ fixedRange: SizeRange?) -> Void) throws(LayoutError)

    /// Lays the element out for `range` and returns its layout's reference in `builder`.
    ///
    /// `parentSize` is the size percentages resolve against; a dimension is NaN where the parent's size is not
    /// yet known. Most elements first narrow `range` by their style (``LayoutBuilder/resolve(_:range:parentSize:)``).
    /// Throws when the element (or a descendant) holds a value that cannot be laid out; the error's path leads
    /// from this element to the culprit.
    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef
}

extension LayoutElement {
    public var identifier: String? { nil }
    public var isNode: Bool { false }
    public var childElements: [any LayoutElement] { [] }
    public func placeOfSublayout(_ index: Int) -> String { "children[\(index)]" }
    public var baselineAscender: Double { style.ascender }
    public var baselineDescender: Double { style.descender }

    public func checkedStyle() throws(LayoutError) -> LayoutStyle {
        let style = self.style
        try style.validate()
        return style
    }

    public func withCheckedStyle(_ body: (_ style: UnsafePointer<LayoutStyle>, _ fixedRange: SizeRange?) -> Void) throws(LayoutError) {
        let style = try checkedStyle()
        withUnsafePointer(to: style) { body($0, nil) }
    }

    /// How error paths and pictures name this element: its kind, and its identifier in quotes if it has one.
    public var displayName: String {
        if let identifier { return "\(kindName) \"\(identifier)\"" }
        return kindName
    }

    /// As a child of a spec, an element is referred to as it is (a node keeps its identity).
    public func specChild(in arena: SpecArena) -> SpecChild {
        arena.appendElement(self)
    }
}

/// An element with identity (a node): layouts refer to it without retaining it while they are computed, and
/// cycle checks compare it by identity.
public protocol LayoutObject: AnyObject, LayoutElement {
    /// A hint, given for each object of a spec once the spec is built and before it is laid out: start bringing
    /// in the memory that laying this object out reads (for a node: its inputs, its lock and its cache), so that
    /// the children of a spec are fetched from memory together instead of one after another as each is reached.
    /// It must only read the object and issue prefetches: no locks, no side effects. The default does nothing.
    func prefetchForLayout()

    /// The range the object's size falls in when it is laid out in `range` in a parent of `parentSize`, where the
    /// object can tell without laying itself out (its layout clamps its size into that range); nil where only its
    /// layout can tell. A stack asks it for a child laid out at its basis: where the answer fixes the child's main
    /// size, the stack puts the layout off, and lays it out only if flexing and stretching keep that range (a
    /// nested stack's basis layout, laid out only to learn a size its range fixes, would double the work at each
    /// level of nesting). It MUST NOT lay the object out; it MAY call the object's own code (a node's
    /// `layoutSpecThatFits`). The default is nil.
    func clampingRange(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) -> SizeRange?
}

extension LayoutObject {
    @inlinable
    public func prefetchForLayout() {}

    public func clampingRange(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) -> SizeRange? { nil }

    /// As a child of a spec, an object is referred to as it is, in the arena's table of objects. (Inlinable:
    /// specialized for the object's type where it conforms, not called generically.)
    @inlinable
    public func specChild(in arena: SpecArena) -> SpecChild {
        arena.appendObject(self)
    }
}

/// Something a spec can hold as a child: an element, or a spec already in the same ``SpecBuilder``.
public protocol SpecPart {
    /// The reference to this part in `arena`, adding it there if it is not yet in it (an element is added as
    /// an element; a value spec adds itself and its children as specs).
    func specChild(in arena: SpecArena) -> SpecChild
}
