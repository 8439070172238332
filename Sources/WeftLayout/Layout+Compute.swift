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
        if !positionsInRange, let (path, position) = builder.firstPositionOutOfRange(under: root) {
            throw LayoutError(
                "the layout places this element at \(position), beyond the ±\(formatPoints(positionLimit)) points "
                    + "a position may lie from the root", path: path)
        }
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
    /// The first layout under `root`, in spec order, whose rounded position in the root's coordinates is out
    /// of range, with its path (`root.children[1].child`...) and that position. The positions are computed
    /// as ``finish(_:)`` computes them, so this finds the layout that made it report a position out of range.
    func firstPositionOutOfRange(under root: LayoutRef) -> (path: String, position: Point)? {
        func visit(_ index: Int32, origin: Point, path: String) -> (String, Point)? {
            let record = records[Int(index)]
            let rounded = Point(x: grid.ceil(origin.x), y: grid.ceil(origin.y))
            if !Layout.isInRange(rounded) { return (path, rounded) }
            for e in 0..<Int(record.edgeCount) {
                let child = edges[Int(record.edgeStart) + e]
                let place = path + "." + record.element.placeOfSublayout(e)
                if let found = visit(child, origin: origin + records[Int(child)].position, path: place) { return found }
            }
            return nil
        }
        return visit(root.index, origin: .zero, path: "root")
    }
}
