// The unpositioned phase of a stack: sizes for every child and every line (Texture's
// ASStackUnpositionedLayout, CSS flexbox's "resolve flexible lengths" and "cross size" steps).

extension StackPass {
    /// Step 2: every child laid out along an unbounded main axis (or its flexBasis), within the cross range.
    mutating func layOutUnconstrained(_ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        let crossMin = range.min.cross(direction)
        let crossMax = range.max.cross(direction)
        let parentMain = childParent.main(direction)
        for i in 0..<childCount {
            // (Read in place: the items do not move until a child's layout adds some.)
            let item = items(&builder) + i
            if optimizedFlexing && item.pointee.isFlexibleBothWays {
                // Sized by flexing alone; a zero-size placeholder until then, as in Texture.
                let ref = builder.placeholder(arena, child(i, in: arena))
                builder.stackItems[itemBase + i].ref = ref
                builder.stackItems[itemBase + i].size = .zero
                builder.stackItems[itemBase + i].deferral = StackItem.unlaid
            } else {
                let basis = item.pointee.flexBasis
                try layOut(
                    i, mainMin: basis.resolve(parent: parentMain, auto: 0), mainMax: basis.resolve(parent: parentMain, auto: .infinity),
                    crossMin: crossMin, crossMax: crossMax, mayDefer: true, arena, &builder)
            }
        }
    }

    /// Step 3: items into lines. Without wrapping, one line; with it, a line ends before the item that would
    /// take the line (spacing included) past the main maximum, unless the line is still empty.
    mutating func collectLines(_ builder: inout LayoutBuilder) {
        let count = childCount
        guard options.flexWrap == .wrap else {
            builder.stackLines.append(StackLine(start: 0, end: count))
            lineCount = 1
            return
        }
        var lineStart = 0
        var lineSum = 0.0
        var interItemSpacing = 0.0
        for i in 0..<count {
            let item = builder.stackItems[itemBase + i]
            let itemSum = item.spacingBefore + item.size.main(direction) + item.spacingAfter
            if mainViolation(lineSum + interItemSpacing + itemSum) < 0 && i > lineStart {
                builder.stackLines.append(StackLine(start: lineStart, end: i))
                lineStart = i
                lineSum = 0
                interItemSpacing = 0
            }
            lineSum += interItemSpacing + itemSum
            interItemSpacing = options.spacing
        }
        builder.stackLines.append(StackLine(start: lineStart, end: count))
        lineCount = builder.stackLines.count - lineBase
    }

    /// Step 4: each line's children grown or shrunk to resolve the line's main violation.
    mutating func flexLines(_ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        for l in 0..<lineCount {
            let line = line(l, &builder)
            let violation = mainViolation(mainSum(line.start, line.end, &builder))
            let growing = violation > 0
            let flexing = abs(violation) >= Self.violationEpsilon
            var factorSum = 0.0
            var scaledShrinkSum = 0.0
            if flexing {
                let items = items(&builder)
                for i in line.start..<line.end {
                    factorSum += growing ? items[i].flexGrow : items[i].flexShrink
                }
            }
            if factorSum == 0 {
                if optimizedFlexing { try layOutFlexibleAtZero(line, arena, &builder) }
                continue
            }
            if !growing {
                let items = items(&builder)
                for i in line.start..<line.end {
                    scaledShrinkSum += items[i].size.main(direction) * (items[i].flexShrink / factorSum)
                }
            }
            // (Items read in place, here and below: each copied out was 120 bytes.)
            func adjustment(_ item: UnsafePointer<StackItem>) -> Double {
                if growing { return (violation * (item.pointee.flexGrow / factorSum)).rounded(.down) }
                if scaledShrinkSum == 0 { return 0 }
                let share = item.pointee.size.main(direction) * (item.pointee.flexShrink / factorSum) / scaledShrinkSum
                return -abs(share * violation)
            }
            var remaining = violation
            var firstFlexible = -1
            let items = items(&builder)
            for i in line.start..<line.end {
                let change = adjustment(items + i)
                remaining -= change
                if firstFlexible < 0 && change != 0 { firstFlexible = i }
            }
            if firstFlexible < 0 { continue }
            let crossMin = range.min.cross(direction)
            let crossMax = range.max.cross(direction)
            for i in line.start..<line.end {
                // (The items again: an earlier child's layout may have added items, and moved them.)
                let item = self.items(&builder) + i
                let change = adjustment(item)
                if change == 0 { continue }
                // The rounding remainder of growing goes to the first flexible child, if it grows.
                let extra = i == firstFlexible && item.pointee.flexGrow > 0 ? remaining : 0
                let flexed = max(item.pointee.size.main(direction) + change + extra, 0)
                try relayOut(i, mainMin: flexed, mainMax: flexed, crossMin: crossMin, crossMax: crossMax, arena, &builder)
            }
        }
        if optimizedFlexing { takeUnlaidBaselines(arena, &builder) }
    }

    /// The baselines of the child that optimized flexing left a placeholder and that flexing did not lay out: a
    /// shrinking line gives its zero size no share, and growing gives it `floor` of its share, 0 under a point.
    /// Texture never lays that child out, and a vertical stack takes its first child's ascender and its last
    /// child's descender into its own style only when it computes its layout (ASStackLayoutSpec.mm:148-151),
    /// where its parent reads them after its children's layouts (ASStackUnpositionedLayout.mm:257-267): such a
    /// child is aligned on its own style's.
    @inline(never)
    private mutating func takeUnlaidBaselines(_ arena: SpecArena, _ builder: inout LayoutBuilder) {
        for i in 0..<childCount {
            let item = builder.stackItems[itemBase + i]
            guard item.deferral == StackItem.unlaid, item.isBaselineAligned else { continue }
            (builder.stackItems[itemBase + i].ascender, builder.stackItems[itemBase + i].descender) =
                arena.ownBaselines(of: child(i, in: arena))
        }
    }

    /// With optimized flexing and nothing to flex, the skipped child is laid out at zero main size.
    private mutating func layOutFlexibleAtZero(_ line: StackLine, _ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        for i in line.start..<line.end where builder.stackItems[itemBase + i].isFlexibleBothWays {
            try layOut(i, mainMin: 0, mainMax: 0, crossMin: range.min.cross(direction),
                       crossMax: range.max.cross(direction), arena, &builder)
        }
    }

    /// Step 5: each line's cross size and baseline.
    mutating func computeLineCrossSizes(_ builder: inout LayoutBuilder) {
        let crossMin = range.min.cross(direction)
        let crossMax = range.max.cross(direction)
        if lineCount == 1 && crossMin == crossMax {
            // A single line in a fixed cross size is exactly that size; it still needs its baseline.
            var line = self.line(0, &builder)
            line.crossSize = crossMin
            let items = items(&builder)
            for i in line.start..<line.end where items[i].isBaselineAligned {
                line.baseline = max(line.baseline, baseline(of: items[i]))
            }
            builder.stackLines[lineBase] = line
            return
        }
        for l in 0..<lineCount {
            var line = self.line(l, &builder)
            var maxAscent = 0.0
            var maxDescent = 0.0
            var maxCross = 0.0
            let items = items(&builder)
            for i in line.start..<line.end {
                let item = items + i
                let cross = item.pointee.size.cross(direction)
                if item.pointee.isBaselineAligned {
                    let itemBaseline = baseline(of: item.pointee)
                    maxAscent = max(maxAscent, itemBaseline)
                    maxDescent = max(maxDescent, cross - itemBaseline)
                } else {
                    maxCross = max(maxCross, cross)
                }
            }
            line.crossSize = max(maxAscent + maxDescent, maxCross)
            if lineCount == 1 {
                line.crossSize = min(max(crossMin, line.crossSize), crossMax)
            }
            line.baseline = maxAscent
            builder.stackLines[lineBase + l] = line
        }
    }

    /// Step 6: lines stretched by `alignContent: .stretch`, then stretched children laid out again at their
    /// line's cross size.
    mutating func stretchLines(_ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        let violation = crossViolation(linesCrossSum(&builder))
        let stretchLines = lineCount > 1 && options.alignContent == .stretch && violation > Self.violationEpsilon
        let extra = violation / Double(lineCount)
        for l in 0..<lineCount {
            if stretchLines { builder.stackLines[lineBase + l].crossSize += extra }
            let line = self.line(l, &builder)
            for i in line.start..<line.end {
                // Two fields read in place (the whole item copied out was a memcpy per child).
                guard builder.stackItems[itemBase + i].alignment == .stretch else { continue }
                let size = builder.stackItems[itemBase + i].size
                if line.crossSize - size.cross(direction) > Self.violationEpsilon {
                    let main = size.main(direction)
                    try relayOut(i, mainMin: main, mainMax: main, crossMin: line.crossSize, crossMax: line.crossSize, arena, &builder)
                }
            }
        }
        for l in 0..<lineCount {
            let line = self.line(l, &builder)
            let sum = mainSum(line.start, line.end, &builder)
            builder.stackLines[lineBase + l].mainSum = sum
            mainSum = max(mainSum, sum)
        }
        crossSum = linesCrossSum(&builder)
    }

    /// The lines' cross sizes plus the line spacing between them.
    @inline(__always)
    mutating func linesCrossSum(_ builder: inout LayoutBuilder) -> Double {
        var sum = options.lineSpacing * Double(lineCount - 1)
        for l in 0..<lineCount { sum += builder.stackLines[lineBase + l].crossSize }
        return sum
    }
}
