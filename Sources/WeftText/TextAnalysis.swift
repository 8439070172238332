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

    /// Hanging spaces, line terminators, and what the text contains.
    static func scan(_ units: UnsafeBufferPointer<UInt16>) -> Scan {
        var flags = [UInt8](repeating: 0, count: units.count + 1)
        var highest: UInt16 = 0
        var rightToLeft = false
        for (i, unit) in units.enumerated() {
            highest = max(highest, unit)
            if unit < 0x80 {
                if unit == 0x20 || unit == 0x09 { flags[i] = UnitFlags.hanging } else if (0x0A...0x0D).contains(unit) { flags[i] = UnitFlags.terminator }
                continue
            }
            switch unit {
            case 0x85, 0x2028, 0x2029: flags[i] = UnitFlags.terminator
            case 0x1680, 0x2000...0x2006, 0x2008...0x200A, 0x205F, 0x3000: flags[i] = UnitFlags.hanging
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x200F, 0x202B, 0x202E, 0x2067, 0x061C,
                 0xD802...0xD803, 0xD83A...0xD83B:
                rightToLeft = true
            default: break
            }
        }
        return Scan(flags: flags, isASCII: highest < 0x80, needsGraphemeRules: highest >= 0x300, mayHaveRightToLeft: rightToLeft)
    }

    /// Marks the offsets where grapheme clusters start (and the end).
    static func markGraphemes(_ units: UnsafeBufferPointer<UInt16>, _ scan: inout Scan, scratch: ShapingScratch) throws(TextError) {
        let count = units.count
        scan.flags[count] |= UnitFlags.graphemeStart
        guard scan.needsGraphemeRules else {
            for i in 0..<count where i == 0 || !(units[i - 1] == 0x0D && units[i] == 0x0A) {
                scan.flags[i] |= UnitFlags.graphemeStart
            }
            return
        }
        var status = U_ZERO_ERROR
        weft_break_set_text(scratch.graphemes, units.baseAddress, Int32(count), &status)
        guard status.rawValue <= U_ZERO_ERROR.rawValue else { throw icuFailure("grapheme clusters", status) }
        var boundary = weft_break_first(scratch.graphemes)
        while boundary >= 0 && Int(boundary) < count {
            scan.flags[Int(boundary)] |= UnitFlags.graphemeStart
            boundary = weft_break_next(scratch.graphemes)
        }
    }

    /// The UAX #14 line break opportunities (at grapheme cluster starts only), marked in the flags and listed
    /// with the end of the visible text before each. The end of the text is always the last one.
    static func lineBreaks(_ units: UnsafeBufferPointer<UInt16>, _ scan: inout Scan,
                           scratch: ShapingScratch) throws(TextError) -> [BreakOpportunity] {
        let count = units.count
        guard count > 0 else { return [] }
        var status = U_ZERO_ERROR
        weft_break_set_text(scratch.lineBreaks, units.baseAddress, Int32(count), &status)
        guard status.rawValue <= U_ZERO_ERROR.rawValue else { throw icuFailure("line breaks", status) }
        var breaks: [BreakOpportunity] = []
        breaks.reserveCapacity(count / 5 + 1)
        var previous = 0
        var boundary = Int(weft_break_next(scratch.lineBreaks))
        while boundary > 0 && boundary <= count {
            let hard = weft_break_is_hard(scratch.lineBreaks) != 0
            if boundary == count || scan.flags[boundary] & UnitFlags.graphemeStart != 0 {
                scan.flags[boundary] |= UnitFlags.breakAllowed | (hard ? UnitFlags.mandatory : 0)
                var visible = boundary
                while visible > previous && scan.flags[visible - 1] & (UnitFlags.hanging | UnitFlags.terminator) != 0 { visible -= 1 }
                breaks.append(BreakOpportunity(position: Int32(boundary), visibleEnd: Int32(visible), isMandatory: hard))
                previous = boundary
            }
            boundary = Int(weft_break_next(scratch.lineBreaks))
        }
        if breaks.last?.position != Int32(count) {
            breaks.append(BreakOpportunity(position: Int32(count), visibleEnd: Int32(count), isMandatory: false))
        }
        return breaks
    }

    /// `result[i]`: how many grapheme clusters start before offset `i`.
    static func graphemeCounts(_ flags: [UInt8]) -> [Int32] {
        var counts = [Int32](repeating: 0, count: flags.count)
        var running: Int32 = 0
        for i in 0..<flags.count {
            counts[i] = running
            if flags[i] & UnitFlags.graphemeStart != 0 { running += 1 }
        }
        return counts
    }

    static func icuFailure(_ what: String, _ status: UErrorCode) -> TextError {
        TextError("ICU could not find the \(what) (ICU status \(status.rawValue))", path: "string", kind: .invalid)
    }
}
