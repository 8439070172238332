extension Layout {
    /// Computes the layout of `element` for `range`, rounded to the pixel grid of `scale` (default 2).
    ///
    /// The root's parent size is the range's max, as in Texture's `ASCalculateRootLayout`. Throws if the range
    /// or scale is invalid, or if an element holds a value that cannot be laid out; the error's path starts
    /// at `root`. MAY be called from any thread, concurrently, for any elements.
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
        return builder.finish(root)
    }
}
