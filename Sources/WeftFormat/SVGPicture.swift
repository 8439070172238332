import WeftLayout

/// An element that draws its own content into SVG pictures (`--format svg`): a text node draws its lines.
///
/// The picture draws every element's box; for an element that conforms it adds the content instead of the id
/// label it draws for others, and lists the element with its frame and caption in a legend below the layout
/// (labels inside tight boxes would cover the content). MAY be called from any thread.
public protocol SVGDrawable {
    /// SVG elements (`<text>`, `<rect>`...) that draw the content inside `frame` (in the picture's
    /// coordinates: points, y down), and a short caption for the legend ("2 lines, truncated").
    func svgContent(in frame: Rect) -> (elements: String, caption: String)
}

extension SVGDrawable {
    /// `text` with the characters XML reserves escaped, for SVG text and attributes.
    public func svgEscaped(_ text: String) -> String {
        SVGPicture.escape(text)
    }
}

/// An SVG picture of a layout's computed boxes: leaves filled, specs outlined with dashes, ids as labels,
/// and the content of elements that draw themselves (``SVGDrawable``), with a legend of those below.
enum SVGPicture {
    static func render(_ layout: Layout) -> String {
        let entries = layout.allFrames()
        let margin = 8.0
        var body = ""
        for entry in entries {
            let f = entry.frame
            let isLeaf = entry.element.childElements.isEmpty
            let fill = isLeaf ? "#dbe9f6" : "none"
            let stroke = isLeaf ? "#2b6cb0" : "#a0aec0"
            let dash = isLeaf ? "" : " stroke-dasharray=\"3 2\""
            body += "  <rect x=\"\(formatPoints(f.origin.x))\" y=\"\(formatPoints(f.origin.y))\" "
            body += "width=\"\(formatPoints(f.size.width))\" height=\"\(formatPoints(f.size.height))\" "
            body += "fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1\"\(dash)><title>\(escape(AsciiPicture.title(layoutTitle: entry)))</title></rect>\n"
        }
        var legend: [String] = []
        for entry in entries {
            if let drawable = entry.element as? any SVGDrawable {
                let (elements, caption) = drawable.svgContent(in: entry.frame)
                body += elements
                legend.append("\(AsciiPicture.title(layoutTitle: entry)): \(caption)")
                continue
            }
            guard let id = entry.element.identifier else { continue }
            let f = entry.frame
            body += "  <text x=\"\(formatPoints(f.origin.x + 2))\" y=\"\(formatPoints(f.origin.y + 11))\" fill=\"#1a202c\">"
            body += "\(escape(id))</text>\n"
        }
        // The legend: one 10-point line each (monospace, 6 points a character), below the layout.
        for (index, line) in legend.enumerated() {
            body += "  <text x=\"0\" y=\"\(formatPoints(layout.size.height + 14 + Double(index) * 12))\" fill=\"#2b6cb0\">"
            body += "\(escape(line))</text>\n"
        }
        let legendWidth = Double(legend.map(\.count).max() ?? 0) * 6
        let width = max(layout.size.width, legendWidth) + margin * 2
        let height = layout.size.height + (legend.isEmpty ? 0 : Double(legend.count) * 12 + 6) + margin * 2
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(formatPoints(width))" height="\(formatPoints(height))" \
        viewBox="\(formatPoints(-margin)) \(formatPoints(-margin)) \(formatPoints(width)) \(formatPoints(height))" \
        font-family="monospace" font-size="10">

        """
        out += "  <rect x=\"\(formatPoints(-margin))\" y=\"\(formatPoints(-margin))\" width=\"\(formatPoints(width))\" "
        out += "height=\"\(formatPoints(height))\" fill=\"#ffffff\"/>\n"
        return out + body + "</svg>\n"
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
