import WeftLayout
import WeftNodes

/// The benchmark photo cell, identical to the peers' runs: a vertical stack (alignItems stretch) of
/// [header, photo, footer]. Header: a horizontal stack inside an inset of 8 left and right, alignItems center,
/// of [avatar 44x44 inside an inset of 8 top, 8 bottom, 8 right; a vertical substack (flexShrink 1) of
/// username 120x17 and location 90x15; a spacer with flexGrow 1]. Photo 375x375. Footer: comments 359x60
/// inside an inset of 8 on all sides. At width 375 the cell is 375x511.
public enum BenchmarkCell {
    /// The range every cell is laid out in: exactly 375 wide, any height.
    public static let range = SizeRange(min: Size(375, 0), max: Size(375, .infinity))

    /// The size the cell must come out at.
    public static let expectedSize = Size(375, 511)

    /// The cell as a bare spec tree over boxes with preferred sizes: one finished arena (13 specs).
    public static func specTree() -> Spec {
        var specs = SpecBuilder()
        let root = spec(
            in: specs,
            avatar: specs.box(style: LayoutStyle(preferredSize: Size(44, 44))),
            username: specs.box(style: LayoutStyle(preferredSize: Size(120, 17))),
            location: specs.box(style: LayoutStyle(preferredSize: Size(90, 15))),
            photo: specs.box(style: LayoutStyle(preferredSize: Size(375, 375))),
            comments: specs.box(style: LayoutStyle(preferredSize: Size(359, 60))))
        return specs.finish(root)
    }

    /// The spec over the given leaves, built in `specs`.
    public static func spec(
        in specs: SpecBuilder, avatar: some SpecPart, username: some SpecPart, location: some SpecPart,
        photo: some SpecPart, comments: some SpecPart
    ) -> SpecRef {
        // Children given one by one (a parameter pack): no array is allocated.
        let substack = specs.stack(StackOptions(direction: .vertical), children: username, location,
                                   style: LayoutStyle(flexShrink: 1))
        let avatarInset = specs.inset(EdgeInsets(top: 8, left: 0, bottom: 8, right: 8), avatar)
        let header = specs.stack(StackOptions(direction: .horizontal, alignItems: .center),
                                 children: avatarInset, substack, specs.spacer(style: LayoutStyle(flexGrow: 1)))
        return specs.stack(StackOptions(direction: .vertical, alignItems: .stretch), children:
            specs.inset(EdgeInsets(top: 0, left: 8, bottom: 0, right: 8), header),
            photo,
            specs.inset(EdgeInsets(all: 8), comments))
    }

    /// The hand-written layout of the cell: fixed arithmetic for its 12 frames, in the order of the spec
    /// tree (cell, header inset, header, avatar inset, avatar, substack, username, location, spacer, photo,
    /// footer inset, comments), written into `frames`. The speed limit every engine is measured against.
    @inline(never)
    public static func handLayout(width: Double, into frames: UnsafeMutablePointer<Rect>) {
        let headerWidth = width - 16
        let nameWidth = 120.0
        let nameHeight = 17.0 + 15.0
        let avatarBlock = 44.0 + 8.0
        let headerHeight = 44.0 + 16.0
        let nameY = ((headerHeight - nameHeight) / 2 * 2).rounded(.down) / 2
        let spacerX = avatarBlock + nameWidth
        let photoY = headerHeight
        let footerY = photoY + width
        frames[0] = Rect(x: 0, y: 0, width: width, height: footerY + 76)
        frames[1] = Rect(x: 0, y: 0, width: width, height: headerHeight)
        frames[2] = Rect(x: 8, y: 0, width: headerWidth, height: headerHeight)
        frames[3] = Rect(x: 8, y: 0, width: avatarBlock, height: headerHeight)
        frames[4] = Rect(x: 8, y: 8, width: 44, height: 44)
        frames[5] = Rect(x: 8 + avatarBlock, y: nameY, width: nameWidth, height: nameHeight)
        frames[6] = Rect(x: 8 + avatarBlock, y: nameY, width: nameWidth, height: 17)
        frames[7] = Rect(x: 8 + avatarBlock, y: nameY + 17, width: 90, height: 15)
        frames[8] = Rect(x: 8 + spacerX, y: headerHeight / 2, width: headerWidth - spacerX, height: 0)
        frames[9] = Rect(x: 0, y: photoY, width: width, height: width)
        frames[10] = Rect(x: 0, y: footerY, width: width, height: 76)
        frames[11] = Rect(x: 8, y: footerY + 8, width: width - 16, height: 60)
    }
}

/// A leaf node with a fixed preferred size (the node tree's avatar, username, location, photo and comments).
public final class FixedLeaf: Node, @unchecked Sendable {
    public init(_ size: Size) {
        super.init()
        style = LayoutStyle(preferredSize: size)
    }
}

/// The benchmark cell as a node tree with automatic subnode management: its spec is built by
/// `layoutSpecThatFits` over five leaf nodes.
public final class BenchmarkCellNode: CellNode, @unchecked Sendable {
    public let avatar = FixedLeaf(Size(44, 44))
    public let username = FixedLeaf(Size(120, 17))
    public let location = FixedLeaf(Size(90, 15))
    public let photo = FixedLeaf(Size(375, 375))
    public let comments = FixedLeaf(Size(359, 60))

    public override init() {
        super.init()
    }

    public override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        BenchmarkCell.spec(in: specs, avatar: avatar, username: username, location: location, photo: photo, comments: comments)
    }
}
