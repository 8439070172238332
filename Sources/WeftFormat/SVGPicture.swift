import WeftLayout

/// An element that draws its own content into SVG pictures (`--format svg`): a text node draws its lines.
///
/// The picture draws every element's box; for an element that conforms it adds ``svgContent(in:)`` instead of
/// the id label it draws for others (the element labels itself). MAY be called from any thread.
public protocol SVGDrawable {
    /// SVG elements (`<text>`, `<rect>`...) that draw the content and a label inside or around `frame`, which
    /// is in the picture's coordinates (points, y down).
    func svgContent(in frame: Rect) -> String
}

extension SVGDrawable {
    /// `text` with the characters XML reserves escaped, for SVG text and attributes.
    public func svgEscaped(_ text: String) -> String {
        SVGPicture.escape(text)
    }
}

/// An SVG picture of a layout's computed boxes: leaves filled, specs outlined with dashes, ids as labels,
/// and the content of elements that draw themselves (``SVGDrawable``).
enum SVGPicture {
    static func render(_ layout: Layout) -> String {
        let entries = layout.allFrames()
        let margin = 8.0
        let width = layout.size.width + margin * 2
        let height = layout.size.height + margin * 2
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(formatPoints(width))" height="\(formatPoints(height))" \
        viewBox="\(formatPoints(-margin)) \(formatPoints(-margin)) \(formatPoints(width)) \(formatPoints(height))" \
        font-family="monospace" font-size="10">

        """
        out += "  <rect x=\"\(formatPoints(-margin))\" y=\"\(formatPoints(-margin))\" width=\"\(formatPoints(width))\" "
        out += "height=\"\(formatPoints(height))\" fill=\"#ffffff\"/>\n"
        for entry in entries {
            let f = entry.frame
            let isLeaf = entry.element.childElements.isEmpty
            let fill = isLeaf ? "#dbe9f6" : "none"
            let stroke = isLeaf ? "#2b6cb0" : "#a0aec0"
            let dash = isLeaf ? "" : " stroke-dasharray=\"3 2\""
            out += "  <rect x=\"\(formatPoints(f.origin.x))\" y=\"\(formatPoints(f.origin.y))\" "
            out += "width=\"\(formatPoints(f.size.width))\" height=\"\(formatPoints(f.size.height))\" "
            out += "fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1\"\(dash)><title>\(escape(AsciiPicture.title(layoutTitle: entry)))</title></rect>\n"
        }
        for entry in entries {
            if let drawable = entry.element as? any SVGDrawable {
                out += drawable.svgContent(in: entry.frame)
                continue
            }
            guard let id = entry.element.identifier else { continue }
            let f = entry.frame
            out += "  <text x=\"\(formatPoints(f.origin.x + 2))\" y=\"\(formatPoints(f.origin.y + 11))\" fill=\"#1a202c\">"
            out += "\(escape(id))</text>\n"
        }
        return out + "</svg>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension AsciiPicture {
    static func title(layoutTitle entry: FlatEntry) -> String {
        "\(entry.element.displayName) \(entry.frame)"
    }
}
