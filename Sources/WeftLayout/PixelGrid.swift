/// Rounding of lengths to the pixel grid of a screen scale (points times scale gives pixels).
///
/// Texture rounds layout sizes up (`ASCeilPixelValue`), centers with round (`ASRoundPixelValue`) and aligns
/// centered stack children and ratios down (`ASFloorPixelValue`). As in Texture since issue #838, the ceiling
/// subtracts `Float.ulpOfOne` (FLT_EPSILON) first and the floor adds it first, so that floating-point noise
/// does not move a value by a pixel: 100.666666666669 at scale 3 rounds up to 100.666..., not 101, and
/// 0.57 x 400 = 227.99999999999997 at scale 2 rounds down to 228, not 227.5. Rounding to the nearest pixel
/// has no epsilon.
///
/// A result of zero is always +0: rounding up a value just above -1 pixel (0 itself, less the epsilon) gives
/// -0, which positions and sizes would otherwise carry on and print as `-0.0`.
public struct PixelGrid: Hashable, Sendable {
    /// Pixels per point. Default 2, the scale of the devices Texture's figures come from.
    public let scale: Double

    public init(scale: Double = 2) {
        self.scale = scale
    }

    @inlinable
    public func ceil(_ value: Double) -> Double {
        // (+ 0 turns -0 into +0 and changes nothing else.)
        ((value - Double(Float.ulpOfOne)) * scale).rounded(.up) / scale + 0
    }

    /// `size` as a layout records it: each dimension rounded up to the grid, or 0x0 if it is not a valid size
    /// (``Size/isValid``), as Texture's `ASLayout` does in release builds.
    @inlinable @inline(__always)
    public func sanitized(_ size: Size) -> Size {
        guard size.isValid else { return .zero }
        return Size(width: Swift.max(ceil(size.width), 0), height: Swift.max(ceil(size.height), 0))
    }

    @inlinable
    public func floor(_ value: Double) -> Double {
        ((value + Double(Float.ulpOfOne)) * scale).rounded(.down) / scale + 0
    }

    @inlinable
    public func round(_ value: Double) -> Double {
        (value * scale).rounded(.toNearestOrAwayFromZero) / scale + 0
    }

    /// The scales layouts accept: 0.01 to 10,000 pixels per point.
    ///
    /// Screens have 1 to 4 pixels per point; 10,000 leaves room for rounding finer than any screen while every
    /// valid size (below 1e7, see ``Size/isValid``) times the scale stays finite, so rounding never
    /// turns a size into infinity (a scale of 1e308 would). Below 0.01 a pixel would be over 100 points wide.
    public static let scales: ClosedRange<Double> = 0.01...10_000

    /// Why `scale` cannot be used, or nil: it must be a number within ``scales``.
    public static func problem(scale: Double) -> String? {
        if scales.contains(scale) { return nil }
        return "expected a scale from 0.01 to 10000 pixels per point, got \(formatPoints(scale))"
    }
}
