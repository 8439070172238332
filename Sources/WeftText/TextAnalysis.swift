internal import CICU

/// The per-offset facts shaping and line breaking need: grapheme cluster starts (Unicode's extended grapheme
/// clusters, UAX #29), line break opportunities (UAX #14), hanging spaces and line terminators.
///
/// ICU does the Unicode work: its break iterators follow the current UAX #14 and UAX #29 rules (ICU 72:
/// Unicode 15, with the emoji ZWJ, regional indicator and modifier rules that keep emoji sequences whole),
/// and its bidi implementation is the reference UBA. libunibreak 1.1, Debian 12's other choice, predates
/// those emoji rules (Unicode 6 data) and has no bidi; using ICU for both keeps one Unicode version.
enum TextAnalysis {
    /// What a first pass over the UTF-16 units found.
    struct Scan {
        var flags: [UInt8]
        /// Every unit is ASCII.
        var isASCII: Bool
        /// Some unit is U+0300 or above (grapheme clusters then need UAX #29's rules; below it every
        /// character is its own cluster but CR LF).
        var needsGraphemeRules: Bool
        /// Some unit is in a right-to-left block or is a bidi control (then the bidi algorithm runs).
        var mayHaveRightToLeft: Bool
    }

    /// Writes the UTF-16 units of `string` into `buffer` (as many as it holds: the string's UTF-16 length; a
    /// tab becomes a space: there are no tab stops) and finds its hanging spaces, line terminators and what it
    /// contains, in one pass over its UTF-8.
    static func decode(_ string: String, into buffer: UnsafeMutableBufferPointer<UInt16>) -> Scan {
        let count = buffer.count
        var flags = [UInt8](repeating: 0, count: count + 1)
        var highest: UInt32 = 0
        var rightToLeft = false
        var text = string
        do {
            flags.withUnsafeMutableBufferPointer { flags in
                text.withUTF8 { bytes in
                    var i = 0, out = 0
                    while i < bytes.count && out < count {
                        var scalar = UInt32(bytes[i])
                        if scalar < 0x80 {
                            i += 1
                            if scalar <= 0x20 {
                                switch scalar {
                                case 0x20: flags[out] = UnitFlags.hanging
                                case 0x09:
                                    flags[out] = UnitFlags.hanging
                                    scalar = 0x20
                                case 0x0A...0x0D: flags[out] = UnitFlags.terminator
                                default: break
                                }
                            }
                            buffer[out] = UInt16(scalar)
                            out += 1
                            continue
                        }
                        scalar = decodeScalar(bytes, at: &i)
                        highest = max(highest, scalar)
                        if scalar > 0xFFFF {
                            if (0x10800...0x10FFF).contains(scalar) || (0x1E800...0x1EFFF).contains(scalar) { rightToLeft = true }
                            guard out + 1 < count else { break }
                            buffer[out] = UInt16(0xD800 + ((scalar - 0x10000) >> 10))
                            buffer[out + 1] = UInt16(0xDC00 + ((scalar - 0x10000) & 0x3FF))
                            out += 2
                            continue
                        }
                        switch scalar {
                        case 0x85, 0x2028, 0x2029: flags[out] = UnitFlags.terminator
                        case 0x1680, 0x2000...0x2006, 0x2008...0x200A, 0x205F, 0x3000: flags[out] = UnitFlags.hanging
                        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x200F, 0x202B, 0x202E, 0x2067, 0x061C:
                            rightToLeft = true
                        default: break
                        }
                        buffer[out] = UInt16(scalar)
                        out += 1
                    }
                    // `count` comes from the same string: this only fills a shortfall, never reached.
                    while out < count {
                        buffer[out] = 0x20
                        out += 1
                    }
                }
            }
        }
        return Scan(flags: flags, isASCII: highest < 0x80, needsGraphemeRules: highest >= 0x300, mayHaveRightToLeft: rightToLeft)
    }

    /// The scalar of the multi-byte UTF-8 sequence at `i` (valid: it comes from a String), moving `i` past it.
    @inline(__always)
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> UInt32 {
        let lead = UInt32(bytes[i])
        if lead < 0xE0, i + 1 < bytes.count {
            defer { i += 2 }
            return (lead & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
        }
        if lead < 0xF0, i + 2 < bytes.count {
            defer { i += 3 }
            return (lead & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
        }
        if i + 3 < bytes.count {
            defer { i += 4 }
            return (lead & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F)
        }
        i = bytes.count
        return 0xFFFD
    }

    /// The number of UTF-16 code units of `string`, counted from its UTF-8 (no index breadcrumbs).
    static func utf16Length(of string: String) -> Int {
        var text = string
        return text.withUTF8 { bytes in
            var count = 0
            for byte in bytes where byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
            return count
        }
    }

    /// The longest grapheme cluster shaped, in UTF-16 code units. HarfBuzz's work on one cluster grows
    /// faster than its length (a base with 512K combining marks took 4.8 s) and a cluster cannot be cut into
    /// chunks, so longer ones are refused. Unicode's Stream-Safe Text Format (UAX #15) caps a run of
    /// non-starters at 30; the longest emoji sequences (RGI ZWJ and tag sequences) are under 40 units. 1,024
    /// leaves room for any text written by hand many times over.
    static let maximumClusterLength = 1024

    /// Marks the offsets where grapheme clusters start (and the end); a `.limit` error naming the offset of
    /// the first cluster longer than ``maximumClusterLength``.
    /// Counts the units passed in `stop`.
    static func markGraphemes(_ units: UnsafeBufferPointer<UInt16>, _ scan: inout Scan, scratch: ShapingScratch,
                              stop: inout StopCheck) throws(TextError) {
        let count = units.count
        scan.flags[count] |= UnitFlags.graphemeStart
        guard scan.needsGraphemeRules else {
            for i in 0..<count where i == 0 || !(units[i - 1] == 0x0D && units[i] == 0x0A) {
                scan.flags[i] |= UnitFlags.graphemeStart
            }
            try stop.add(count)
            return
        }
        var status: Int32 = 0
        weft_break_set_text(scratch.graphemes, units.baseAddress, Int32(count), &status)
        guard status <= 0 else { throw icuFailure("grapheme clusters", status) }
        var start = 0
        var boundary = Int(weft_break_first(scratch.graphemes))
        while boundary >= 0 && boundary <= count {
            guard boundary - start <= maximumClusterLength else {
                throw TextError("the grapheme cluster at UTF-16 offset \(start) has \(boundary - start) code units, more than "
                                + "the limit of \(maximumClusterLength)", path: "string", kind: .limit)
            }
            try stop.add(boundary - start)
            if boundary == count { return }
            scan.flags[boundary] |= UnitFlags.graphemeStart
            start = boundary
            boundary = Int(weft_break_next(scratch.graphemes))
        }
    }

    /// The UAX #14 line break opportunities (at grapheme cluster starts only), listed with the end of the
    /// visible text before each (mandatory ones also marked in the flags). The end of the text is always the last one.
    /// Counts the units passed in `stop`.
    static func lineBreaks(_ units: UnsafeBufferPointer<UInt16>, _ scan: inout Scan,
                           scratch: ShapingScratch, stop: inout StopCheck) throws(TextError) -> [BreakOpportunity] {
        let count = units.count
        guard count > 0 else { return [] }
        var status: Int32 = 0
        weft_break_set_text(scratch.lineBreaks, units.baseAddress, Int32(count), &status)
        guard status <= 0 else { throw icuFailure("line breaks", status) }
        var breaks: [BreakOpportunity] = []
        breaks.reserveCapacity(count / 5 + 1)
        var previous = 0
        func add(_ boundary: Int, hard: Bool) {
            if hard { scan.flags[boundary] |= UnitFlags.mandatory }
            var visible = boundary
            while visible > previous && scan.flags[visible - 1] & (UnitFlags.hanging | UnitFlags.terminator) != 0 { visible -= 1 }
            breaks.append(BreakOpportunity(position: Int32(boundary), visibleEnd: Int32(visible), isMandatory: hard))
            previous = boundary
        }
        var boundary = Int(weft_break_next(scratch.lineBreaks))
        var passed = 0
        while boundary > 0 && boundary <= count {
            try stop.add(boundary - passed)
            passed = boundary
            if boundary == count || scan.flags[boundary] & UnitFlags.graphemeStart != 0 {
                add(boundary, hard: weft_break_is_hard(scratch.lineBreaks) != 0)
            }
            boundary = Int(weft_break_next(scratch.lineBreaks))
        }
        if previous != count { add(count, hard: false) }
        return breaks
    }

    /// `result[i]`: how many grapheme clusters start before offset `i`.
    static func graphemeCounts(_ flags: [UInt8]) -> [Int32] {
        [Int32](unsafeUninitializedCapacity: flags.count) { counts, initialized in
            flags.withUnsafeBufferPointer { flags in
                var running: Int32 = 0
                for i in 0..<flags.count {
                    counts[i] = running
                    running &+= Int32(flags[i] & UnitFlags.graphemeStart)
                }
            }
            initialized = flags.count
        }
    }

    static func icuFailure(_ what: String, _ status: Int32) -> TextError {
        TextError("ICU could not find the \(what) (ICU status \(status))", path: "string", kind: .invalid)
    }
}
