/// Which lengths count as sizes, by Texture's rule (`ASPointsValidForSize` and `ASIsCGSizeValidForSize`).
///
/// A length is a valid size when it is zero or a normal number, not negative, and below 10,000,000 points
/// (1e7, which Texture picked so that Yoga's undefined, 1e21, is not a size). Anything else is treated like
/// infinity where Texture checks it: a range's max that is not a valid size is unbounded (a leaf measures 0x0
/// under it, and relative, center, absolute, ratio and corner specs give their children an undefined parent
/// size there), and a layout whose size is not valid is recorded as 0x0. So a max of 2e7, or `CGFLOAT_MAX`
/// (which Texture's own tests pass as a max), behaves like infinity.
extension Size {
    /// 1e7: the first length that is not a valid size.
    public static let sizeLimit: Double = 10_000_000

    /// Whether `points` is a valid size: 0 or a normal number, >= 0 and below ``sizeLimit``.
    @inlinable
    public static func isValid(_ points: Double) -> Bool {
        // Texture's `(isnormal(points) || points == 0) && points >= 0 && points < 10000000`, in at most
        // three comparisons.
        points == 0 || (points >= .leastNormalMagnitude && points < 10_000_000)
    }

    /// Whether both dimensions are valid sizes (Texture's `ASIsCGSizeValidForSize`).
    @inlinable
    public var isValid: Bool {
        Size.isValid(width) && Size.isValid(height)
    }

    /// This size with every dimension that is not a valid size made NaN ("undefined"), the parent size that
    /// specs whose own size depends on their content hand to their children (Texture's
    /// `ASLayoutElementParentDimensionUndefined`).
    @inlinable
    public var definedParentSize: Size {
        Size(
            width: Size.isValid(width) ? width : .nan,
            height: Size.isValid(height) ? height : .nan)
    }
}
