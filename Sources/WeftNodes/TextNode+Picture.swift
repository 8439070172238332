import WeftFormat
import WeftLayout
import WeftText

/// Text nodes draw their lines in SVG pictures, so that a person can check the wrap by eye.
extension TextNode: SVGDrawable {
    /// The text measured at the frame's width, drawn as set: each line's box (its width and height, shaded)
    /// and each run at its x and baseline, in its font, size, weight and slant, with the truncation token; and
    /// a label with the node's name, size and lines: in the frame's bottom-right corner when the last line
    /// leaves room for it, else just right of the frame. A text that cannot be measured is drawn as its
    /// problem.
    public func svgContent(in frame: Rect) -> String {
        let x = frame.origin.x, y = frame.origin.y
        let text = attributedText ?? AttributedText("")
        let layout: TextLayout
        do throws(TextError) {
            layout = try measurement(width: frame.size.width)
        } catch {
            return label("\(displayName) cannot be measured: \(error)", in: frame, after: nil, color: "#c53030")
        }
        var out = ""
        for line in layout.lines {
            out += "  <rect x=\"\(points(x))\" y=\"\(points(y + line.top))\" width=\"\(points(line.width))\" "
            out += "height=\"\(points(line.height))\" fill=\"#fefcbf\" stroke=\"none\"/>\n"
        }
        for line in layout.lines {
            for run in line.runs {
                let string = run.isTruncationToken ? layout.truncationToken ?? "" : String(text.substring(run.range))
                out += runElement(string, run: run, style: text.style(at: max(0, run.range.lowerBound - (run.isTruncationToken ? 1 : 0))),
                                  x: x + run.x, baseline: y + line.baseline)
            }
        }
        let summary = "\(points(frame.size.width)) x \(points(frame.size.height)), \(layout.lines.count) line"
            + (layout.lines.count == 1 ? "" : "s") + (layout.isTruncated ? ", truncated" : "")
        return out + label("\(identifier ?? "text") \(summary)", in: frame, after: layout.lines.last, color: "#2b6cb0")
    }

    /// One run as an SVG `<text>`, in the face it was set in (else its style's family) at its size.
    private func runElement(_ string: String, run: TextRun, style: TextStyle, x: Double, baseline: Double) -> String {
        let family = run.font?.family ?? style.family ?? "sans-serif"
        let weight = run.font?.weight ?? style.weight
        let italic = run.font?.isItalic ?? style.isItalic
        // A right-to-left run is drawn from its right edge.
        var out = "  <text x=\"\(points(run.isRightToLeft ? x + run.width : x))\" y=\"\(points(baseline))\" font-family=\"\(svgEscaped(family))\" "
        out += "font-size=\"\(points(run.size))\" font-weight=\"\(weight)\""
        if italic { out += " font-style=\"italic\"" }
        if style.letterSpacing != 0 { out += " letter-spacing=\"\(points(style.letterSpacing))\"" }
        if run.isRightToLeft { out += " direction=\"rtl\" text-anchor=\"end\"" }
        out += " fill=\"#1a202c\" xml:space=\"preserve\">\(svgEscaped(string))</text>\n"
        return out
    }

    /// A small monospace label: in the frame's bottom-right corner if it fits beside `last` (the last line),
    /// else right of the frame, on the last line's baseline.
    private func label(_ text: String, in frame: Rect, after last: TextLine?, color: String) -> String {
        let width = Double(text.count) * 3.6 + 2  // 6-point monospace: 0.6 em a character
        let inside = frame.size.width - (last?.width ?? 0) >= width
        let x = inside ? frame.maxX - 1 : frame.maxX + 3
        let y = inside ? frame.maxY - 1.5 : frame.origin.y + (last?.baseline ?? frame.size.height)
        return "  <text x=\"\(points(x))\" y=\"\(points(y))\" font-family=\"monospace\" font-size=\"6\""
            + (inside ? " text-anchor=\"end\"" : "") + " fill=\"\(color)\">\(svgEscaped(text))</text>\n"
    }

    /// A coordinate to a thousandth of a point: enough for the eye, short to read.
    private func points(_ value: Double) -> String { formatPoints((value * 1000).rounded() / 1000) }
}
