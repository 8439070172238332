import Testing
import WeftLayout

/// Texture's small rules checked one by one, each with numbers from Texture's own source or comments.
///
/// The layout fixtures check the same rules inside whole layouts; these pin the helpers themselves.
@Suite("Texture rules")
struct TextureRuleTests {
    @Test("Ceil and floor to the pixel grid absorb floating-point noise with FLT_EPSILON")
    func pixelGrid() {
        let three = PixelGrid(scale: 3)
        // ASCeilPixelValue's comment: 100.666666666669 x 3 = 302.000000000007 px would ceil to 303 px (101);
        // with FLT_EPSILON subtracted first it is 301.9999996 px -> 302 px = 100.666...
        #expect(three.ceil(100.666666666669) == 302.0 / 3)
        // ASFloorPixelValue's comment: 100.66666666663 x 3 = 301.9999999999 px would floor to 301 px (100.333);
        // with FLT_EPSILON added first it is 302.0000004 px -> 302 px = 100.666...
        #expect(three.floor(100.66666666663) == 302.0 / 3)
        // 0.57 x 400 is 227.99999999999997 in doubles: at scale 2, 456.0000002 px -> 456 px = 228.
        #expect(PixelGrid(scale: 2).floor(0.57 * 400) == 228)
        // Values clearly inside a pixel still go down and up: 10.2 at scale 2 is 20.4 px.
        #expect(PixelGrid(scale: 2).floor(10.2) == 10)
        #expect(PixelGrid(scale: 2).ceil(10.2) == 10.5)
        // Rounding to the nearest pixel has no epsilon: 33.5 at scale 3 is 100.5 px -> 101 px.
        #expect(three.round(33.5) == 101.0 / 3)
    }
}

extension TextureRuleTests {
    @Test("An inverted range is fixed by every style, all-auto ones included: the minimum wins")
    func invertedRange() throws {
        let builder = LayoutBuilder()
        // Texture's layoutThatFits intersects with the style's range, 0...inf for an all-auto style;
        // ASSizeRangeIntersect keeps min 50 > max 30 as 50...50 (the incoming range wins at its min).
        let inverted = SizeRange(min: Size(width: 50, height: 0), max: Size(width: 30, height: 10))
        let fixed = try builder.resolve(LayoutStyle(), range: inverted, parentSize: Size(width: 30, height: 10))
        #expect(fixed == SizeRange(min: Size(width: 50, height: 0), max: Size(width: 50, height: 10)))
        #expect(LayoutStyle().narrowed(inverted, parentSize: Size(width: 30, height: 10)) == fixed)
        // ASLayoutElementSizeResolveAutoSize with an auto range whose max is below its min (an absolute child
        // past its parent's max): max <= min, so the min wins on that axis.
        let auto = SizeRange(min: .zero, max: Size(width: -50, height: 80))
        #expect(LayoutStyle().resolvedRange(parentSize: Size(width: 100, height: 100), auto: auto)
            == SizeRange(min: .zero, max: Size(width: 0, height: 80)))
    }

    @Test("An exact percentage of an unbounded parent is clamped by a finite max")
    func percentageOfUnboundedParent() {
        let style = LayoutStyle(width: .fraction(0.1), maxWidth: .points(107))
        let unbounded = Size(width: .infinity, height: 34)
        // 0.1 x inf = inf > max 107 -> exactly 107 (ASLayoutElementSizeConstrain); height auto: 0...inf.
        #expect(style.resolvedRange(parentSize: unbounded)
            == SizeRange(min: Size(width: 107, height: 0), max: Size(width: 107, height: .infinity)))
        // With nothing to clamp it the infinite exact size counts as none; 0% of infinity is NaN, none.
        #expect(LayoutStyle(width: .fraction(0.5)).resolvedRange(parentSize: unbounded) == .unconstrained)
        #expect(Dimension.fraction(0).resolveExact(parent: .infinity).isNaN)
        #expect(Dimension.fraction(0.5).resolveExact(parent: .nan).isNaN)
        // Minimums and maximums keep acting as auto there (Texture would make an infinite minimum).
        #expect(LayoutStyle(minWidth: .fraction(0.5)).resolvedRange(parentSize: unbounded) == .unconstrained)
    }

    @Test("Sizes are valid below 1e7, as ASPointsValidForSize has it")
    func sizeValidity() {
        // ASDimension.h: `points < 10000000.0`.
        #expect(Size.sizeLimit == 10_000_000)
        #expect(Size.isValid(0) && Size.isValid(9_999_999) && Size.isValid(10_000_000.nextDown))
        #expect(!Size.isValid(1e7) && !Size.isValid(2e7) && !Size.isValid(1e38))
        #expect(!Size.isValid(.greatestFiniteMagnitude) && !Size.isValid(.infinity))
        #expect(!Size.isValid(-1) && !Size.isValid(.nan))
        // isnormal() rejects subnormal numbers, so Texture treats 5e-324 as invalid too.
        #expect(!Size.isValid(.leastNonzeroMagnitude))
        #expect(Size(width: 10, height: 2e7).isValid == false)
        let parent = Size(width: 100, height: 2e7).definedParentSize
        #expect(parent.width == 100 && parent.height.isNaN)
    }

    @Test("A max of 2e7 is no size: a box measures 0x0, a center spec takes its child's height")
    func maxAtTwiceTheSizeLimit() throws {
        let range = SizeRange(min: .zero, max: Size(width: 100, height: 2e7))
        // ASDisplayNode's calculateSizeThatFits returns CGSizeZero when ASIsCGSizeValidForSize({100, 2e7})
        // fails; clamped into 0...(100, 2e7) that stays 0x0.
        #expect(try Layout.compute(Box(), in: range).size == .zero)
        // ASRelativeLayoutSpec: the height 2e7 fails ASPointsValidForSize, so it is undefined and the spec takes
        // the child's height 10; the width 100 is valid. Clamped: 100 x 10. The child sits at
        // (round((100 - 20) x 0.5), round((10 - 10) x 0.5)) = (40, 0).
        let center = try Layout.compute(CenterSpec(child: Box(size: Size(width: 20, height: 10))), in: range)
        #expect(center.size == Size(width: 100, height: 10))
        #expect(center.sublayouts[0].position == Point(x: 40, y: 0))
        #expect(center.sublayouts[0].size == Size(width: 20, height: 10))
        // ASLayout records a size of 2e7 as 0x0 (ASIsCGSizeValidForSize fails), one just below 1e7 as it is.
        #expect(try Layout.compute(Box(size: Size(width: 1, height: 2e7)), in: .unconstrained).size == .zero)
        #expect(try Layout.compute(Box(size: Size(width: 1, height: 9_999_999)), in: .unconstrained).size
            == Size(width: 1, height: 9_999_999))
    }

    @Test("A minimum above its maximum wins, as ASLayoutElementSizeConstrain has it")
    func minimumAboveMaximum() throws {
        // ASLayoutElementSizeConstrain: maxVal <= minVal, so both ends become the minimum and the exact size is
        // irrelevant: width 87. The height is exactly 125.
        let style = LayoutStyle(width: .points(60), height: .points(125), minWidth: .points(87), maxWidth: .points(60))
        #expect(try Layout.compute(Box(style: style), in: .unconstrained).size == Size(width: 87, height: 125))
        #expect(style.resolvedRange(parentSize: Size(width: .nan, height: .nan))
            == SizeRange(min: Size(width: 87, height: 125), max: Size(width: 87, height: 125)))
        // Heights too: minHeight 40 over maxHeight 30 gives 40, whatever the exact height (10).
        let tall = LayoutStyle(height: .points(10), minHeight: .points(40), maxHeight: .points(30))
        #expect(try Layout.compute(Box(size: Size(width: 5, height: 5), style: tall), in: .unconstrained).size
            == Size(width: 5, height: 40))
    }
}

extension TextureRuleTests {
    @Test("Dimension strings parse as ASDimensionMake does; the empty string is auto")
    func dimensionParsing() {
        #expect(Dimension(parsing: "") == .auto)
        #expect(Dimension(parsing: "  ") == .auto)
        #expect(Dimension(parsing: "auto") == .auto)
        #expect(Dimension(parsing: "50%") == .fraction(0.5))
        #expect(Dimension(parsing: "0.5pt") == .points(0.5))
        #expect(Dimension(parsing: "wide") == nil)
    }
}

extension TextureRuleTests {
    @Test("A style without percentages has a fixed range, which narrows as the style does at every parent size")
    func fixedRange() {
        let styles = [
            LayoutStyle(),
            LayoutStyle(preferredSize: Size(44, 44)),
            LayoutStyle(width: .points(120), minHeight: .points(10), maxHeight: .points(30)),
            // max <= min: the minimum wins, whatever the parent.
            LayoutStyle(minWidth: .points(50), maxWidth: .points(30)),
            LayoutStyle(height: .points(500), maxHeight: .points(80)),
        ]
        let parents = [Size(width: .nan, height: .nan), Size(width: 0, height: 0), Size(width: 320, height: 480),
                       Size(width: .infinity, height: .infinity)]
        let ranges = [
            SizeRange(min: .zero, max: Size(width: .infinity, height: .infinity)),
            SizeRange(exactly: Size(width: 375, height: 100)),
            SizeRange(min: Size(width: 40, height: 0), max: Size(width: 60, height: 20)),
            // Inverted: the incoming range wins at its minimum.
            SizeRange(min: Size(width: 90, height: 0), max: Size(width: 10, height: 5)),
        ]
        for style in styles {
            guard let fixed = style.fixedRange else {
                Issue.record("\(style) has no percentage, so it should have a fixed range")
                continue
            }
            for parent in parents {
                #expect(fixed == style.resolvedRange(parentSize: parent))
                for range in ranges {
                    #expect(range.intersection(fixed) == style.narrowed(range, parentSize: parent))
                }
            }
        }
        // 120pt wide is 120...120 whatever the parent; an unstyled width is 0...infinity.
        #expect(LayoutStyle(width: .points(120)).fixedRange
            == SizeRange(min: Size(width: 120, height: 0), max: Size(width: 120, height: .infinity)))
        // A percentage anywhere among the six sizes depends on the parent: no fixed range.
        #expect(LayoutStyle(width: .fraction(0.5)).fixedRange == nil)
        #expect(LayoutStyle(maxHeight: .fraction(1)).fixedRange == nil)
    }
}

extension TextureRuleTests {
    /// ASStackLayoutSpec.mm:148-151: a vertical stack writes its first child's ascender and its last child's
    /// descender into its own style only when it computes its layout; its parent reads the style after laying
    /// its children out (ASStackUnpositionedLayout.mm:257-267). With one child flexible both ways and an exact
    /// width (useOptimizedFlexing, :538-545) that child starts as a 0x0 placeholder (:686-687); a shrinking line
    /// gives its zero size no share (:377-384), so it is never laid out and keeps its style's own baselines.
    @Test("A vertical stack that optimized flexing never lays out is aligned on its own style's baselines")
    func unlaidVerticalStackBaselines() throws {
        let own = LayoutStyle(flexGrow: 1, flexShrink: 1, ascender: 6, descender: -2)
        let top = LayoutStyle(ascender: 24)
        let bottom = LayoutStyle(descender: -3)
        let value = StackSpec.vertical(
            alignItems: .start, children: [Box(size: Size(50, 30), style: top), Box(size: Size(50, 10), style: bottom)],
            style: own)
        var specs = SpecBuilder()
        let built = specs.finish(specs.vstack(
            alignItems: .start, children: [specs.box(size: Size(50, 30), style: top), specs.box(size: Size(50, 10), style: bottom)],
            style: own))
        // Width exactly 100; the label (120 wide, no flex) makes the violation -20, and only the column can shrink.
        let range = SizeRange(min: Size(100, 0), max: Size(100, 200))
        // The column as a spec of the row's arena, and as an element (a finished spec of another arena).
        for column in [value as any LayoutElement, built] {
            // baselineFirst: ascents max(16, 6) = 16, descents max(20 - 16, 0 - 6) = 4: line 20, baseline 16.
            // The column (0x0) at y 16 - 6 = 10 (with its first child's 24 it would be at 0, the label at 8).
            let first = StackSpec(
                StackOptions(direction: .horizontal, alignItems: .baselineFirst),
                children: [Box(size: Size(120, 20), style: LayoutStyle(ascender: 16)), column])
            let firstLayout = try Layout.compute(first, in: range)
            #expect(firstLayout.sublayouts.map(\.frame) == [
                Rect(x: 0, y: 0, width: 120, height: 20), Rect(x: 120, y: 10, width: 0, height: 0)])
            // baselineLast: the label's baseline 20 - 4 = 16, the column's 0 + (-2) = -2; ascents max(16, -2) = 16,
            // descents max(4, 0 - -2) = 4: line 20, baseline 16. The column at y 16 - -2 = 18 (with its last
            // child's -3, 19).
            let last = StackSpec(
                StackOptions(direction: .horizontal, alignItems: .baselineLast),
                children: [Box(size: Size(120, 20), style: LayoutStyle(descender: -4)), column])
            let lastLayout = try Layout.compute(last, in: range)
            #expect(lastLayout.sublayouts.map(\.frame) == [
                Rect(x: 0, y: 0, width: 120, height: 20), Rect(x: 120, y: 18, width: 0, height: 0)])
        }
    }
}
