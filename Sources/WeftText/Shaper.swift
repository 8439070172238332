internal import CHarfBuzz
internal import CICU

/// Shapes a text into a ``ShapedParagraph``: analysis (graphemes, line breaks), itemization (bidi, scripts,
/// fonts), then HarfBuzz over each segment, with the whole text as context.
///
/// Work is linear in the text's length: every pass is one walk over the UTF-16 units, and segments longer
/// than ``chunkLength`` are shaped in chunks cut at spaces (or grapheme clusters), so HarfBuzz's buffer stays
/// small however long the text is.
enum Shaper {
    /// The most UTF-16 units shaped in one HarfBuzz call.
    static let chunkLength = 4096

    /// `text` shaped to the end (no stop hook).
    static func shape(_ text: AttributedText, registry: FontRegistry) throws(TextError) -> ShapedParagraph {
        var stop = StopCheck(nil)
        return try shape(text, registry: registry, stop: &stop)
    }

    /// `text` shaped, counting each pass's work in `stop` (which may end it).
    static func shape(_ text: AttributedText, registry: FontRegistry, stop: inout StopCheck) throws(TextError) -> ShapedParagraph {
        let scratch = try ShapingScratch.current()
        return try scratch.withUnits(count: text.utf16Count) { (buffer) throws(TextError) -> ShapedParagraph in
            var scan = TextAnalysis.decode(text.string, into: buffer)
            return try shape(UnsafeBufferPointer(buffer), scan: &scan, runs: text.runs, registry: registry, scratch: scratch,
                             stop: &stop)
        }
    }

    private static func shape(_ units: UnsafeBufferPointer<UInt16>, scan: inout TextAnalysis.Scan, runs: [AttributedText.Run],
                              registry: FontRegistry, scratch: ShapingScratch, stop: inout StopCheck) throws(TextError) -> ShapedParagraph {
        try TextAnalysis.markGraphemes(units, &scan, scratch: scratch, stop: &stop)
        let breaks = try TextAnalysis.lineBreaks(units, &scan, scratch: scratch, stop: &stop)
        var itemizer = try Itemizer(units: units, flags: scan.flags, runs: runs, registry: registry)
        var segments = scan.isASCII ? itemizer.asciiSegments() : nil
        if segments != nil { try stop.add(units.count) }
        if segments == nil {
            var levels: LevelRuns?
            if scan.mayHaveRightToLeft {
                var status: Int32 = 0
                weft_bidi_set_paragraph(scratch.bidi, units.baseAddress, Int32(units.count), &status)
                let found = status <= 0 ? weft_bidi_levels(scratch.bidi, &status) : nil
                guard status <= 0, let found else { throw TextAnalysis.icuFailure("bidi levels", status) }
                levels = LevelRuns(UnsafeBufferPointer(start: found, count: units.count))
            }
            segments = try itemizer.segments(levels: levels, stop: &stop)
        }
        let shaped = segments ?? []
        let graphemes = TextAnalysis.graphemeCounts(scan.flags)
        var advances = [Double](repeating: 0, count: units.count + 1)
        let features = runs.count == 1 && runs[0].style.features.isEmpty && runs[0].style.letterSpacing == 0
            ? [[]] : runs.map(harfBuzzFeatures)
        for segment in shaped {
            try shape(segment, units, font: registry.font(Int(segment.face)), features: features[Int(segment.styleRun)],
                      scratch: scratch, advances: &advances, flags: &scan.flags, stop: &stop)
        }
        accumulate(&advances, flags: scan.flags, graphemes: graphemes)
        return ShapedParagraph(length: units.count, advances: advances, graphemes: graphemes, flags: scan.flags,
                               breaks: breaks, segments: shaped)
    }

    /// Shapes one segment, adding each glyph's advance (in ems) at its cluster's offset and marking cluster starts.
    private static func shape(_ segment: Segment, _ units: UnsafeBufferPointer<UInt16>, font: ShapingFont,
                              features: [hb_feature_t], scratch: ShapingScratch,
                              advances: inout [Double], flags: inout [UInt8], stop: inout StopCheck) throws(TextError) {
        let buffer = scratch.buffer
        let scale = 1 / font.unitsPerEm
        var start = Int(segment.start)
        while start < Int(segment.end) {
            let end = chunkEnd(from: start, to: Int(segment.end), units: units, flags: flags)
            try stop.add(end - start + StopCheck.callSteps)
            hb_buffer_clear_contents(buffer)
            hb_buffer_add_utf16(buffer, units.baseAddress, Int32(units.count), UInt32(start), Int32(end - start))
            hb_buffer_set_direction(buffer, segment.isRightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
            hb_buffer_set_script(buffer, hb_script_t(rawValue: segment.script))
            hb_buffer_guess_segment_properties(buffer)
            features.withUnsafeBufferPointer { hb_shape(font.font, buffer, $0.baseAddress, UInt32($0.count)) }
            var count: UInt32 = 0
            let infos = hb_buffer_get_glyph_infos(buffer, &count)
            let positions = hb_buffer_get_glyph_positions(buffer, &count)
            if let infos, let positions {
                for glyph in 0..<Int(count) {
                    let cluster = Int(infos[glyph].cluster)
                    advances[cluster] += Double(positions[glyph].x_advance) * scale
                    flags[cluster] |= UnitFlags.clusterStart
                }
            }
            start = end
        }
    }

    /// Where a chunk that starts at `start` ends: the segment's end when near, else after a space in the last
    /// quarter of ``chunkLength``, else at a grapheme cluster start, else (one huge cluster) anywhere but
    /// inside a surrogate pair.
    static func chunkEnd(from start: Int, to end: Int, units: UnsafeBufferPointer<UInt16>, flags: [UInt8]) -> Int {
        if end - start <= chunkLength { return end }
        let limit = start + chunkLength
        var cut = limit
        while cut > limit - chunkLength / 4 {
            if flags[cut - 1] & UnitFlags.hanging != 0 && flags[cut] & UnitFlags.graphemeStart != 0 { return cut }
            cut -= 1
        }
        cut = limit
        while cut > start + 1 && flags[cut] & UnitFlags.graphemeStart == 0 { cut -= 1 }
        if cut > start + 1 { return cut }
        return (0xDC00...0xDFFF).contains(units[limit]) ? limit + 1 : limit
    }

    /// Turns advances-at-cluster-starts into running sums: `advances[i]` becomes the advance of the text
    /// before offset `i`. Inside a cluster of several grapheme clusters (a ligature) the advance is split
    /// evenly among them.
    static func accumulate(_ advances: inout [Double], flags: [UInt8], graphemes: [Int32]) {
        let count = advances.count - 1
        advances.withUnsafeMutableBufferPointer { advances in
            flags.withUnsafeBufferPointer { flags in
                graphemes.withUnsafeBufferPointer { graphemes in
                    var running = 0.0
                    var i = 0
                    while i < count {
                        var next = i + 1
                        while next < count && flags[next] & UnitFlags.clusterStart == 0 { next += 1 }
                        let total = advances[i]
                        advances[i] = running
                        if next > i + 1 {
                            let span = graphemes[next] - graphemes[i]
                            for inner in (i + 1)..<next {
                                advances[inner] = span > 1 ? running + total * Double(graphemes[inner] - graphemes[i]) / Double(span) : running
                            }
                        }
                        running += total
                        i = next
                    }
                    advances[count] = running
                }
            }
        }
    }

    /// The features of a style run: optional ligatures off when letter spacing is set, then the run's own.
    static func harfBuzzFeatures(_ run: AttributedText.Run) -> [hb_feature_t] {
        var features: [FontFeature] = []
        if run.style.letterSpacing != 0 {
            features = ["liga", "clig", "dlig", "hlig"].map { FontFeature($0, 0) }
        }
        features += run.style.features
        return features.map { hb_feature_t(tag: $0.tagValue, value: $0.value, start: 0, end: UInt32.max) }
    }
}
