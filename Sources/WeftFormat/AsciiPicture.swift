import WeftLayout

/// A text picture of a layout tree, in the spirit of Texture's `asciiArtString`: every spec is a box titled
/// with its kind, id, size and position; the children of a horizontal stack sit side by side, all other
/// children one above the other.
enum AsciiPicture {
    static func render(_ layout: Layout) -> String {
        block(layout).joined(separator: "\n") + "\n"
    }

    static func title(_ layout: Layout) -> String {
        let position = layout.position
        return "\(layout.element.displayName) \(layout.size) @\(formatPoints(position.x)),\(formatPoints(position.y))"
    }

    static func block(_ layout: Layout) -> [String] {
        let heading = title(layout)
        let sublayouts = layout.sublayouts
        if sublayouts.isEmpty {
            return ["[ \(heading) ]"]
        }
        let blocks = sublayouts.map(block)
        let sideBySide = (layout.element as? StackSpec)?.options.direction == .horizontal
        let body = sideBySide ? besideEachOther(blocks) : blocks.flatMap { $0 }
        let innerWidth = max(heading.count + 2, body.map(\.count).max() ?? 0)
        var lines = ["+-" + heading + String(repeating: "-", count: innerWidth - heading.count + 1) + "+"]
        for line in body {
            lines.append("| " + line + String(repeating: " ", count: innerWidth - line.count) + " |")
        }
        lines.append("+" + String(repeating: "-", count: innerWidth + 2) + "+")
        return lines
    }

    static func besideEachOther(_ blocks: [[String]]) -> [String] {
        let height = blocks.map(\.count).max() ?? 0
        let widths = blocks.map { $0.map(\.count).max() ?? 0 }
        return (0..<height).map { row in
            zip(blocks, widths).map { block, width in
                let line = row < block.count ? block[row] : ""
                return line + String(repeating: " ", count: width - line.count)
            }.joined(separator: " ")
        }
    }
}
