#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a shaped paragraph depends on: the string, and for each style run its extent, family, weight, slant,
/// features and whether letter spacing is on (which turns ligatures off). Not point sizes, line heights,
/// the amount of spacing, or paragraph options: those apply after shaping.
///
/// Strings are compared by their UTF-8 code units, not by Swift's `==` (canonical equivalence): "é" and
/// "e" + U+0301 are equal Strings, but they shape differently and have different UTF-16 offsets. This is
/// also much faster than hashing and comparing normalized strings. The hash is computed once, when the key
/// is made, so that a cache probe hashes nothing under its lock.
struct ShapeKey: Hashable, Sendable {
    let string: String
    let runs: [AttributedText.Run]
    private let hash: Int

    init(_ text: AttributedText) {
        var string = text.string
        runs = text.runs
        var hasher = Hasher()
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        self.string = string
        for run in runs {
            hasher.combine(run.range.upperBound)
            Self.hashShaping(run.style, into: &hasher)
        }
        hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func == (lhs: ShapeKey, rhs: ShapeKey) -> Bool {
        guard lhs.hash == rhs.hash, lhs.runs.count == rhs.runs.count, sameCodeUnits(lhs.string, rhs.string) else { return false }
        for (left, right) in zip(lhs.runs, rhs.runs) {
            guard left.range == right.range, shapesAlike(left.style, right.style) else { return false }
        }
        return true
    }

    /// Whether two strings have the same UTF-8 code units.
    private static func sameCodeUnits(_ left: String, _ right: String) -> Bool {
        var left = left, right = right
        return left.withUTF8 { a in
            right.withUTF8 { b in
                guard a.count == b.count, let first = a.baseAddress, let second = b.baseAddress else { return a.count == b.count }
                return memcmp(first, second, a.count) == 0
            }
        }
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
