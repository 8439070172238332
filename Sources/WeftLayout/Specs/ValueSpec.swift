/// A spec described as one value (``StackSpec``, ``InsetSpec``...): laid out by adding it, with its subtree,
/// to the layout's arena of value specs (``LayoutBuilder/layoutValue(_:_:parentSize:)``).
public protocol ValueSpec: LayoutElement {}

extension ValueSpec {
    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        try builder.layoutValue(self, range, parentSize: parentSize)
    }
}

/// An empty spec that takes the minimum of its size range after its style narrowed the range (Texture's bare
/// `ASLayoutSpec`): give it `flexGrow` to push stack siblings apart.
public struct Spacer: ValueSpec {
    public let style: LayoutStyle
    public let identifier: String?

    public init(style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "spacer" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        SpecChild(spec: arena.append(.spacer, style: style, identifier: identifier, parts: []))
    }
}

/// A leaf element with an optional intrinsic size: the plain element of the JSON format.
///
/// Its layout is Texture's leaf `ASDisplayNode`: the range is narrowed by the style, the box measures itself
/// against the range's max, and the measured size is clamped into the range. A box with an intrinsic `size`
/// measures as that size. A box without one measures as the range's max when that is a valid size
/// (``Size/isValid``: not negative and below 1e7), and as zero otherwise (Texture's default
/// `calculateSizeThatFits:`).
public struct Box: ValueSpec {
    public let style: LayoutStyle
    public let identifier: String?
    /// The size the box measures as, or nil to fill a valid range.
    public let intrinsicSize: Size?

    public init(size: Size? = nil, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.intrinsicSize = size
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "box" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        SpecChild(spec: arena.append(.box(intrinsicSize), style: style, identifier: identifier, parts: []))
    }
}

extension LayoutBuilder {
    mutating func layoutBox(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ intrinsicSize: Size?, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        if let intrinsicSize { try Self.validateIntrinsicSize(intrinsicSize) }
        let resolved = arena.narrowed(record, range, parentSize: parentSize)
        let measured = intrinsicSize ?? (resolved.max.isValid ? resolved.max : .zero)
        return leafSpec(arena, index, size: resolved.clamp(measured))
    }

    /// A box's size must be finite points, not negative, as the JSON format's `size` must (a NaN width was
    /// clamped to the range's max, a negative one to 0, an infinite one to 0 in a stack: all silently).
    private static func validateIntrinsicSize(_ size: Size) throws(LayoutError) {
        guard size.width >= 0, size.width < .infinity, size.height >= 0, size.height < .infinity else {
            if let problem = Dimension.points(size.width).problem { throw LayoutError(problem, path: "size.width") }
            if let problem = Dimension.points(size.height).problem { throw LayoutError(problem, path: "size.height") }
            return
        }
    }
}
