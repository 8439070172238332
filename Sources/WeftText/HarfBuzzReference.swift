internal import CHarfBuzz

/// HarfBuzz called directly: one `hb_shape` over a whole string in one face, its advances summed. No
/// analysis, itemization, font fallback, line breaking or cache: the floor a ``FontMeasurer`` is compared
/// with in the benchmarks (its shaping cost per text should stay within 1.3 times this).
///
/// MAY be called from any thread (it uses the thread's own HarfBuzz buffer).
public struct HarfBuzzReference: Sendable {
    private let font: ShapingFont

    /// The reference for the face `registry` picks for `family`, `weight` and slant.
    public init(registry: FontRegistry, family: String? = nil, weight: Int = 400, isItalic: Bool = false) throws(TextError) {
        font = registry.font(try registry.resolve(family: family, weight: weight, isItalic: isItalic, path: "family"))
    }

    /// The advance of `string` shaped as one run (script and direction guessed by HarfBuzz) at `size` points.
    public func width(of string: String, size: Double) throws(TextError) -> Double {
        let buffer = try ShapingScratch.current().buffer
        var text = string
        text.withUTF8 { bytes in
            hb_buffer_clear_contents(buffer)
            bytes.withMemoryRebound(to: CChar.self) { chars in
                hb_buffer_add_utf8(buffer, chars.baseAddress, Int32(chars.count), 0, Int32(chars.count))
            }
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font.font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return 0 }
        var total: Int64 = 0
        for glyph in 0..<Int(count) { total += Int64(positions[glyph].x_advance) }
        return Double(total) * size / font.unitsPerEm
    }
}
