import WeftLayout

/// A text picture of a layout tree, in the spirit of Texture's `asciiArtString`: every spec is a box titled
/// with its kind, id, size and position; the children of a horizontal stack sit side by side, all other
/// children one above the other.
///
/// Work is linear in the size of the picture: box sizes are computed once, bottom up, then each line of the
/// picture is written once, top to bottom (a nested box's line is never copied into its parent's). The picture
/// nests at most ``maxNesting`` frames: a box at that depth lists everything below it as lines of its own,
/// each with its level, so depth adds lines, not columns. (The picture is still a rectangle: children side by
/// side pad each line of their row to its height, so a wide row beside a tall column is width x height.)
enum AsciiPicture {
    /// The deepest frame drawn. Each frame adds four columns and two lines to everything inside it, so a fully
    /// framed chain of d levels would be about 2d lines of 4d characters (367 MB for the deepest layout an
    /// 8 MB thread computes, from a 3 MB json). Below this depth the elements are listed one per line inside
    /// the box at this depth, each titled with its level (the root's is 0), in the tree's order.
    static let maxNesting = 32

    static func render(_ layout: Layout) -> String {
        var work = 0
        return render(layout, work: &work)
    }

    /// The picture, adding to `work` the characters measured (headings) and written: the work the picture
    /// takes, which the tests hold to the picture's size.
    static func render(_ layout: Layout, work: inout Int) -> String {
        let root = Box(layout)
        work += root.measured
        var out = ""
        for row in 0..<root.height {
            root.write(row: row, into: &out)
            out.append("\n")
        }
        work += out.count
        return out
    }

    static func title(_ layout: Layout) -> String {
        let position = layout.position
        return oneLine("\(layout.element.displayName) \(layout.size) @\(formatPoints(position.x)),\(formatPoints(position.y))")
    }

    /// `text` with its control characters and line or paragraph separators written as escapes (`\n`, `\u{1b}`):
    /// an id with a line break broke the picture's line, and its frame, in two.
    static func oneLine(_ text: String) -> String {
        func breaks(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
        guard text.unicodeScalars.contains(where: breaks) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard breaks(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default: escape = "\\u{\(String(scalar.value, radix: 16))}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// The columns `text` takes in a terminal's monospaced font: two for each wide character (East Asian Width W
    /// or F: CJK ideographs, kana, Hangul syllables, fullwidth forms) or emoji shown as a picture, one for every
    /// other character (a grapheme cluster: a letter with its accents, a flag). Counted per character, a heading
    /// of CJK ids was drawn twice as wide as its frame was padded for.
    static func columns(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var columns = 0
        for character in text {
            guard let first = character.unicodeScalars.first else { continue }
            columns += isWide(first) || character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
                || character.unicodeScalars.contains("\u{FE0F}") && first.properties.isEmoji ? 2 : 1
        }
        return columns
    }

    /// Whether `scalar` is East Asian Wide or Fullwidth (Unicode's EastAsianWidth.txt, its W and F blocks).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// One layout's box: its heading, its children's boxes, and its size in characters and lines.
    ///
    /// A leaf is one line, `[ heading ]`. A box with children is a border line with the heading, the body
    /// (children above each other, or side by side separated by a space, each padded to its width) framed by
    /// `| ` and ` |`, and a closing border line.
    struct Box {
        let heading: String
        let headingWidth: Int
        let children: [Box]
        let sideBySide: Bool
        /// The body's width (inside the frame) and the picture's width and height.
        let innerWidth: Int
        let width: Int
        let height: Int
        /// For children above each other: the body row each child starts at.
        let starts: [Int]
        /// The characters of the headings in this box (counted once each).
        let measured: Int

        init(_ layout: Layout, level: Int = 0) {
            heading = AsciiPicture.title(layout)
            headingWidth = AsciiPicture.columns(heading)
            if level < AsciiPicture.maxNesting {
                children = layout.sublayouts.map { Box($0, level: level + 1) }
                sideBySide = (layout.element as? Spec)?.stackOptions?.direction == .horizontal
            } else {
                children = Box.listed(below: layout, level: level)
                sideBySide = false
            }
            measured = children.reduce(headingWidth) { $0 + $1.measured }
            if children.isEmpty {
                innerWidth = 0
                width = headingWidth + 4
                height = 1
                starts = []
                return
            }
            let bodyWidth: Int
            let bodyHeight: Int
            if sideBySide {
                bodyWidth = children.reduce(-1) { $0 + $1.width + 1 }
                bodyHeight = children.map(\.height).max() ?? 0
                starts = []
            } else {
                bodyWidth = children.map(\.width).max() ?? 0
                var starts: [Int] = []
                starts.reserveCapacity(children.count)
                var row = 0
                for child in children {
                    starts.append(row)
                    row += child.height
                }
                self.starts = starts
                bodyHeight = row
            }
            innerWidth = max(headingWidth + 2, bodyWidth)
            width = innerWidth + 4
            height = bodyHeight + 2
        }

        /// A one-line box titled `heading`.
        private init(leaf heading: String) {
            self.heading = heading
            headingWidth = AsciiPicture.columns(heading)
            children = []
            sideBySide = false
            innerWidth = 0
            width = headingWidth + 4
            height = 1
            starts = []
            measured = headingWidth
        }

        /// Everything below `layout` (at `level`) as one-line boxes in the tree's order, each titled with its
        /// level: walked with a stack of its own, so a deep subtree costs no recursion.
        private static func listed(below layout: Layout, level: Int) -> [Box] {
            var lines: [Box] = []
            var pending: [(Layout, Int)] = layout.sublayouts.reversed().map { ($0, level + 1) }
            while let (next, nextLevel) = pending.popLast() {
                lines.append(Box(leaf: "level \(nextLevel): " + AsciiPicture.title(next)))
                pending.append(contentsOf: next.sublayouts.reversed().map { ($0, nextLevel + 1) })
            }
            return lines
        }

        /// Appends line `row` of this box (exactly ``width`` characters) to `out`.
        func write(row: Int, into out: inout String) {
            if children.isEmpty {
                out += "[ "
                out += heading
                out += " ]"
                return
            }
            if row == 0 {
                out += "+-"
                out += heading
                pad(innerWidth - headingWidth + 1, with: "-", into: &out)
                out += "+"
                return
            }
            if row == height - 1 {
                out += "+"
                pad(innerWidth + 2, with: "-", into: &out)
                out += "+"
                return
            }
            out += "| "
            let bodyRow = row - 1
            var written = 0
            if sideBySide {
                for (i, child) in children.enumerated() {
                    if i > 0 {
                        out += " "
                        written += 1
                    }
                    if bodyRow < child.height { child.write(row: bodyRow, into: &out) } else { pad(child.width, into: &out) }
                    written += child.width
                }
            } else if let index = childIndex(atBodyRow: bodyRow) {
                children[index].write(row: bodyRow - starts[index], into: &out)
                written = children[index].width
            }
            pad(innerWidth - written, into: &out)
            out += " |"
        }

        /// The child (above each other) that covers `bodyRow`: the last one starting at or before it.
        private func childIndex(atBodyRow bodyRow: Int) -> Int? {
            var low = 0
            var high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if starts[mid] <= bodyRow { low = mid + 1 } else { high = mid }
            }
            return low > 0 ? low - 1 : nil
        }

        private func pad(_ count: Int, with character: Character = " ", into out: inout String) {
            for _ in 0..<max(count, 0) { out.append(character) }
        }
    }
}
