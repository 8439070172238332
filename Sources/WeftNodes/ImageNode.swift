import Dispatch
import WeftLayout
import WeftSync

/// An image as far as layout cares: its size in points, and a name to show in pictures.
public struct Image: Hashable, Sendable {
    public var size: Size
    public var name: String

    public init(size: Size, name: String = "image") {
        self.size = size
        self.name = name
    }
}

/// A leaf node that shows an image (Texture's `ASImageNode`).
///
/// Sized by its style (a preferred size) or a ratio spec around it; without either, by the image's own size
/// (zero without an image). Setting ``image`` (from any thread) calls ``Node/setNeedsLayout()`` when the
/// image's presence or size changes.
open class ImageNode: Node, @unchecked Sendable {
    // @unchecked: `storedImage` and `observer` are guarded by the node's lock, like `Node.state`.
    private var storedImage: Image?
    private var observer: (@Sendable (ImageNode) -> Void)?

    public init(image: Image? = nil) {
        storedImage = image
        super.init()
    }

    public var image: Image? {
        get { lock.withLock { storedImage } }
        set {
            let old = lock.withLock { () -> Image? in
                defer { storedImage = newValue }
                return storedImage
            }
            if (old == nil) != (newValue == nil) || old?.size != newValue?.size {
                setNeedsLayout()
            }
            lock.withLock { observer }?(self)
        }
    }

    /// Called (on the thread that set it) after every change of ``image``: for a node whose spec depends on
    /// whether the image arrived, even before the image node is its subnode.
    public var onImageChange: (@Sendable (ImageNode) -> Void)? {
        get { lock.withLock { observer } }
        set {
            // The old observer (and what it captured) is released after the lock: its deinit may change the node.
            let old = lock.withLock { () -> (@Sendable (ImageNode) -> Void)? in
                defer { observer = newValue }
                return observer
            }
            withExtendedLifetime(old) {}
        }
    }

    open override func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
        image?.size ?? .zero
    }

    /// `image`, the element type of the JSON format.
    open override var kindName: String { "image" }
}

/// An image node that fetches its image from a URL through a loader closure (Texture's
/// `ASNetworkImageNode`). The loader may answer on any thread, at any time later; the node then updates
/// itself like any ``ImageNode``. A load for a URL that was replaced meanwhile is ignored.
open class NetworkImageNode: ImageNode, @unchecked Sendable {
    /// Fetches the image at a URL and calls back with it (or nil), on any thread.
    public typealias Loader = @Sendable (_ url: String, _ completion: @escaping @Sendable (Image?) -> Void) -> Void

    private let loader: Loader
    private let urlBox = Locked<String?>(nil)

    public init(loader: @escaping Loader) {
        self.loader = loader
        super.init()
    }

    /// The image's URL. Setting a new one clears the image and starts loading.
    public var url: String? {
        get { urlBox.withLock { $0 } }
        set {
            let changed = urlBox.withLock { url -> Bool in
                defer { url = newValue }
                return url != newValue
            }
            guard changed else { return }
            image = nil
            guard let newValue else { return }
            loader(newValue) { [weak self] image in
                guard let self, self.url == newValue else { return }
                self.image = image
            }
        }
    }
}
