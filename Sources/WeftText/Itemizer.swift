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
    /// Each style run's own face, and its font.
    let primaries: [Int]
    private let primaryFonts: [ShapingFont]
    private var chains: [ChainKey: [Int]] = [:]
    /// Faces chosen for single-character clusters, by character, script and style run (direct-mapped, made
    /// on first use).
    private var memo: [Memo] = []

    private struct Memo {
        var scalar: UInt32 = 0
        var script: UInt32 = 0
        var run: Int32 = -1
        var face: Int32 = 0
    }

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
        primaryFonts = primaries.map { registry.font($0) }
    }

    /// ASCII text whose runs' faces have every character: one left-to-right Latin segment per style run.
    func asciiSegments() -> [Segment]? {
        var segments: [Segment] = []
        for (index, run) in runs.enumerated() where !run.range.isEmpty {
            let font = primaryFonts[index]
            for i in run.range where !font.covers(UInt32(units[i])) && !Self.isControl(units[i]) { return nil }
            segments.append(Segment(start: Int32(run.range.lowerBound), end: Int32(run.range.upperBound), face: Int32(primaries[index]),
                                    styleRun: Int32(index), script: Self.latin, isRightToLeft: false))
        }
        return segments
    }

    /// The segments of any text; `levels` holds each unit's bidi level, or nil when the text is all left to
    /// right. Counts the units passed in `stop`.
    mutating func segments(levels: LevelRuns?, stop: inout StopCheck) throws(TextError) -> [Segment] {
        let count = units.count
        var segments: [Segment] = []
        var run = 0
        var bidi = levels
        // The end of the level run holding `i`, and its level.
        var bidiEnd = count
        var level: UInt8 = 0
        var lastScript = firstScript()
        var i = 0
        while i < count {
            while runs[run].range.upperBound <= i { run += 1 }
            if var walk = bidi, i >= walk.end {
                walk.advance(to: i)
                (bidi, bidiEnd, level) = (walk, walk.end, walk.level)
            }
            // Latin letters and ASCII (one cluster each) that continue a Latin segment in the run's own face: one
            // sweep. (ASCII punctuation is Common, which takes the Latin before it.)
            if lastScript == Self.latin, let last = segments.last, Int(last.end) == i, Int(last.styleRun) == run,
               Int(last.face) == primaries[run], last.script == Self.latin, last.isRightToLeft == (level & 1 == 1) {
                let limit = min(runs[run].range.upperBound, bidiEnd)
                let font = primaryFonts[run]
                var end = i
                while end < limit, Self.isLatinOrASCII(units[end]), flags[end + 1] & UnitFlags.graphemeStart != 0,
                      font.covers(UInt32(units[end])) {
                    end += 1
                }
                if end > i {
                    try stop.add(end - i)
                    segments[segments.count - 1].end = Int32(end)
                    i = end
                    continue
                }
            }
            var next = i + 1
            while next < count && flags[next] & UnitFlags.graphemeStart == 0 { next += 1 }
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
                face = primaryFonts[run].covers(UInt32(unit)) ? primaries[run]
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
            try stop.add(next - i)
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

    /// Printable ASCII, and the letters of Latin-1 Supplement and Latin Extended-A and B (script Latin).
    @inline(__always)
    static func isLatinOrASCII(_ unit: UInt16) -> Bool {
        (0x20..<0x7F).contains(unit) || ((0xC0..<0x250).contains(unit) && unit != 0xD7 && unit != 0xF7)
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

    /// The face for the cluster at `range`: the run's face when it has every character, else the first
    /// fallback that has them all, else the first that has the base character, else the run's face.
    /// Single-character clusters are memoized: text repeats its characters.
    private mutating func chooseFace(_ range: Range<Int>, base: UInt32, script: UInt32, run: Int) -> Int {
        let single = range.count == (base > 0xFFFF ? 2 : 1)
        let slot = Int(truncatingIfNeeded: (UInt64(base) &* 0x9E37_79B9 ^ UInt64(run) ^ UInt64(script)) & 255)
        if single {
            if memo.isEmpty { memo = Array(repeating: Memo(), count: 256) }
            let entry = memo[slot]
            if entry.scalar == base && entry.script == script && entry.run == Int32(run) { return Int(entry.face) }
        }
        let face = findFace(range, base: base, script: script, run: run)
        if single { memo[slot] = Memo(scalar: base, script: script, run: Int32(run), face: Int32(face)) }
        return face
    }

    private mutating func findFace(_ range: Range<Int>, base: UInt32, script: UInt32, run: Int) -> Int {
        let primary = primaries[run]
        let emoji = isEmojiPresentation(range, base: base)
        if !emoji && covers(primary, range) { return primary }
        var candidates = emoji ? chain(run: run, script: FontScript.emoji.tag) + [primary] : []
        candidates += chain(run: run, script: script)
        if let face = candidates.first(where: { covers($0, range) }) { return face }
        return ([primary] + candidates).first { registry.font($0).covers(base) } ?? primary
    }

    /// Calls `body` with each scalar of `range` until it returns false; whether it never did.
    private func allScalars(_ range: Range<Int>, _ body: (UInt32) -> Bool) -> Bool {
        var i = range.lowerBound
        while i < range.upperBound {
            let value = scalar(at: i)
            guard body(value) else { return false }
            i += value > 0xFFFF ? 2 : 1
        }
        return true
    }

    /// Whether face `index` has a glyph for every character of the cluster but joiners and selectors.
    private func covers(_ index: Int, _ range: Range<Int>) -> Bool {
        let font = registry.font(index)
        return allScalars(range) { Self.isInvisibleJoiner($0) || font.covers($0) }
    }

    private static func isInvisibleJoiner(_ scalar: UInt32) -> Bool {
        scalar == 0x200C || scalar == 0x200D || (0xFE00...0xFE0F).contains(scalar) || (0xE0100...0xE01EF).contains(scalar)
    }

    /// Whether a cluster is shown as emoji: it asks for it (U+FE0F), or its first character is emoji by
    /// default (Emoji_Presentation, or a regional indicator of a flag) and it does not ask for text (U+FE0E).
    func isEmojiPresentation(_ range: Range<Int>, base: UInt32) -> Bool {
        var selector: UInt32 = 0
        if range.count > 1 {
            _ = allScalars(range) { scalar in
                if scalar == 0xFE0E || scalar == 0xFE0F { selector = scalar }
                return selector == 0
            }
        }
        if selector != 0 { return selector == 0xFE0F }
        // Nothing below U+231A (WATCH) is emoji by default.
        guard base >= 0x231A else { return false }
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

/// The bidi level runs of a text (maximal spans of one level), walked forward once: however often and
/// wherever the walk is asked for the run holding an offset, each unit's level is read at most once.
struct LevelRuns {
    let levels: UnsafeBufferPointer<UInt8>
    /// The end of the run holding the last offset asked for, and its level.
    private(set) var end = 0
    private(set) var level: UInt8 = 0
    /// The levels read so far: the walk's work.
    private(set) var reads = 0

    init(_ levels: UnsafeBufferPointer<UInt8>) {
        self.levels = levels
    }

    /// Moves to the run holding `offset`, which is at or after the current run's end.
    mutating func advance(to offset: Int) {
        level = levels[offset]
        end = offset + 1
        reads += 1
        while end < levels.count && levels[end] == level {
            end += 1
            reads += 1
        }
    }
}

extension FontScript {
    /// The code as HarfBuzz's four-byte tag.
    var tag: UInt32 { code.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
}
