import WeftLayout

extension LayoutDecoder {
    /// Decodes a `style` object (every ``LayoutStyle`` property; `preferredSize` sets width and height).
    func decodeStyle(_ value: JSONValue, path: String) throws(LayoutError) -> LayoutStyle {
        var m = try MemberReader(value, path: path, what: "a style")
        var style = LayoutStyle()
        style.width = try dimension("width", &m) ?? .auto
        style.height = try dimension("height", &m) ?? .auto
        if let (w, h) = try m.pair("preferredSize", nonNegative: true) {
            if m.object["width"] != nil || m.object["height"] != nil {
                throw LayoutError("preferredSize sets width and height; give either it or them", path: m.path("preferredSize"))
            }
            style.preferredSize = Size(width: w, height: h)
        }
        style.minWidth = try dimension("minWidth", &m) ?? .auto
        style.maxWidth = try dimension("maxWidth", &m) ?? .auto
        style.minHeight = try dimension("minHeight", &m) ?? .auto
        style.maxHeight = try dimension("maxHeight", &m) ?? .auto
        style.flexGrow = try m.nonNegative("flexGrow") ?? 0
        style.flexShrink = try m.nonNegative("flexShrink") ?? 0
        style.flexBasis = try dimension("flexBasis", &m) ?? .auto
        style.alignSelf = try m.choice("alignSelf", AlignSelf.self) ?? .auto
        style.spacingBefore = try m.number("spacingBefore") ?? 0
        style.spacingAfter = try m.number("spacingAfter") ?? 0
        style.ascender = try m.number("ascender") ?? 0
        style.descender = try m.number("descender") ?? 0
        if let (x, y) = try m.pair("layoutPosition", nonNegative: false) {
            style.layoutPosition = Point(x: x, y: y)
        }
        try m.finish()
        if let (property, reason) = style.problem {
            throw LayoutError(reason, path: m.path(property))
        }
        return style
    }

    /// A dimension member: a number of points, or a string such as `"12pt"`, `"50%"` or `"auto"`.
    func dimension(_ key: String, _ m: inout MemberReader) throws(LayoutError) -> Dimension? {
        guard let value = m.value(key) else { return nil }
        let dimension: Dimension
        switch value {
        case .number(let points):
            dimension = .points(points)
        case .string(let text):
            guard let parsed = Dimension(parsing: text) else {
                throw LayoutError(
                    "expected a dimension such as 12, \"12pt\", \"50%\" or \"auto\", got \(value.summary)", path: m.path(key))
            }
            dimension = parsed
        default:
            throw LayoutError(
                "expected a dimension such as 12, \"12pt\", \"50%\" or \"auto\", got \(value.summary)", path: m.path(key))
        }
        if let reason = dimension.problem { throw LayoutError(reason, path: m.path(key)) }
        return dimension
    }
}
