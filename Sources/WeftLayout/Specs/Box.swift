/// A leaf element with an optional intrinsic size: the plain element of the JSON format.
///
/// Its layout is Texture's leaf `ASDisplayNode`: the range is narrowed by the style, the box measures itself
/// against the range's max, and the measured size is clamped into the range. A box with an intrinsic `size`
/// measures as that size. A box without one measures as the range's max when both of its dimensions are
/// valid sizes (``Size/isValid``: finite and below `FLT_MAX / 2`), and as zero otherwise (Texture's default
/// `calculateSizeThatFits:`).
public final class Box: LayoutElement {
    public let style: LayoutStyle
    public let identifier: String?
    /// The size the box measures as, or nil to fill a finite range.
    public let intrinsicSize: Size?

    public init(size: Size? = nil, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.intrinsicSize = size
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "box" }

    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let resolved = try builder.resolve(style, range: range, parentSize: parentSize)
        let measured: Size
        if let intrinsicSize {
            measured = intrinsicSize
        } else if resolved.max.isValid {
            measured = resolved.max
        } else {
            measured = .zero
        }
        return builder.leaf(self, size: resolved.clamp(measured))
    }
}
