extension Layout {
    /// Computes the layout of `element` for `range`, rounded to the pixel grid of `scale` (default 2).
    ///
    /// The root's parent size is the range's max, as in Texture's `ASCalculateRootLayout`. Throws if the range
    /// or scale is invalid, if an element holds a value that cannot be laid out, or if the layout places an
    /// element beyond ±``positionLimit`` points (finite but huge input, such as a spacing of 1e308, whose
    /// positions would overflow to infinity); the error's path starts at `root`. MAY be called from any
    /// thread, concurrently, for any elements.
    public static func compute(_ element: any LayoutElement, in range: SizeRange, scale: Double = 2) throws(LayoutError) -> Layout {
        var builder = LayoutBuilder(scale: scale)
        return try compute(element, in: range, using: &builder)
    }

    /// Computes a layout in a builder the caller keeps for reuse; the builder is reset first.
    public static func compute(_ element: any LayoutElement, in range: SizeRange, using builder: inout LayoutBuilder) throws(LayoutError) -> Layout {
        if let problem = range.problem { throw LayoutError(problem, path: "sizeRange") }
        if let problem = PixelGrid.problem(scale: builder.grid.scale) { throw LayoutError(problem, path: "scale") }
        builder.reset()
        let root: LayoutRef
        do {
            root = try element.layout(range, parentSize: range.max, in: &builder)
        } catch {
            throw error.within("root")
        }
        let (layout, positionsInRange) = builder.finishCheckingPositions(root)
        if !positionsInRange { try builder.checkPositions(under: root) }
        return layout
    }

    /// How far from the root's origin a position may lie, in points, on either axis: `CGFLOAT_MAX / 2`, the
    /// bound of Texture's `ASIsCGPositionValidForLayout`. Within it, every position (and every difference
    /// of two positions, which relative frames are) is a finite number, so output such as JSON stays valid.
    public static let positionLimit: Double = 8.988465674311579e307

    /// Whether both coordinates of `point` lie within ±``positionLimit`` (NaN does not).
    @inlinable
    static func isInRange(_ point: Point) -> Bool {
        abs(point.x) < 8.988465674311579e307 && abs(point.y) < 8.988465674311579e307
    }
}

extension LayoutBuilder {
    /// Throws if the layout under `root` places an element beyond ±``Layout/positionLimit`` points from the
    /// root, naming the first such element in spec order (`root.children[1].child`...).
    ///
    /// Positions are computed and rounded as ``finish(_:)`` computes them. ``Layout/compute(_:in:scale:)``
    /// calls this only when finishing found a position out of range; code that finishes layouts itself (the
    /// node layer's ``finishFlattened(_:)``) may call it first. Work grows linearly with the tree.
    public func checkPositions(under root: LayoutRef) throws(LayoutError) {
        func visit(_ index: Int32, origin: Point, path: String) -> (path: String, position: Point)? {
            let record = records[Int(index)]
            let rounded = Point(x: grid.ceil(origin.x), y: grid.ceil(origin.y))
            if !Layout.isInRange(rounded) { return (path, rounded) }
            for e in 0..<Int(record.edgeCount) {
                let child = edges[Int(record.edgeStart) + e]
                let place = path + "." + placeOfSublayout(record.source, e)
                if let found = visit(child, origin: origin + records[Int(child)].position, path: place) { return found }
            }
            return nil
        }
        guard let (path, position) = visit(root.index, origin: .zero, path: "root") else { return }
        throw LayoutError(
            "the layout places this element at \(position), beyond the ±\(formatPoints(Layout.positionLimit)) "
                + "points a position may lie from the root", path: path)
    }
}
