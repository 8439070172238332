/// The base of every layout spec: a style and an identifier, and the layout of an empty spec.
///
/// On its own (see ``Spacer``) a spec has no children and takes the minimum of its size range after its
/// style narrowed the range: Texture's bare `ASLayoutSpec`, used as a flexible spacer in stacks.
///
/// Specs are immutable once made, so one spec tree may be laid out on many threads at once.
public class LayoutSpec: LayoutElement, @unchecked Sendable {
    // @unchecked: every stored property of this class and of its subclasses is a `let` of a Sendable type.

    public let style: LayoutStyle
    public let identifier: String?

    public init(style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "spec" }

    public var childElements: [any LayoutElement] { [] }

    public func placeOfSublayout(_ index: Int) -> String { "children[\(index)]" }

    public var baselineAscender: Double { style.ascender }

    public var baselineDescender: Double { style.descender }

    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let resolved = try builder.resolve(style, range: range, parentSize: parentSize)
        return builder.leaf(self, size: resolved.min)
    }
}

/// An empty spec that takes the minimum of its size range: give it `flexGrow` to push stack siblings apart.
public final class Spacer: LayoutSpec, @unchecked Sendable {
    public override var kindName: String { "spacer" }
}

/// Lays `child` out and names the child's place in any error it throws.
@inlinable
func layoutChild(
    _ child: any LayoutElement, _ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder,
    place: @autoclosure () -> String
) throws(LayoutError) -> LayoutRef {
    do {
        return try child.layout(range, parentSize: parentSize, in: &builder)
    } catch {
        throw error.within(place())
    }
}
