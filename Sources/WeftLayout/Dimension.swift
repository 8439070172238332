/// A length that is resolved against a parent's length when a layout is computed.
///
/// Texture's `ASDimension`: `auto` has no opinion, `points` is an absolute length and `fraction` is a share of
/// the parent's length (0.5 is 50%). Parsed from strings such as `"12pt"`, `"50%"` and `"auto"`.
public enum Dimension: Hashable, Sendable, CustomStringConvertible {
    case auto
    case points(Double)
    case fraction(Double)

    /// Whether this is `.auto` (matched: inlined anywhere, where the synthesized `==` is a call).
    @inlinable
    public var isAuto: Bool {
        if case .auto = self { return true }
        return false
    }

    /// Resolves this dimension against `parent`, using `autoValue` for `.auto`: how minimums, maximums and
    /// flexBasis resolve.
    ///
    /// A fraction of an undefined parent length (NaN: the parent's size depends on its content) or of an
    /// unbounded one (infinity) resolves as `.auto` would. Texture computes NaN or infinity there and leaves
    /// the result undefined (an infinite minimum, or a NaN bound).
    @inlinable
    public func resolve(parent: Double, auto autoValue: Double) -> Double {
        switch self {
        case .auto:
            return autoValue
        case .points(let value):
            return value
        case .fraction(let value):
            return parent.isFinite ? value * parent : autoValue
        }
    }

    /// Resolves this dimension as an exact size (a style's `width` or `height`) against `parent`; NaN for none.
    ///
    /// A fraction of an unbounded parent is infinity here, as in Texture (`ASDimensionResolve`): the element's
    /// maximum clamps it, so 10% of an unbounded width with a maxWidth of 107 is 107 (``LayoutStyle``
    /// treats an infinite exact size under an unbounded maximum as none). 0% of it is NaN, none, as in Texture.
    /// A fraction of an undefined parent (NaN) is none too.
    @inlinable
    public func resolveExact(parent: Double) -> Double {
        switch self {
        case .auto:
            return .nan
        case .points(let value):
            return value
        case .fraction(let value):
            return value * parent
        }
    }

    /// Parses `"auto"`, `"<number>pt"`, `"<number>%"` or a bare number (points); the empty string (or only
    /// spaces) is `auto`, as Texture's `ASDimensionMake(@"")` makes it.
    ///
    /// Returns nil for anything else; callers turn that into an error that names where the text came from.
    /// Validity of the number (finite, not negative, a fraction within [0, 1]) is checked by ``problem``.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        // (Hexadecimal, which `Double(_:)` reads, is not a number this format promises: "0x10pt" was 16 points.)
        if trimmed.utf8.contains(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") }) { return nil }
        if trimmed == "auto" || trimmed.isEmpty {
            self = .auto
        } else if trimmed.hasSuffix("pt"), let value = Double(trimmed.dropLast(2)) {
            self = .points(value)
        } else if trimmed.hasSuffix("%"), let value = Double(trimmed.dropLast(1)) {
            self = .fraction(value / 100)
        } else if let value = Double(trimmed) {
            self = .points(value)
        } else {
            return nil
        }
    }

    /// Why this dimension cannot be used, or nil if it can: points must be finite and not negative, fractions
    /// must lie within [0, 1].
    public var problem: String? {
        switch self {
        case .auto:
            return nil
        case .points(let value):
            if value.isNaN { return "expected a number of points, got NaN" }
            if value.isInfinite { return "expected a finite number of points, got \(formatPoints(value))" }
            if value < 0 { return "expected a number of points >= 0, got \(formatPoints(value))" }
            return nil
        case .fraction(let value):
            if value.isNaN { return "expected a percentage, got NaN" }
            if !(0...1).contains(value) {
                return "expected a percentage between 0% and 100%, got \(formatPoints(value * 100))%"
            }
            return nil
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .points(let value): return "\(formatPoints(value))pt"
        case .fraction(let value): return "\(formatPoints(value * 100))%"
        }
    }
}

extension String {
    func trimmingSpaces() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " { slice.removeFirst() }
        while let last = slice.last, last == " " { slice.removeLast() }
        return slice
    }
}
