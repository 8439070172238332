/// An inclusive range of sizes: the constraint a layout is computed for.
///
/// Texture's `ASSizeRange`. The maximum may be infinite in either dimension (unbounded); the minimum is
/// always finite. A range whose minimum exceeds its maximum, or that holds NaN or a negative number, is
/// invalid: ``validated(min:max:)`` reports why, and layout entry points refuse it.
public struct SizeRange: Hashable, Sendable, CustomStringConvertible {
    public var min: Size
    public var max: Size

    /// Creates a range without checking it. Use ``validated(min:max:)`` for input from outside.
    @inlinable
    public init(min: Size, max: Size) {
        self.min = min
        self.max = max
    }

    /// A range holding exactly one size.
    @inlinable
    public init(exactly size: Size) {
        self.init(min: size, max: size)
    }

    /// From zero to infinity in both dimensions.
    public static let unconstrained = SizeRange(min: .zero, max: .infinite)

    /// Creates a range after checking it: no NaN, no negative numbers, a finite minimum, min <= max.
    public static func validated(min: Size, max: Size) throws(LayoutError) -> SizeRange {
        let range = SizeRange(min: min, max: max)
        if let problem = range.problem {
            throw LayoutError(problem, path: "sizeRange")
        }
        return range
    }

    /// Why this range cannot be laid out in, or nil if it can.
    public var problem: String? {
        // The common case first, in plain compares: the strings below were made (and dropped) on every check.
        if isProper { return nil }
        if let problem = Self.problem(min.width, "min.width", maxAllowed: false)
            ?? Self.problem(min.height, "min.height", maxAllowed: false)
            ?? Self.problem(max.width, "max.width", maxAllowed: true)
            ?? Self.problem(max.height, "max.height", maxAllowed: true) {
            return problem
        }
        if min.width > max.width {
            return "min.width \(formatPoints(min.width)) is above max.width \(formatPoints(max.width))"
        }
        if min.height > max.height {
            return "min.height \(formatPoints(min.height)) is above max.height \(formatPoints(max.height))"
        }
        return nil
    }

    /// Whether the range can be laid out in (``problem`` is nil): finite minimums from 0 up, maximums from them
    /// up (infinity allowed). NaN fails every compare.
    var isProper: Bool {
        min.width >= 0 && min.height >= 0 && min.width < .infinity && min.height < .infinity
            && max.width >= min.width && max.height >= min.height
    }

    private static func problem(_ value: Double, _ name: String, maxAllowed infinite: Bool) -> String? {
        if value.isNaN { return "\(name) is NaN" }
        if value < 0 { return "\(name) is negative (\(formatPoints(value)))" }
        if value.isInfinite && !infinite { return "\(name) must be finite" }
        return nil
    }

    /// `size` clamped into this range in each dimension (Texture's `ASSizeRangeClamp`).
    @inlinable
    public func clamp(_ size: Size) -> Size {
        Size(
            width: Swift.max(min.width, Swift.min(max.width, size.width)),
            height: Swift.max(min.height, Swift.min(max.height, size.height))
        )
    }

    /// The overlap of this range and `other`, per dimension.
    ///
    /// Where the two ranges do not overlap in a dimension, this range wins: the result collapses to the edge of
    /// this range nearest to `other` (its max if `other` lies above, its min if below), as in Texture's
    /// `ASSizeRangeIntersect`.
    @inlinable @inline(__always)
    public func intersection(_ other: SizeRange) -> SizeRange {
        let w = Self.intersect(min.width, max.width, other.min.width, other.max.width)
        let h = Self.intersect(min.height, max.height, other.min.height, other.max.height)
        return SizeRange(min: Size(width: w.0, height: h.0), max: Size(width: w.1, height: h.1))
    }

    @inlinable
    static func intersect(_ min0: Double, _ max0: Double, _ min1: Double, _ max1: Double) -> (Double, Double) {
        let lower = Swift.max(min0, min1)
        let upper = Swift.min(max0, max1)
        if lower <= upper { return (lower, upper) }
        return min0 < min1 ? (max0, max0) : (min0, min0)
    }

    /// The intersection with ``unconstrained`` (what an all-`auto` style narrows a range to): a proper range as it
    /// is, an inverted axis (max below min) turned into its minimum. Spelled out with constants (the static
    /// `unconstrained` was read through its lazy initializer's guard on every call).
    @inlinable @inline(__always)
    public var withinUnconstrained: SizeRange {
        let w = Self.intersect(min.width, max.width, 0, .infinity)
        let h = Self.intersect(min.height, max.height, 0, .infinity)
        return SizeRange(min: Size(width: w.0, height: h.0), max: Size(width: w.1, height: h.1))
    }

    public var description: String { "\(min)...\(max)" }
}
