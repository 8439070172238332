/// A spec in an arena, as a value: the finished tree of a ``SpecBuilder``, or a spec of a laid-out tree
/// (``Layout/element`` of a spec's layout).
///
/// Two words: the arena (shared, never added to once finished) and the spec's index in it. Copying one
/// retains the arena; laying one out reads the arena in place.
public struct Spec: LayoutElement {
    /// The arena the spec lives in (package access: an arena's specs can be dropped, which only the layout and
    /// node layers do, for arenas no finished spec refers to).
    package let arena: SpecArena
    @usableFromInline let index: Int32

    init(arena: SpecArena, index: Int32) {
        self.arena = arena
        self.index = index
    }

    @usableFromInline
    var record: SpecRecord { arena.record(index) }

    public var style: LayoutStyle { arena.style(of: record) }

    public var identifier: String? { arena.identifier(of: record) }

    public var kindName: String { record.kind.name }

    public var childElements: [any LayoutElement] {
        let record = self.record
        return (0..<Int(record.childCount)).map { arena.childElement(arena.child(record, $0)) }
    }

    public func placeOfSublayout(_ index: Int) -> String {
        record.kind.place(ofChild: index)
    }

    /// The options of a stack (after the alignment conveniences), or nil for another kind of spec.
    public var stackOptions: StackOptions? {
        if case .stack(let options, _, _) = record.kind { return options }
        return nil
    }

    public var baselineAscender: Double { arena.baselineAscender(of: index) }

    public var baselineDescender: Double { arena.baselineDescender(of: index) }

    /// As a child in its own arena, a spec is referred to by index; in another arena, as an element.
    public func specChild(in arena: SpecArena) -> SpecChild {
        arena === self.arena ? SpecChild(spec: index) : arena.appendElement(self)
    }

    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        arena.prefetchForLayout()
        return try builder.layoutSpec(arena, index, range, parentSize: parentSize)
    }
}

extension SpecArena {
    /// A spec's first baseline: a vertical stack's is its first child's, any other spec's its style's.
    func baselineAscender(of index: Int32) -> Double {
        var record = self.record(index)
        while case .stack(let options, _, _) = record.kind, options.direction == .vertical, record.childCount > 0 {
            let first = child(record, 0)
            guard first.isSpec else { return element(first).baselineAscender }
            record = self.record(first.specIndex)
        }
        return style(of: record).ascender
    }

    /// A spec's last baseline: a vertical stack's is its last child's, any other spec's its style's.
    func baselineDescender(of index: Int32) -> Double {
        var record = self.record(index)
        while case .stack(let options, _, _) = record.kind, options.direction == .vertical, record.childCount > 0 {
            let last = child(record, Int(record.childCount) - 1)
            guard last.isSpec else { return element(last).baselineDescender }
            record = self.record(last.specIndex)
        }
        return style(of: record).descender
    }

    /// The baseline of a child (as a stack asks for it).
    func baselines(of child: SpecChild) -> (ascender: Double, descender: Double) {
        if child.isSpec { return (baselineAscender(of: child.specIndex), baselineDescender(of: child.specIndex)) }
        let element = self.element(child)
        return (element.baselineAscender, element.baselineDescender)
    }

    /// The baselines of a child that is not laid out: as ``baselines(of:)``, except that a vertical stack
    /// (which takes its children's only when laid out) reports its own style's.
    func ownBaselines(of child: SpecChild) -> (ascender: Double, descender: Double) {
        if child.isSpec {
            let style = style(of: record(child.specIndex))
            return (style.ascender, style.descender)
        }
        let element = self.element(child)
        guard element is StackSpec || element is Spec else { return (element.baselineAscender, element.baselineDescender) }
        let style = element.style
        return (style.ascender, style.descender)
    }
}
