import WeftFormat
import WeftLayout
import WeftText

extension LayoutDecoder {
    /// A decoder that also reads the node layer's leaves:
    ///
    /// - `text`: a ``TextNode`` measured by `textMeasurer` (nil: ``TextNode/standardMeasurer``, real fonts).
    ///   Its members are read by ``TextLeafDecoder``: `text` or `runs`, the style members (`fontFamily`,
    ///   `fontSize`, `fontWeight`, `italic`, `letterSpacing`, `lineHeight`) and the paragraph members
    ///   (`maximumNumberOfLines`, `truncation`, `truncationToken`, `wrapping`); `docs/layout-format.md`
    ///   has the details.
    /// - `image`: `size` ([w, h], the image's own size; without it, no image yet). An ``ImageNode``: sized by
    ///   its style, else by its image.
    public static func withNodes(limits: Limits = Limits(), textMeasurer: (any TextMeasurer)? = nil) -> LayoutDecoder {
        var decoder = LayoutDecoder(limits: limits)
        decoder.leafDecoders["text"] = TextLeafDecoder(measurer: textMeasurer ?? TextNode.standardMeasurer)
        decoder.leafDecoders["image"] = ImageDecoder()
        return decoder
    }
}

/// Reads an `image` leaf.
struct ImageDecoder: LeafDecoder {
    func decode(_ m: inout MemberReader, _ common: ElementCommon) throws(LayoutError) -> any LayoutElement {
        let pair = try m.pair("size", nonNegative: true)
        let node = ImageNode(image: pair.map { Image(size: Size(width: $0.0, height: $0.1)) })
        node.identifier = common.identifier
        node.style = common.style
        return node
    }
}
