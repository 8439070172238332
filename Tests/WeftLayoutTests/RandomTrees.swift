import WeftLayout

/// A deterministic generator (xorshift64*), so that random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed
    }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Builds random spec trees over every spec and style property, for property tests.
struct RandomTrees {
    var rng: SeededGenerator
    var count = 0

    init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
    }

    mutating func nextID() -> String {
        count += 1
        return "e\(count)"
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    mutating func length(_ upper: Int = 120) -> Double { Double(Int.random(in: 0...upper, using: &rng)) }

    mutating func dimension() -> Dimension {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .points(length())
        case 1: return .fraction(Double(Int.random(in: 0...100, using: &rng)) / 100)
        default: return .auto
        }
    }

    mutating func style() -> LayoutStyle {
        var style = LayoutStyle()
        if chance(0.3) { style.width = dimension() }
        if chance(0.3) { style.height = dimension() }
        if chance(0.15) { style.minWidth = dimension() }
        if chance(0.15) { style.maxWidth = dimension() }
        if chance(0.15) { style.minHeight = dimension() }
        if chance(0.15) { style.maxHeight = dimension() }
        if case .points(let lo) = style.minWidth, case .points(let hi) = style.maxWidth, lo > hi { style.maxWidth = .auto }
        if case .points(let lo) = style.minHeight, case .points(let hi) = style.maxHeight, lo > hi { style.maxHeight = .auto }
        if chance(0.3) { style.flexGrow = Double(Int.random(in: 0...3, using: &rng)) }
        if chance(0.3) { style.flexShrink = Double(Int.random(in: 0...3, using: &rng)) }
        if chance(0.1) { style.flexBasis = dimension() }
        if chance(0.2) { style.alignSelf = AlignSelf.allCases.randomElement(using: &rng) ?? .auto }
        if chance(0.1) { style.spacingBefore = length(10) }
        if chance(0.1) { style.spacingAfter = length(10) }
        if chance(0.1) { style.ascender = length(20) }
        if chance(0.1) { style.descender = -length(8) }
        if chance(0.2) { style.layoutPosition = Point(x: length(50), y: length(50)) }
        return style
    }

    mutating func children(depth: Int) -> [any LayoutElement] {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in element(depth: depth + 1) }
    }

    mutating func element(depth: Int = 0) -> any LayoutElement {
        let id = nextID()
        let style = style()
        let leafOnly = depth >= 4
        switch leafOnly ? Int.random(in: 0..<2, using: &rng) : Int.random(in: 0..<13, using: &rng) {
        case 0:
            let size: Size? = chance(0.7) ? Size(width: length(), height: length()) : nil
            return Box(size: size, style: style, identifier: id)
        case 1:
            return Spacer(style: style, identifier: id)
        case 2, 3, 4:
            var options = StackOptions()
            options.direction = chance(0.5) ? .horizontal : .vertical
            options.spacing = chance(0.3) ? length(10) : 0
            options.justifyContent = JustifyContent.allCases.randomElement(using: &rng) ?? .start
            options.alignItems = AlignItems.allCases.randomElement(using: &rng) ?? .stretch
            options.flexWrap = chance(0.3) ? .wrap : .noWrap
            options.alignContent = AlignContent.allCases.randomElement(using: &rng) ?? .start
            options.lineSpacing = chance(0.3) ? length(10) : 0
            return StackSpec(options, children: children(depth: depth), style: style, identifier: id)
        case 5:
            var insets = EdgeInsets(top: length(20), left: length(20), bottom: length(20), right: length(20))
            if chance(0.2) { insets.left = .infinity }
            if chance(0.2) { insets.bottom = .infinity }
            return InsetSpec(insets: insets, child: element(depth: depth + 1), style: style, identifier: id)
        case 6:
            return OverlaySpec(child: element(depth: depth + 1), overlay: element(depth: depth + 1), style: style, identifier: id)
        case 7:
            return BackgroundSpec(child: element(depth: depth + 1), background: element(depth: depth + 1), style: style, identifier: id)
        case 8:
            let centering: CenterSpec.Centering = [[], .x, .y, .xy].randomElement(using: &rng) ?? .xy
            let sizing: RelativeSpec.Sizing = [[], .minimumWidth, .minimumHeight, .minimumSize].randomElement(using: &rng) ?? []
            return CenterSpec(centering: centering, sizing: sizing, child: element(depth: depth + 1), style: style, identifier: id)
        case 9:
            let positions = RelativeSpec.Position.allCases
            return RelativeSpec(
                horizontalPosition: positions.randomElement(using: &rng) ?? .start,
                verticalPosition: positions.randomElement(using: &rng) ?? .start,
                sizing: [[], .minimumWidth, .minimumHeight, .minimumSize].randomElement(using: &rng) ?? [],
                child: element(depth: depth + 1), style: style, identifier: id)
        case 10:
            let ratio: Double = [0.25, 0.5, 1, 1.5, 3].randomElement(using: &rng) ?? 1
            return RatioSpec(ratio: ratio, child: element(depth: depth + 1), style: style, identifier: id)
        case 11:
            return AbsoluteSpec(sizing: chance(0.5) ? .default : .sizeToFit, children: children(depth: depth), style: style, identifier: id)
        default:
            if chance(0.5) {
                return WrapperSpec(children(depth: depth), style: style, identifier: id)
            }
            return CornerSpec(
                child: element(depth: depth + 1), corner: element(depth: depth + 1),
                location: CornerSpec.Location.allCases.randomElement(using: &rng) ?? .topRight,
                offset: Point(x: length(10) - 5, y: length(10) - 5), wrapsCorner: chance(0.5), style: style, identifier: id)
        }
    }

    /// A valid size range on the integer grid, sometimes unbounded, sometimes exact.
    mutating func range() -> SizeRange {
        func side(_ rng: inout RandomTrees) -> (Double, Double) {
            let lower = rng.chance(0.5) ? 0 : rng.length(200)
            if rng.chance(0.25) { return (lower, .infinity) }
            if rng.chance(0.25) { return (lower, lower) }
            return (lower, lower + rng.length(300))
        }
        let (minW, maxW) = side(&self)
        let (minH, maxH) = side(&self)
        return SizeRange(min: Size(width: minW, height: minH), max: Size(width: maxW, height: maxH))
    }
}
