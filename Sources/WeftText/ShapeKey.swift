/// What a shaped paragraph depends on: the string, and for each style run its extent, family, weight, slant,
/// features and whether letter spacing is on (which turns ligatures off). Not point sizes, line heights,
/// the amount of spacing, or paragraph options: those apply after shaping.
///
/// The hash is computed once, when the key is made, so that a cache probe hashes nothing under its lock.
struct ShapeKey: Hashable, Sendable {
    let string: String
    let runs: [AttributedText.Run]
    private let hash: Int

    init(_ text: AttributedText) {
        string = text.string
        runs = text.runs
        var hasher = Hasher()
        hasher.combine(string)
        for run in runs {
            hasher.combine(run.range.upperBound)
            Self.hashShaping(run.style, into: &hasher)
        }
        hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func == (lhs: ShapeKey, rhs: ShapeKey) -> Bool {
        guard lhs.hash == rhs.hash, lhs.runs.count == rhs.runs.count, lhs.string == rhs.string else { return false }
        for (left, right) in zip(lhs.runs, rhs.runs) {
            guard left.range == right.range, shapesAlike(left.style, right.style) else { return false }
        }
        return true
    }

    /// About how many bytes the key holds.
    var byteSize: Int { 64 + string.utf8.count + runs.count * 96 }

    private static func hashShaping(_ style: TextStyle, into hasher: inout Hasher) {
        hasher.combine(style.family)
        hasher.combine(style.weight)
        hasher.combine(style.isItalic)
        hasher.combine(style.letterSpacing != 0)
        hasher.combine(style.features)
    }

    private static func shapesAlike(_ left: TextStyle, _ right: TextStyle) -> Bool {
        left.family == right.family && left.weight == right.weight && left.isItalic == right.isItalic
            && (left.letterSpacing != 0) == (right.letterSpacing != 0) && left.features == right.features
    }
}
