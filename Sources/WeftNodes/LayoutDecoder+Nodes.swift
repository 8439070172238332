import WeftFormat
import WeftLayout

extension LayoutDecoder {
    /// A decoder that also reads the node layer's leaves:
    ///
    /// - `text`: `text` (string), `fontSize` (> 0, default 14), `lineHeight` (> 0, default 1.25 x fontSize),
    ///   `maximumNumberOfLines` (whole number >= 0, default 0: no limit), `truncationToken` (default "…").
    ///   A ``TextNode`` measured by ``SimpleTextMeasurer``.
    /// - `image`: `size` ([w, h], the image's own size; without it, no image yet). An ``ImageNode``: sized by
    ///   its style, else by its image.
    public static func withNodes(limits: Limits = Limits()) -> LayoutDecoder {
        var decoder = LayoutDecoder(limits: limits)
        decoder.leafDecoders["text"] = TextDecoder()
        decoder.leafDecoders["image"] = ImageDecoder()
        return decoder
    }

}

/// Reads a `text` leaf.
struct TextDecoder: LeafDecoder {
    func decode(_ m: inout MemberReader, _ common: ElementCommon) throws(LayoutError) -> any LayoutElement {
        var attributes = TextAttributes()
        if let fontSize = try m.number("fontSize") { attributes.fontSize = fontSize }
        attributes.lineHeight = try m.number("lineHeight")
        if let lines = try m.nonNegative("maximumNumberOfLines") {
            guard lines == lines.rounded(), lines < 1e9 else {
                throw LayoutError("expected a whole number >= 0, got \(formatPoints(lines))", path: m.path("maximumNumberOfLines"))
            }
            attributes.maximumNumberOfLines = Int(lines)
        }
        if let token = try m.string("truncationToken") { attributes.truncationToken = token }
        if let (property, reason) = attributes.problem {
            throw LayoutError(reason, path: m.path(property))
        }
        let text = try m.string("text")
        let node = TextNode(text: text, attributes: attributes)
        node.identifier = common.identifier
        var style = common.style
        style.ascender = node.style.ascender
        style.descender = node.style.descender
        node.style = style
        return node
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
