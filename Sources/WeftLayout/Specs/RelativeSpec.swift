/// Places its child at the start, center or end of each axis (Texture's `ASRelativeLayoutSpec`).
///
/// - The range is first narrowed by the spec's style.
/// - On an axis with a position (not `.none`) the child's minimum is zero, so the child takes its own size;
///   on an axis without one the child gets the range's minimum. The child's maximum is the range's max, and
///   its parent size is the range's max where that is a valid size (``Size/isValid``), undefined otherwise.
/// - The spec's size on each axis is the range's max when it is a valid size, otherwise the child's size,
///   clamped into the range. With a minimum sizing option the spec shrinks to the child on that axis, within the range.
/// - The child's offset is (spec size - child size) times 0 (start or none), 0.5 (center) or 1 (end),
///   rounded to the pixel grid.
public struct RelativeSpec: ValueSpec {
    /// Where the child sits on one axis.
    public enum Position: String, Hashable, Sendable, CaseIterable {
        case none, start, center, end

        @usableFromInline
        var proportion: Double {
            switch self {
            case .none, .start: return 0
            case .center: return 0.5
            case .end: return 1
            }
        }
    }

    /// On which axes the spec shrinks to its child instead of filling its range.
    public struct Sizing: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let minimumWidth = Sizing(rawValue: 1 << 0)
        public static let minimumHeight = Sizing(rawValue: 1 << 1)
        public static let minimumSize: Sizing = [.minimumWidth, .minimumHeight]
    }

    public let horizontalPosition: Position
    public let verticalPosition: Position
    public let sizing: Sizing
    public let child: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(
        horizontalPosition: Position, verticalPosition: Position, sizing: Sizing = [],
        child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) {
        self.horizontalPosition = horizontalPosition
        self.verticalPosition = verticalPosition
        self.sizing = sizing
        self.child = child
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "relative" }
    public var childElements: [any LayoutElement] { [child] }
    public func placeOfSublayout(_ index: Int) -> String { "child" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(
            .relative(horizontalPosition, verticalPosition, sizing), style: style, identifier: identifier, child: child))
    }
}

/// Centers its child on one or both axes (Texture's `ASCenterLayoutSpec`): a ``RelativeSpec`` whose
/// position is `.center` on each centered axis and `.none` on the others.
public struct CenterSpec: ValueSpec {
    /// The axes to center on.
    public struct Centering: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let x = Centering(rawValue: 1 << 0)
        public static let y = Centering(rawValue: 1 << 1)
        public static let xy: Centering = [.x, .y]
    }

    public let centering: Centering
    public let sizing: RelativeSpec.Sizing
    public let child: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(
        centering: Centering = .xy, sizing: RelativeSpec.Sizing = [], child: any LayoutElement,
        style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) {
        self.centering = centering
        self.sizing = sizing
        self.child = child
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "center" }
    public var childElements: [any LayoutElement] { [child] }
    public func placeOfSublayout(_ index: Int) -> String { "child" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.center(centering, sizing), style: style, identifier: identifier, child: child))
    }
}

extension LayoutBuilder {
    mutating func layoutRelative(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ horizontal: RelativeSpec.Position,
        _ vertical: RelativeSpec.Position, _ sizing: RelativeSpec.Sizing, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        let range = arena.narrowed(record, range, parentSize: parentSize)
        let ownSize = range.max.definedParentSize
        let childMin = Size(
            width: horizontal != .none ? 0 : range.min.width,
            height: vertical != .none ? 0 : range.min.height)
        let ref = try layoutChild(
            arena, arena.child(record, 0), SizeRange(min: childMin, max: range.max), parentSize: ownSize, place: "child")
        let childSize = self.size(of: ref)
        var size = range.clamp(Size(
            width: ownSize.width.isFinite ? ownSize.width : childSize.width,
            height: ownSize.height.isFinite ? ownSize.height : childSize.height))
        size = range.clamp(Size(
            width: sizing.contains(.minimumWidth) ? min(size.width, childSize.width) : size.width,
            height: sizing.contains(.minimumHeight) ? min(size.height, childSize.height) : size.height))
        setPosition(ref, Point(
            x: grid.round((size.width - childSize.width) * horizontal.proportion),
            y: grid.round((size.height - childSize.height) * vertical.proportion)))
        return spec(arena, index, size: size, sublayout: ref)
    }
}
