import WeftLayout

/// Renders layouts in the output formats of `weft layout`: `json`, `flat`, `ascii` and `svg`.
public enum LayoutFormat: String, Sendable, CaseIterable {
    /// The layout tree: every element with its type, id, frame (position relative to its parent) and children.
    case json
    /// One JSON object mapping every id to `[x, y, width, height]` in the root's coordinates.
    case flat
    /// A text picture of the spec tree with each element's size and position.
    case ascii
    /// The computed boxes as an SVG picture, labelled by id.
    case svg

    /// The layout rendered in this format, ending with a newline.
    public func render(_ layout: Layout) -> String {
        switch self {
        case .json: return LayoutWriter.json(layout)
        case .flat: return LayoutWriter.flat(layout)
        case .ascii: return AsciiPicture.render(layout)
        case .svg: return SVGPicture.render(layout)
        }
    }
}

/// Writes the `json` and `flat` formats. Every number goes through ``number(_:)``, so the output is always
/// valid JSON: JSON has no infinity or NaN, and those are written as `null`. (Layouts from
/// `Layout.compute` never hold one: it refuses positions beyond `Layout.positionLimit`, and sizes are always
/// valid; a layout finished by hand from a builder might.)
enum LayoutWriter {
    static func frameArray(_ rect: Rect) -> String {
        "[\(number(rect.origin.x)), \(number(rect.origin.y)), \(number(rect.size.width)), \(number(rect.size.height))]"
    }

    /// `value` as a JSON number, or `null` if it is not finite.
    static func number(_ value: Double) -> String {
        value.isFinite ? formatPoints(value) : "null"
    }

    static func json(_ layout: Layout) -> String {
        var out = ""
        writeTree(layout, indent: "", into: &out)
        return out + "\n"
    }

    /// The deepest indentation the `json` format writes, in spaces: deeper levels are written at this one, so
    /// the output grows with the elements, not with elements x depth (1.6 GB for 100,000 boxes under 990
    /// stacks, from a 1.5 MB document).
    static let maxIndent = 64

    /// `indent` one level deeper, up to ``maxIndent``.
    private static func deeper(_ indent: String) -> String {
        indent.utf8.count < maxIndent ? indent + "  " : indent
    }

    private static func writeTree(_ layout: Layout, indent: String, into out: inout String) {
        let inner = deeper(indent)
        out += "{\n"
        out += "\(inner)\"type\": \(JSONValue.quoted(layout.element.kindName)),\n"
        if let id = layout.element.identifier {
            out += "\(inner)\"id\": \(JSONValue.quoted(id)),\n"
        }
        out += "\(inner)\"frame\": \(frameArray(layout.frame))"
        let sublayouts = layout.sublayouts
        if !sublayouts.isEmpty {
            out += ",\n\(inner)\"children\": [\n"
            let childIndent = deeper(inner)
            for (i, sublayout) in sublayouts.enumerated() {
                out += childIndent
                writeTree(sublayout, indent: childIndent, into: &out)
                out += i < sublayouts.count - 1 ? ",\n" : "\n"
            }
            out += "\(inner)]"
        }
        out += "\n\(indent)}"
    }

    static func flat(_ layout: Layout) -> String {
        let entries = layout.allFrames().filter { $0.element.identifier != nil }
        if entries.isEmpty { return "{}\n" }
        var out = "{\n"
        for (i, entry) in entries.enumerated() {
            out += "  \(JSONValue.quoted(entry.element.identifier ?? "")): \(frameArray(entry.frame))"
            out += i < entries.count - 1 ? ",\n" : "\n"
        }
        return out + "}\n"
    }
}
