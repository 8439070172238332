/// A text shaped once, from which lines are broken at any width without shaping again: what the cache keeps.
///
/// Everything is in ems and offsets, independent of point sizes and letter spacing, so one entry serves every
/// size and spacing of the same text, fonts and features. Offsets are UTF-16 code units.
///
/// - `advances[i]`: the advance of the text before offset `i`, in ems of each run's font (a ligature's
///   advance is split evenly between the grapheme clusters it covers);
/// - `graphemes[i]`: the number of grapheme clusters that start before offset `i` (for letter spacing);
/// - `flags[i]`: ``UnitFlags`` of offset `i` (`i == length` is the end);
/// - `breaks`: the UAX #14 line break opportunities, with where the visible text before each ends;
/// - `segments`: the runs of one face, style run, script and direction, as shaped.
///
/// Immutable once made, so threads share it freely.
final class ShapedParagraph: Sendable {
    let length: Int
    let advances: [Double]
    let graphemes: [Int32]
    let flags: [UInt8]
    let breaks: [BreakOpportunity]
    let segments: [Segment]

    init(length: Int, advances: [Double], graphemes: [Int32], flags: [UInt8], breaks: [BreakOpportunity], segments: [Segment]) {
        self.length = length
        self.advances = advances
        self.graphemes = graphemes
        self.flags = flags
        self.breaks = breaks
        self.segments = segments
    }

    /// About how many bytes the entry holds, for the cache's bound.
    var byteSize: Int {
        256 + advances.count * 8 + graphemes.count * 4 + flags.count
            + breaks.count * MemoryLayout<BreakOpportunity>.stride + segments.count * MemoryLayout<Segment>.stride
    }

    /// The index of the segment holding `offset` (the last one at the end).
    func segmentIndex(at offset: Int) -> Int {
        var low = 0, high = segments.count - 1
        while low < high {
            let middle = (low + high) / 2
            if Int(segments[middle].end) <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where the text before `offset` ends without the line terminator just before it.
    func contentEnd(before offset: Int, from start: Int) -> Int {
        var end = offset
        while end > start && flags[end - 1] & UnitFlags.terminator != 0 { end -= 1 }
        return end
    }
}

/// Facts about one UTF-16 offset of a shaped paragraph, as bits.
enum UnitFlags {
    /// A grapheme cluster starts here (also set at the end).
    static let graphemeStart: UInt8 = 1
    /// UAX #14 requires a line break before this offset (after a line terminator).
    static let mandatory: UInt8 = 4
    /// The unit here is a space that hangs past the end of a line (not measured there).
    static let hanging: UInt8 = 8
    /// The unit here ends a line (LF, CR, VT, FF, NEL, LS, PS).
    static let terminator: UInt8 = 16
    /// A HarfBuzz cluster starts here (set while shaping).
    static let clusterStart: UInt8 = 32
}

/// A place where a line may (or must) end.
struct BreakOpportunity: Hashable, Sendable {
    /// The offset the next line starts at.
    var position: Int32
    /// The end of the visible text before it: without hanging spaces and line terminators.
    var visibleEnd: Int32
    var isMandatory: Bool
}

/// A run of text shaped in one go: one face, one style run, one script, one direction.
struct Segment: Hashable, Sendable {
    var start: Int32
    var end: Int32
    /// The face's index in the registry.
    var face: Int32
    /// The index of the text's style run.
    var styleRun: Int32
    /// HarfBuzz's script tag.
    var script: UInt32
    var isRightToLeft: Bool
}
