import WeftFormat
import WeftLayout
import WeftText

/// Text nodes draw their lines in SVG pictures, so that a person can check the wrap by eye.
extension TextNode: SVGDrawable {
    /// The text measured at the frame's width, drawn as set: each line's box (its width and height, shaded)
    /// and each run at its x and baseline, in its font, size, weight and slant, with the truncation token. The
    /// caption counts the lines and says whether the text was cut, or why it cannot be measured.
    public func svgContent(in frame: Rect) -> (elements: String, caption: String) {
        let x = frame.origin.x, y = frame.origin.y
        let text: AttributedText, layout: TextLayout
        do throws(TextError) {
            (text, layout) = try measured(width: frame.size.width)
        } catch {
            return ("", "cannot be measured: \(error)")
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
        let caption = "\(layout.lines.count) line" + (layout.lines.count == 1 ? "" : "s") + (layout.isTruncated ? ", truncated" : "")
        return (out, caption)
    }

    /// One run as an SVG `<text>`, in the face it was set in (else its style's family) at its size.
    private func runElement(_ string: String, run: TextRun, style: TextStyle, x: Double, baseline: Double) -> String {
        let family = run.font?.family ?? style.family ?? "sans-serif"
        let weight = run.font?.weight ?? style.weight
        let italic = run.font?.isItalic ?? style.isItalic
        // Runs are placed left to right in logical order (the layout does not reorder them); the renderer's
        // bidi algorithm still draws a right-to-left run's own characters from right to left.
        var out = "  <text x=\"\(points(x))\" y=\"\(points(baseline))\" font-family=\"\(svgEscaped(family))\" "
        out += "font-size=\"\(points(run.size))\" font-weight=\"\(weight)\""
        if italic { out += " font-style=\"italic\"" }
        if style.letterSpacing != 0 { out += " letter-spacing=\"\(points(style.letterSpacing))\"" }
        out += " fill=\"#1a202c\" xml:space=\"preserve\">\(svgEscaped(string))</text>\n"
        return out
    }

    /// A coordinate to a thousandth of a point: enough for the eye, short to read.
    private func points(_ value: Double) -> String { formatPoints((value * 1000).rounded() / 1000) }
}
