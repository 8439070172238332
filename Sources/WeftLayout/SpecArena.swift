internal import CWeftThread
import Synchronization

/// Where spec trees live: every spec of a tree is one plain record in one arena, its children a run of
/// references, so that building a tree allocates nothing once the arena has grown (arenas are reused) and
/// laying it out walks plain arrays.
///
/// Records are only ever appended: a spec keeps its index for the arena's life. An arena is filled by one
/// thread (a ``SpecBuilder``), then read by any number: a finished ``Spec`` shares its arena, which nobody
/// appends to any more. The layers above reuse arenas (``reset()``) only when nothing refers to them.
public final class SpecArena: @unchecked Sendable {
    // @unchecked: filled by one thread, then only read (a finished arena is never appended to); `reset` is
    // called by the arena's owner when no spec refers to it.

    @exclusivity(unchecked) @usableFromInline var records = ScratchArray<SpecRecord>()
    @exclusivity(unchecked) @usableFromInline var children = ScratchArray<SpecChild>()
    /// Children that are not specs of this arena and have no identity: leaves of other kinds, finished specs of
    /// other arenas.
    @exclusivity(unchecked) @usableFromInline var elements = ScratchArray<any LayoutElement>()
    /// Children with identity (nodes). Kept apart from `elements`: an `any LayoutObject` is copied with one
    /// retain, an `any LayoutElement` through the runtime's value witnesses, which boxing a node and laying it
    /// out from the box both pay. Pinned by the cold node-tree rows.
    @exclusivity(unchecked) @usableFromInline var objects = ScratchArray<any LayoutObject>()
    /// Styles other than the default one (index 0 is `LayoutStyle()`), and the first problem of each.
    @exclusivity(unchecked) @usableFromInline var styles = ScratchArray<LayoutStyle>(LayoutStyle())
    @exclusivity(unchecked) @usableFromInline var styleProblems = ScratchArray<StyleProblem?>(nil)
    /// Each style's ``LayoutStyle/fixedRange`` (resolved once, not at every layout), or nil.
    @exclusivity(unchecked) @usableFromInline var fixedRanges = ScratchArray<SizeRange?>(SizeRange.unconstrained)
    /// Identifiers (index 0: none).
    @exclusivity(unchecked) @usableFromInline var identifiers = ScratchArray<String>("")
    /// Children's references waiting for their parent's record (a stack: nested specs push and pop above).
    @exclusivity(unchecked) @usableFromInline var scratch = ScratchArray<SpecChild>()
    /// Whether this is a layout builder's scratch arena (``LayoutBuilder/scratchSpecs``), which the layers above
    /// rewind and reuse: a spec finished in it is copied out (``SpecBuilder/finish(_:)``).
    @exclusivity(unchecked) package var isScratch = false
    // (Last: the tables above are read by every layout, and keep the offsets, and lines, they had.)
    /// Counts the times specs were dropped (``rewind(to:)``, ``reset()``): a spec's index names the same spec
    /// only while this is unchanged (what a builder's memo of stack layouts checks, ``LayoutBuilder/memoAfterRelayouts``).
    @usableFromInline var epoch: UInt32 = 0
    /// A number no other arena of this process has (its address may be another's after it is freed).
    let identity = SpecArena.identities.add(1, ordering: .relaxed).newValue
    private static let identities = Atomic<UInt64>(0)

    public init() {}

    /// The number of specs in the arena.
    public var count: Int { records.count }

    /// Asks for the first lines of what laying out the arena's specs reads (each table is its own allocation):
    /// a tree built ahead of its layout (a feed builds thousands) is seldom in the processor's caches when its
    /// layout begins, and the tables asked for together arrive together instead of one wait after another.
    func prefetchForLayout() {
        Self.prefetch(records.base, bytes: records.count * MemoryLayout<SpecRecord>.stride)
        Self.prefetch(children.base, bytes: children.count * MemoryLayout<SpecChild>.stride)
        Self.prefetch(styles.base, bytes: styles.count * MemoryLayout<LayoutStyle>.stride)
        Self.prefetch(fixedRanges.base, bytes: fixedRanges.count * MemoryLayout<SizeRange?>.stride)
        Self.prefetch(styleProblems.base, bytes: styleProblems.count * MemoryLayout<StyleProblem?>.stride)
        Self.prefetch(elements.base, bytes: elements.count * MemoryLayout<any LayoutElement>.stride)
    }

    /// Prefetches the lines of `bytes` bytes at `base`, at most eight (none for an empty table, whose `base` is
    /// never dereferenced).
    private static func prefetch<T>(_ base: UnsafeMutablePointer<T>, bytes: Int) {
        var offset = 0
        let end = min(bytes, 8 * 64)
        while offset < end {
            weft_prefetch(UnsafeRawPointer(base) + offset)
            offset += 64
        }
    }

    /// A point to return to with ``rewind(to:)``.
    package struct Mark: Sendable {
        let records, children, elements, objects, styles, identifiers: Int
    }

    /// The arena's size now: specs added after it can be dropped together.
    package var mark: Mark {
        Mark(records: records.count, children: children.count, elements: elements.count, objects: objects.count,
             styles: styles.count, identifiers: identifiers.count)
    }

    /// Drops every spec added after `mark` (a node's spec, once it was laid out; the arena is then used as a
    /// stack by nested layouts). Only when no spec value refers to those specs any more.
    package func rewind(to mark: Mark) {
        // Nothing added (a leaf node's layout, the common case): three compares, inlined. (Children, styles and
        // identifiers are only ever added with a record.)
        if records.count == mark.records && elements.count == mark.elements && objects.count == mark.objects { return }
        truncate(to: mark)
    }

    func truncate(to mark: Mark) {
        epoch &+= 1
        records.truncate(to: mark.records)
        children.truncate(to: mark.children)
        elements.truncate(to: mark.elements)
        // A node's few objects and style problems are dropped one at a time (each a release, or nothing for a
        // style with no problem), inlined: truncating went through the runtime's generic array destroy.
        while objects.count > mark.objects { objects.removeLast() }
        styles.truncate(to: mark.styles)
        while styleProblems.count > mark.styles { styleProblems.removeLast() }
        fixedRanges.truncate(to: mark.styles)
        identifiers.truncate(to: mark.identifiers)
    }

    /// Forgets every spec, keeping the storage. Only for an arena no spec value refers to any more.
    package func reset() {
        epoch &+= 1
        records.truncate(to: 0)
        children.truncate(to: 0)
        elements.truncate(to: 0)
        objects.truncate(to: 0)
        scratch.truncate(to: 0)
        styles.truncate(to: 1)
        styleProblems.truncate(to: 1)
        fixedRanges.truncate(to: 1)
        identifiers.truncate(to: 1)
    }

    // MARK: Appending

    /// Appends a spec whose children are `parts`, in order; returns its index.
    ///
    /// Each part is resolved first (a value spec appends its own subtree); their references wait on a scratch
    /// stack, so that this spec's run of children is contiguous and nothing is allocated once the arena has
    /// grown.
    func append(_ kind: SpecKind, style: LayoutStyle, identifier: String?, parts: [any SpecPart]) -> Int32 {
        let base = scratch.count
        for part in parts {
            let ref = part.specChild(in: self)
            scratch.append(ref)
        }
        return appendRecord(kind, style: style, identifier: identifier, scratchFrom: base)
    }

    /// ``append(_:style:identifier:parts:)`` for a value spec's children, elements: each read as it is (handed
    /// over as parts, the array was cast to `[any SpecPart]` element by element first, a dynamic cast per child).
    func append(_ kind: SpecKind, style: LayoutStyle, identifier: String?, elements: [any LayoutElement]) -> Int32 {
        let base = scratch.count
        for element in elements {
            scratch.append(element.specChild(in: self))
        }
        return appendRecord(kind, style: style, identifier: identifier, scratchFrom: base)
    }

    /// Appends a spec with one child.
    @inlinable
    func append(_ kind: SpecKind, style: LayoutStyle, identifier: String?, child: some SpecPart) -> Int32 {
        let base = scratch.count
        scratch.append(child.specChild(in: self))
        return appendRecord(kind, style: style, identifier: identifier, scratchFrom: base)
    }

    /// Appends a spec with two children, in this order.
    func append(_ kind: SpecKind, style: LayoutStyle, identifier: String?, first: some SpecPart, second: some SpecPart) -> Int32 {
        let base = scratch.count
        scratch.append(first.specChild(in: self))
        scratch.append(second.specChild(in: self))
        return appendRecord(kind, style: style, identifier: identifier, scratchFrom: base)
    }

    /// Appends a spec whose children are the scratch references from `base` on (popping them).
    ///
    /// Inlined where the spec is built: a style written out there (the default argument `LayoutStyle()`, or
    /// one with a few literal fields) is then known default or not at compile time, not tested field by field.
    @inlinable @inline(__always)
    func appendRecord(_ kind: SpecKind, style: LayoutStyle, identifier: String?, scratchFrom base: Int) -> Int32 {
        style.isDefault
            ? appendRecord(kind, identifier: identifier, scratchFrom: base)
            : appendRecord(kind, styled: style, identifier: identifier, scratchFrom: base)
    }

    /// ``appendRecord(_:style:identifier:scratchFrom:)`` for the default style.
    @usableFromInline
    func appendRecord(_ kind: SpecKind, identifier: String?, scratchFrom base: Int) -> Int32 {
        var record = SpecRecord(kind: kind)
        let count = scratch.count - base
        record.childStart = Int32(truncatingIfNeeded: children.count)
        record.childCount = Int32(truncatingIfNeeded: count)
        for i in base..<scratch.count { children.append(scratch[i]) }
        scratch.truncate(to: base)
        if let identifier {
            record.identifier = Int32(truncatingIfNeeded: identifiers.count)
            identifiers.append(identifier)
        }
        records.append(record)
        return Int32(truncatingIfNeeded: records.count - 1)
    }

    /// ``appendRecord(_:style:identifier:scratchFrom:)`` for a style that is not the default one.
    @usableFromInline
    func appendRecord(_ kind: SpecKind, styled style: LayoutStyle, identifier: String?, scratchFrom base: Int) -> Int32 {
        let index = appendRecord(kind, identifier: identifier, scratchFrom: base)
        records[Int(index)].style = Int32(truncatingIfNeeded: styles.count)
        styles.append(style)
        styleProblems.append(style.isPlausible ? nil : style.problem.map { StyleProblem(property: $0.property, reason: $0.reason) })
        fixedRanges.append(style.fixedRange)
        return index
    }

    /// When the thread's stack is nearly used up (a value spec tree built in code, nested some 30,000 levels
    /// deep), the reference of a stand-in for `spec` that refuses to be laid out, instead of adding `spec` and
    /// its children (each level one call deeper); nil otherwise, the usual case.
    func refusingDeepNesting(_ spec: some LayoutElement) -> SpecChild? {
        // (Prepared here too: a value spec can be added on a thread that has made no layout builder yet.)
        weft_thread_prepare_stack_guard()
        guard _slowPath(weft_thread_stack_is_low()) else { return nil }
        return appendElement(NestedTooDeep(kindName: spec.kindName))
    }

    /// Adds an element that is not a spec of this arena; returns its reference.
    @usableFromInline
    func appendElement(_ element: any LayoutElement) -> SpecChild {
        elements.append(element)
        return SpecChild(element: Int32(truncatingIfNeeded: elements.count - 1))
    }

    /// Adds an element with identity (a node); returns its reference.
    @usableFromInline
    func appendObject(_ object: any LayoutObject, hinting: Bool = true) -> SpecChild {
        // An object is added as its parent's spec is built, and laid out once the spec is done: its memory is
        // asked for now, while the other children are added (see `LayoutObject.prefetchForLayout()`). (Not again
        // where a finished spec is copied out of a scratch arena: hinted when it was added there.)
        if hinting { object.prefetchForLayout() }
        objects.append(object)
        return SpecChild(object: Int32(truncatingIfNeeded: objects.count - 1))
    }

    /// Appends a copy of spec `index` of `source` and its subtree (its children's specs first, then it); returns
    /// the copy's index. Elements and objects are shared, not copied; a spec that occurs more than once in the
    /// tree is copied once (copied per occurrence, a tree that reuses its specs grew exponentially).
    ///
    /// Not recursive (a recursive copy of a deep tree ran off the stack before any layout could refuse it): the
    /// subtree's specs are found with a stack of their own, then copied in the order of their indices, which puts
    /// every child before its parent (an arena appends a spec's children before the spec itself).
    func append(copyOf index: Int32, in source: SpecArena) -> Int32 {
        var copied: [Int32: Int32] = [index: -1]
        var order: [Int32] = [index]
        var pending: [Int32] = [index]
        while let spec = pending.popLast() {
            let record = source.records[Int(spec)]
            for i in 0..<Int(record.childCount) {
                let child = source.children[Int(record.childStart) + i]
                guard child.isSpec, copied.updateValue(-1, forKey: child.specIndex) == nil else { continue }
                order.append(child.specIndex)
                pending.append(child.specIndex)
            }
        }
        order.sort()
        for spec in order {
            let record = source.records[Int(spec)]
            let base = scratch.count
            for i in 0..<Int(record.childCount) {
                let child = source.children[Int(record.childStart) + i]
                if child.isSpec {
                    scratch.append(SpecChild(spec: copied[child.specIndex] ?? -1))
                } else if child.isObject {
                    scratch.append(appendObject(source.objects[Int(child.objectIndex)], hinting: false))
                } else {
                    scratch.append(appendElement(source.elements[Int(child.elementIndex)]))
                }
            }
            let style = source.styles[Int(record.style)]
            copied[spec] = appendRecord(record.kind, style: style, identifier: source.identifier(of: record), scratchFrom: base)
        }
        return copied[index] ?? -1
    }

    // MARK: Reading

    func record(_ index: Int32) -> SpecRecord {
        records[Int(index)]
    }

    func style(of record: SpecRecord) -> LayoutStyle {
        styles[Int(record.style)]
    }

    func identifier(of record: SpecRecord) -> String? {
        record.identifier == 0 ? nil : identifiers[Int(record.identifier)]
    }

    func child(_ record: SpecRecord, _ i: Int) -> SpecChild {
        children[Int(record.childStart) + i]
    }

    func element(_ child: SpecChild) -> any LayoutElement {
        child.isObject ? objects[Int(child.objectIndex)] : elements[Int(child.elementIndex)]
    }

    /// A child that is an element with identity (``SpecChild/isObject``).
    func object(_ child: SpecChild) -> any LayoutObject {
        objects[Int(child.objectIndex)]
    }

    /// `range` narrowed by `record`'s style (``LayoutStyle/narrowed(_:parentSize:)``); the default style only
    /// turns an inverted axis into its minimum.
    @inline(__always)
    func narrowed(_ record: SpecRecord, _ range: SizeRange, parentSize: Size) -> SizeRange {
        if record.style == 0 { return range.withinUnconstrained }
        if let fixed = fixedRanges[Int(record.style)] { return range.intersection(fixed) }
        // Read in place: `styles[i].narrowed(...)` copied the whole style out of the array first.
        return styles.withUnsafeBufferPointer { $0[Int(record.style)].narrowed(range, parentSize: parentSize) }
    }

    /// Whether a child is a spec of the default style (whose stack item needs no style read).
    func hasDefaultStyle(_ child: SpecChild) -> Bool {
        child.isSpec && records[Int(child.specIndex)].style == 0
    }

    /// Throws the problem of `record`'s style, if it has one, at `style.<property>`. (Inlined: the default style,
    /// the common case, is one compare; a call each time cost more than the check.)
    @inline(__always)
    func validateStyle(of record: SpecRecord) throws(LayoutError) {
        guard record.style != 0 else { return }
        try validateStoredStyle(record.style)
    }

    private func validateStoredStyle(_ style: Int32) throws(LayoutError) {
        guard let problem = styleProblems[Int(style)] else { return }
        throw LayoutError(problem.reason, path: "style.\(problem.property)")
    }

    /// The style of a child, and whether it can be laid out (a spec's checked once, when it was added; an
    /// element's now, as its style may have changed).
    func checkedStyle(of child: SpecChild) throws(LayoutError) -> LayoutStyle {
        if child.isSpec {
            let record = records[Int(child.specIndex)]
            try validateStyle(of: record)
            return styles[Int(record.style)]
        }
        if child.isObject { return try objects[Int(child.objectIndex)].checkedStyle() }
        return try elements[Int(child.elementIndex)].checkedStyle()
    }

    /// Calls `body` with a child's style, read in place, if it can be laid out (``checkedStyle(of:)``), and its
    /// fixed range where it is kept resolved (``LayoutElement/withCheckedStyle(_:)``).
    @inline(__always)
    func withCheckedStyle(of child: SpecChild, _ body: (_ style: UnsafePointer<LayoutStyle>, _ fixedRange: SizeRange?) -> Void) throws(LayoutError) {
        if child.isSpec {
            let record = records[Int(child.specIndex)]
            try validateStyle(of: record)
            let fixed = fixedRanges[Int(record.style)]
            styles.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped + Int(record.style), fixed) }
        } else if child.isObject {
            try objects[Int(child.objectIndex)].withCheckedStyle(body)
        } else {
            try elements[Int(child.elementIndex)].withCheckedStyle(body)
        }
    }

    /// A child as an element: a ``Spec`` of this arena, or the element itself.
    func childElement(_ child: SpecChild) -> any LayoutElement {
        child.isSpec ? Spec(arena: self, index: child.specIndex) : element(child)
    }
}

/// The first problem of a style, found when the style was added to an arena.
@usableFromInline
struct StyleProblem: Sendable {
    @usableFromInline let property: String
    @usableFromInline let reason: String

    @usableFromInline
    init(property: String, reason: String) {
        self.property = property
        self.reason = reason
    }
}

/// A reference from a spec to one of its children: another spec of the same arena, an element, or an element
/// with identity.
public struct SpecChild: Hashable, Sendable {
    /// >= 0: a spec index; from -1 down to -2^30: -1 - an element index; below: -1 - 2^30 - an object index.
    /// (An arena never holds 2^30 elements: each costs far more than the 4 GiB that would take.)
    @usableFromInline let raw: Int32

    static let objectBase: Int32 = 1 << 30

    @usableFromInline
    init(spec index: Int32) { raw = index }

    init(element index: Int32) { raw = -1 - index }

    init(object index: Int32) { raw = -1 - Self.objectBase - index }

    var isSpec: Bool { raw >= 0 }
    var isObject: Bool { raw < -Self.objectBase }
    var specIndex: Int32 { raw }
    var elementIndex: Int32 { -1 - raw }
    var objectIndex: Int32 { -1 - Self.objectBase - raw }
}

/// One spec in an arena: its kind (with the kind's options), its style and identifier (indexes into the
/// arena's tables) and its run of children.
@usableFromInline
struct SpecRecord: Sendable {
    @usableFromInline var kind: SpecKind
    @usableFromInline var style: Int32 = 0
    @usableFromInline var identifier: Int32 = 0
    @usableFromInline var childStart: Int32 = 0
    @usableFromInline var childCount: Int32 = 0

    @usableFromInline
    init(kind: SpecKind) {
        self.kind = kind
    }
}

/// What a spec is, with the options of its kind: plain values only.
@usableFromInline
enum SpecKind: Sendable {
    case spacer
    case box(Size?)
    case stack(StackOptions, HorizontalAlignment, VerticalAlignment)
    case inset(EdgeInsets)
    case overlay
    case background
    case relative(RelativeSpec.Position, RelativeSpec.Position, RelativeSpec.Sizing)
    case center(CenterSpec.Centering, RelativeSpec.Sizing)
    case ratio(Double)
    case absolute(AbsoluteSpec.Sizing)
    case wrapper
    case corner(CornerSpec.Location, Point, Bool)

    /// The name pictures, output and error paths use (the JSON format's type).
    @usableFromInline
    var name: String {
        switch self {
        case .spacer: return "spacer"
        case .box: return "box"
        case .stack: return "stack"
        case .inset: return "inset"
        case .overlay: return "overlay"
        case .background: return "background"
        case .relative: return "relative"
        case .center: return "center"
        case .ratio: return "ratio"
        case .absolute: return "absolute"
        case .wrapper: return "wrapper"
        case .corner: return "corner"
        }
    }

    /// How an error path names child `index` of this kind of spec.
    func place(ofChild index: Int) -> String {
        switch self {
        case .inset, .relative, .center, .ratio: return "child"
        case .overlay: return index == 0 ? "child" : "overlay"
        case .background: return index == 0 ? "background" : "child"
        case .corner: return index == 0 ? "child" : "corner"
        default: return "children[\(index)]"
        }
    }
}

/// Stands in for a value spec that was nested too deep to be added to an arena (``SpecArena/refusingDeepNesting(_:)``):
/// laying it out throws the error of a stack used up.
struct NestedTooDeep: LayoutElement {
    let kindName: String
    var style: LayoutStyle { LayoutStyle() }

    func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        throw LayoutBuilder.stackExhausted()
    }
}
