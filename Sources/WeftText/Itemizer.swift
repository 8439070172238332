internal import CHarfBuzz
internal import CICU

/// Splits a text into the segments HarfBuzz shapes one at a time: runs of one style run, one bidi direction,
/// one script and one face (the run's face, or a fallback for clusters it has no glyph for).
///
/// Common and inherited characters (spaces, digits, punctuation, marks) take the script of the text before
/// them (at the start, of the first character with a script). A face is chosen per grapheme cluster, as
/// ``FontRegistry`` describes.
struct Itemizer {
    let units: UnsafeBufferPointer<UInt16>
    let flags: [UInt8]
    let runs: [AttributedText.Run]
    let registry: FontRegistry
    /// Each style run's own face.
    let primaries: [Int]
    private var chains: [ChainKey: [Int]] = [:]

    private struct ChainKey: Hashable {
        var run: Int
        var script: UInt32
    }

    static let latin = HB_SCRIPT_LATIN.rawValue
    static let common = HB_SCRIPT_COMMON.rawValue

    init(units: UnsafeBufferPointer<UInt16>, flags: [UInt8], runs: [AttributedText.Run], registry: FontRegistry) throws(TextError) {
        self.units = units
        self.flags = flags
        self.runs = runs
        self.registry = registry
        var primaries: [Int] = []
        primaries.reserveCapacity(runs.count)
        for (index, run) in runs.enumerated() {
            primaries.append(try registry.resolve(family: run.style.family, weight: run.style.weight,
                                                  isItalic: run.style.isItalic, path: "runs[\(index)].style.family"))
        }
        self.primaries = primaries
    }

    /// ASCII text whose runs' faces have every character: one left-to-right Latin segment per style run.
    func asciiSegments() -> [Segment]? {
        var segments: [Segment] = []
        for (index, run) in runs.enumerated() where !run.range.isEmpty {
            let font = registry.font(primaries[index])
            for i in run.range where !font.covers(UInt32(units[i])) && !Self.isControl(units[i]) { return nil }
            segments.append(Segment(start: Int32(run.range.lowerBound), end: Int32(run.range.upperBound), face: Int32(primaries[index]),
                                    styleRun: Int32(index), script: Self.latin, isRightToLeft: false))
        }
        return segments
    }

    /// The segments of any text; `bidi` holds the text's bidi levels when `hasBidi`.
    mutating func segments(bidi: OpaquePointer?) -> [Segment] {
        let count = units.count
        var segments: [Segment] = []
        var run = 0
        var bidiEnd = 0
        var level: UBiDiLevel = 0
        var lastScript = firstScript()
        var i = 0
        while i < count {
            var next = i + 1
            while next < count && flags[next] & UnitFlags.graphemeStart == 0 { next += 1 }
            while runs[run].range.upperBound <= i { run += 1 }
            if let bidi, i >= bidiEnd { bidiEnd = Int(weft_bidi_run_end(bidi, Int32(i), &level)) }
            let unit = units[i]
            var script: UInt32
            var face: Int
            if Self.isControl(unit) {
                // Line terminators and other controls draw nothing: they stay in the face before them.
                script = lastScript
                face = segments.last.map { Int($0.face) } ?? primaries[run]
            } else if unit < 0x80 && next == i + 1 {
                let isLetter = (0x41...0x5A).contains(unit) || (0x61...0x7A).contains(unit)
                script = isLetter ? Self.latin : lastScript
                face = registry.font(primaries[run]).covers(UInt32(unit)) ? primaries[run]
                    : chooseFace(i..<next, base: UInt32(unit), script: script, run: run)
            } else {
                let base = scalar(at: i)
                let found = hb_unicode_script(hb_unicode_funcs_get_default(), base).rawValue
                script = Self.isShared(found) ? lastScript : found
                face = chooseFace(i..<next, base: base, script: script, run: run)
            }
            if script != Self.common { lastScript = script }
            let rightToLeft = level & 1 == 1
            if let last = segments.last, Int(last.end) == i, Int(last.face) == face, Int(last.styleRun) == run,
               last.script == script, last.isRightToLeft == rightToLeft {
                segments[segments.count - 1].end = Int32(next)
            } else {
                segments.append(Segment(start: Int32(i), end: Int32(next), face: Int32(face), styleRun: Int32(run),
                                        script: script, isRightToLeft: rightToLeft))
            }
            i = next
        }
        return segments
    }

    /// The script of the first character that has one (Common when none does).
    private func firstScript() -> UInt32 {
        var i = 0
        while i < units.count {
            let unit = units[i]
            if unit < 0x80 {
                if (0x41...0x5A).contains(unit) || (0x61...0x7A).contains(unit) { return Self.latin }
            } else {
                let found = hb_unicode_script(hb_unicode_funcs_get_default(), scalar(at: i)).rawValue
                if !Self.isShared(found) { return found }
            }
            i += 1
        }
        return Self.common
    }

    /// C0 and C1 controls and the line and paragraph separators.
    static func isControl(_ unit: UInt16) -> Bool {
        unit < 0x20 || (0x7F...0x9F).contains(unit) || unit == 0x2028 || unit == 0x2029
    }

    /// Common, inherited and unknown: scripts a character shares with its neighbours.
    private static func isShared(_ script: UInt32) -> Bool {
        script == common || script == HB_SCRIPT_INHERITED.rawValue || script == HB_SCRIPT_UNKNOWN.rawValue
    }

    /// The scalar at `i` (a lone surrogate reads as U+FFFD).
    private func scalar(at i: Int) -> UInt32 {
        let unit = UInt32(units[i])
        if (0xD800...0xDBFF).contains(unit), i + 1 < units.count {
            let low = UInt32(units[i + 1])
            if (0xDC00...0xDFFF).contains(low) { return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00) }
        }
        return (0xD800...0xDFFF).contains(unit) ? 0xFFFD : unit
    }

    /// The scalars of `range`, in order.
    private func scalars(_ range: Range<Int>) -> [UInt32] {
        var result: [UInt32] = []
        var i = range.lowerBound
        while i < range.upperBound {
            let value = scalar(at: i)
            result.append(value)
            i += value > 0xFFFF ? 2 : 1
        }
        return result
    }

    /// The face for the cluster at `range`: the run's face when it has every character, else the first
    /// fallback that has them all, else the first that has the base character, else the run's face.
    private mutating func chooseFace(_ range: Range<Int>, base: UInt32, script: UInt32, run: Int) -> Int {
        let primary = primaries[run]
        let cluster = range.count == 1 ? [base] : scalars(range)
        let emoji = Self.isEmojiPresentation(cluster)
        if !emoji && covers(primary, cluster) { return primary }
        var candidates = emoji ? chain(run: run, script: FontScript.emoji.tag) + [primary] : []
        candidates += chain(run: run, script: script)
        if let face = candidates.first(where: { covers($0, cluster) }) { return face }
        return ([primary] + candidates).first { registry.font($0).covers(base) } ?? primary
    }

    /// Whether face `index` has a glyph for every character of the cluster but joiners and selectors.
    private func covers(_ index: Int, _ cluster: [UInt32]) -> Bool {
        let font = registry.font(index)
        return cluster.allSatisfy { Self.isInvisibleJoiner($0) || font.covers($0) }
    }

    private static func isInvisibleJoiner(_ scalar: UInt32) -> Bool {
        scalar == 0x200C || scalar == 0x200D || (0xFE00...0xFE0F).contains(scalar) || (0xE0100...0xE01EF).contains(scalar)
    }

    /// Whether a cluster is shown as emoji: it asks for it (U+FE0F), or its first character is emoji by
    /// default (Emoji_Presentation, or a regional indicator of a flag) and it does not ask for text (U+FE0E).
    static func isEmojiPresentation(_ cluster: [UInt32]) -> Bool {
        if cluster.contains(0xFE0E) { return false }
        if cluster.contains(0xFE0F) { return true }
        guard let base = cluster.first, base >= 0xA9 else { return false }
        return weft_has_emoji_presentation(Int32(bitPattern: base)) != 0 || weft_is_regional_indicator(Int32(bitPattern: base)) != 0
    }

    /// The fallback faces for `script` in run `run`'s weight and slant (memoized).
    private mutating func chain(run: Int, script: UInt32) -> [Int] {
        let key = ChainKey(run: run, script: script)
        if let chain = chains[key] { return chain }
        let style = runs[run].style
        let chain = registry.fallbackChain(for: FontScript(tag: script), weight: style.weight, isItalic: style.isItalic)
        chains[key] = chain
        return chain
    }
}

extension FontScript {
    /// The code as HarfBuzz's four-byte tag.
    var tag: UInt32 { code.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
}
