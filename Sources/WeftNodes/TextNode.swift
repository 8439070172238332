import WeftLayout

/// A leaf node that shows text, sized by a ``TextMeasurer`` (Texture's `ASTextNode`).
///
/// Setting ``text`` or ``attributes`` (from any thread) calls ``Node/setNeedsLayout()`` when the value
/// changes. The style's ascender and descender follow the attributes, so the node aligns on its baselines in
/// a stack.
open class TextNode: Node, @unchecked Sendable {
    // @unchecked: `content` is guarded by the node's lock, like `Node.state`.
    private var content: Content
    public let measurer: any TextMeasurer

    private struct Content {
        var text: String?
        var attributes: TextAttributes
    }

    public init(text: String? = nil, attributes: TextAttributes = TextAttributes(), measurer: any TextMeasurer = SimpleTextMeasurer()) {
        content = Content(text: text, attributes: attributes)
        self.measurer = measurer
        super.init()
        applyMetrics(attributes)
    }

    /// The text, or nil for none (the node then measures as zero).
    public var text: String? {
        get { lock.withLock { content.text } }
        set {
            let changed = lock.withLock { () -> Bool in
                defer { content.text = newValue }
                return content.text != newValue
            }
            if changed { setNeedsLayout() }
        }
    }

    /// How the text is set.
    public var attributes: TextAttributes {
        get { lock.withLock { content.attributes } }
        set {
            let changed = lock.withLock { () -> Bool in
                defer { content.attributes = newValue }
                return content.attributes != newValue
            }
            applyMetrics(newValue)
            if changed { setNeedsLayout() }
        }
    }

    private func applyMetrics(_ attributes: TextAttributes) {
        let (ascender, descender) = measurer.lineMetrics(attributes)
        updateStyle {
            $0.ascender = ascender
            $0.descender = descender
        }
    }

    /// The text as it would be set in `width`.
    public func measurement(width: Double) -> TextMeasurement {
        let snapshot = lock.withLock { content }
        return measurer.measure(snapshot.text ?? "", attributes: snapshot.attributes, width: width)
    }

    open override func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
        measurement(width: constrainedSize.width).size
    }

    /// `text`, the element type of the JSON format.
    open override var kindName: String { "text" }
}
