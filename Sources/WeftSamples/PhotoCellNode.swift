import WeftLayout
import WeftNodes
import WeftText

/// One post of a photo feed: who posted it, where, the photo, and its comments.
public struct PhotoModel: Hashable, Sendable {
    public var id: Int
    public var username: String
    public var avatarURL: String
    public var photoURL: String
    /// The place, once reverse geocoding answered (nil until then).
    public var location: String?
    public var comments: String

    public init(id: Int, username: String, avatarURL: String, photoURL: String, location: String?, comments: String) {
        self.id = id
        self.username = username
        self.avatarURL = avatarURL
        self.photoURL = photoURL
        self.location = location
        self.comments = comments
    }
}

/// The PhotoCellNode of Texture's "Automatic Subnode Management" document (from the ASDKgram sample), with
/// automatic subnode management: no `addSubnode` anywhere, the spec alone decides which nodes are subnodes.
///
/// Header: the avatar (44 x 44, inset 8 top, bottom and right), a vertical stack of username and, once it
/// arrived, location (flexShrink 1), and a growing spacer, in a horizontal stack centered across, inset 8 left
/// and right. Then the photo at cell width x cell width, then the comments inset 8 on every side.
///
/// Data arrives late, on any thread: ``setLocation(_:)`` adds the location (the username moves up to make
/// room); each image node joins the hierarchy when its image arrives (until then a spacer of the same size
/// holds its place, so the cell keeps its height).
public final class PhotoCellNode: CellNode, @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a thread-safe node.

    /// The horizontal buffer of the reference code.
    public static let horizontalBuffer = 8.0
    /// The vertical buffer of the reference code.
    public static let verticalBuffer = 8.0
    /// The avatar's side.
    public static let userImageHeight = 44.0

    public let model: PhotoModel
    public let avatarNode: NetworkImageNode
    public let photoNode: NetworkImageNode
    public let usernameNode: TextNode
    public let locationNode: TextNode
    public let commentsNode: TextNode

    /// A cell for `model`; `loader` fetches the avatar and the photo (answering on any thread, any time).
    /// The texts are measured by `measurer` (nil: ``TextNode/standardMeasurer``, real fonts; pass
    /// `FixedMetricsMeasurer()` for font-independent sizes): the username at 14 points, the location at 12 and
    /// the comments at 13, in at most 3 lines, in the registry's default family.
    public init(model: PhotoModel, loader: @escaping NetworkImageNode.Loader, measurer: (any TextMeasurer)? = nil) {
        self.model = model
        avatarNode = NetworkImageNode(loader: loader)
        photoNode = NetworkImageNode(loader: loader)
        usernameNode = TextNode(text: model.username, textStyle: TextStyle(size: 14), measurer: measurer)
        locationNode = TextNode(text: model.location, textStyle: TextStyle(size: 12), measurer: measurer)
        commentsNode = TextNode(text: model.comments, textStyle: TextStyle(size: 13),
                                paragraphStyle: ParagraphStyle(maximumNumberOfLines: 3), measurer: measurer)
        super.init()
        identifier = "cell\(model.id)"
        avatarNode.identifier = "avatar"
        photoNode.identifier = "photo"
        usernameNode.identifier = "username"
        locationNode.identifier = "location"
        commentsNode.identifier = "comments"
        avatarNode.style = LayoutStyle(preferredSize: Size(Self.userImageHeight, Self.userImageHeight))
        locationNode.updateStyle { $0.flexShrink = 1 }
        usernameNode.updateStyle { $0.flexShrink = 1 }
        // An image decides whether its node is in the spec, so its arrival lays the cell out again.
        let relayout: @Sendable (ImageNode) -> Void = { [weak self] _ in self?.setNeedsLayout() }
        avatarNode.onImageChange = relayout
        photoNode.onImageChange = relayout
    }

    /// Starts fetching the avatar and the photo.
    public func loadImages() {
        avatarNode.url = model.avatarURL
        photoNode.url = model.photoURL
    }

    /// In a feed, images load when the cell comes near the viewport (Texture's network image nodes load in
    /// the preload range).
    public override func didEnterPreloadState() {
        loadImages()
    }

    /// The reverse-geocoding answer: shows the location and lays the cell out again. MAY be called from any
    /// thread.
    public func setLocation(_ location: String?) {
        locationNode.text = location
        setNeedsLayout()
    }

    public override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        let h = Self.horizontalBuffer
        let v = Self.verticalBuffer
        let nameChildren: [any SpecPart] = locationNode.text != nil ? [usernameNode, locationNode] : [usernameNode]
        let headerSubStack = specs.stack(
            StackOptions(direction: .vertical), children: nameChildren, style: LayoutStyle(flexShrink: 1))

        let avatarSide = Self.userImageHeight
        let avatar: any SpecPart = avatarNode.image != nil
            ? avatarNode : specs.spacer(style: LayoutStyle(preferredSize: Size(avatarSide, avatarSide)))
        let spacer = specs.spacer(style: LayoutStyle(flexGrow: 1))
        let avatarInset = specs.inset(EdgeInsets(top: h, left: 0, bottom: h, right: h), avatar)
        let headerStack = specs.stack(
            StackOptions(direction: .horizontal, justifyContent: .start, alignItems: .center),
            children: avatarInset, headerSubStack, spacer)
        let headerWithInset = specs.inset(EdgeInsets(top: 0, left: h, bottom: 0, right: h), headerStack)

        let footerWithInset = specs.inset(EdgeInsets(top: v, left: h, bottom: v, right: h), commentsNode)

        let cellWidth = range.max.width
        let photoSize = Size(cellWidth, cellWidth)
        let photo: any SpecPart
        if photoNode.image != nil {
            photoNode.style = LayoutStyle(preferredSize: photoSize)
            photo = photoNode
        } else {
            photo = specs.spacer(style: LayoutStyle(preferredSize: photoSize))
        }

        return specs.stack(
            StackOptions(direction: .vertical, alignItems: .stretch),
            children: [headerWithInset, photo, footerWithInset])
    }
}
