internal import CHarfBuzz

/// One registered face as HarfBuzz sees it: an immutable `hb_font_t` with HarfBuzz's own OpenType font
/// functions, at a scale of one unit per font unit.
///
/// Threading: HarfBuzz documents a font that is no longer modified as safe to shape with from many threads
/// at once (its lazily loaded tables are published with atomics), so one `ShapingFont` serves every thread;
/// the buffers that shaping fills are per thread (``ShapingScratch``). The font file is mapped read-only.
/// Shaping at the font's own units makes the advances independent of the point size: a run is shaped once
/// and scaled to any size, which is also what `hb-shape` prints by default (`--font-size=upem`,
/// `--font-funcs=ot`).
final class ShapingFont: @unchecked Sendable {
    // @unchecked: `font` is made immutable before it is shared and is only read afterwards.
    let font: OpaquePointer
    let unitsPerEm: Double
    /// HarfBuzz's horizontal extents in ems: OS/2 typographic metrics when the font's USE_TYPO_METRICS bit
    /// is set, else the `hhea` table's (descender negative).
    let ascender: Double
    let descender: Double
    let lineGap: Double
    /// Which characters up to ``coverageLimit`` have a glyph (bit n % 64 of word n / 64): ASCII and the
    /// Latin-1 and Latin Extended letters, looked up often, answered without a cmap lookup.
    private let coverage: [UInt64]
    static let coverageLimit: UInt32 = 0x280

    /// Opens face `index` of the mapped file `blob`.
    init(blob: OpaquePointer, index: Int, path: String) throws(TextError) {
        let face = hb_face_create(blob, UInt32(index))
        defer { hb_face_destroy(face) }
        let upem = hb_face_get_upem(face)
        guard let font = hb_font_create(face), upem > 0 else {
            throw TextError("HarfBuzz cannot read face \(index)", path: path, kind: .font)
        }
        hb_font_make_immutable(font)
        self.font = font
        unitsPerEm = Double(upem)
        var extents = hb_font_extents_t()
        hb_font_get_h_extents(font, &extents)
        ascender = Double(extents.ascender) / Double(upem)
        descender = Double(extents.descender) / Double(upem)
        lineGap = Double(extents.line_gap) / Double(upem)
        var coverage = [UInt64](repeating: 0, count: Int(Self.coverageLimit) / 64)
        var glyph: hb_codepoint_t = 0
        for scalar in 0..<Self.coverageLimit where hb_font_get_nominal_glyph(font, scalar, &glyph) != 0 {
            coverage[Int(scalar / 64)] |= 1 << UInt64(scalar % 64)
        }
        self.coverage = coverage
    }

    deinit {
        hb_font_destroy(font)
    }

    /// Whether the font has a glyph for `scalar` in its character map.
    @inline(__always)
    func covers(_ scalar: UInt32) -> Bool {
        if scalar < Self.coverageLimit { return coverage[Int(scalar / 64)] & (1 << UInt64(scalar % 64)) != 0 }
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(font, scalar, &glyph) != 0
    }

    /// The faces of the font file at `source`, mapped once and shared by the faces of a collection; errors
    /// name `path`.
    static func open(source: String, path: String, indices: [Int]) throws(TextError) -> [ShapingFont] {
        guard let blob = hb_blob_create_from_file_or_fail(source) else {
            throw TextError("cannot map the font file", path: path, kind: .font)
        }
        defer { hb_blob_destroy(blob) }
        var fonts: [ShapingFont] = []
        for index in indices { fonts.append(try ShapingFont(blob: blob, index: index, path: path)) }
        return fonts
    }
}
