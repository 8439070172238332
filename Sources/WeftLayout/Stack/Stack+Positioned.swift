// The positioned phase of a stack: offsets for lines and children (Texture's ASStackPositionedLayout).

extension StackPass {
    /// Step 7 and 8: places every child and returns the stack's size.
    mutating func position(_ builder: inout LayoutBuilder) -> Size {
        let grid = builder.grid
        let (crossOffset, crossSpacing) = Self.distribute(
            crossViolation(crossSum), count: lineCount, as: Self.justification(options.alignContent))
        var cross = crossOffset
        for l in 0..<lineCount {
            if l > 0 { cross += crossSpacing + options.lineSpacing }
            let line = self.line(l, &builder)
            let (mainOffset, mainSpacing) = Self.distribute(
                mainViolation(line.mainSum), count: line.end - line.start, as: options.justifyContent)
            var main = mainOffset
            // (Positions are set in the builder's records: the items stay where they are.)
            let items = items(&builder)
            for i in line.start..<line.end {
                let item = items + i
                main += item.pointee.spacingBefore
                if i > line.start { main += options.spacing + mainSpacing }
                let offset: Double
                switch item.pointee.alignment {
                case .end:
                    offset = line.crossSize - item.pointee.size.cross(direction)
                case .center:
                    offset = grid.floor((line.crossSize - item.pointee.size.cross(direction)) / 2)
                case .baselineFirst, .baselineLast:
                    offset = line.baseline - baseline(of: item.pointee)
                case .start, .stretch:
                    offset = 0
                }
                builder.setPosition(item.pointee.ref, Point(direction, main: main, cross: cross + offset))
                main += item.pointee.size.main(direction) + item.pointee.spacingAfter
            }
            cross += line.crossSize
        }
        return range.clamp(Size(direction, main: mainSum, cross: crossSum))
    }

    /// The offset before the first of `count` things and the extra space between them, for `free` space.
    ///
    /// `spaceBetween` becomes `start`, and `spaceAround` becomes `center`, when the free space is below the
    /// violation epsilon (none, or overflow) or there is only one thing.
    static func distribute(_ free: Double, count: Int, as justify: JustifyContent) -> (offset: Double, spacing: Double) {
        var justify = justify
        if free < violationEpsilon || count == 1 {
            if justify == .spaceBetween { justify = .start }
            if justify == .spaceAround { justify = .center }
        }
        switch justify {
        case .start: return (0, 0)
        case .center: return (free / 2, 0)
        case .end: return (free, 0)
        case .spaceBetween: return (0, free / Double(count - 1))
        case .spaceAround:
            let unit = free / Double(count * 2)
            return (unit, unit * 2)
        }
    }

    /// `alignContent` in the terms of `justifyContent` (stretch places lines like start).
    static func justification(_ alignContent: AlignContent) -> JustifyContent {
        switch alignContent {
        case .start, .stretch: return .start
        case .center: return .center
        case .end: return .end
        case .spaceBetween: return .spaceBetween
        case .spaceAround: return .spaceAround
        }
    }
}
