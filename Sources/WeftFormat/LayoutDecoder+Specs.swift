import WeftLayout

extension LayoutDecoder {
    /// Decodes the members particular to each spec type (one small function each, so that a level of
    /// nesting costs little stack).
    func spec(
        _ type: String, _ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State
    ) throws(LayoutError) -> any SpecPart {
        switch type {
        case "stack": return try stack(&m, common, depth: depth, state: &state)
        case "inset": return try inset(&m, common, depth: depth, state: &state)
        case "overlay": return try overlay(&m, common, depth: depth, state: &state)
        case "background": return try background(&m, common, depth: depth, state: &state)
        case "center": return try center(&m, common, depth: depth, state: &state)
        case "relative": return try relative(&m, common, depth: depth, state: &state)
        case "ratio": return try ratio(&m, common, depth: depth, state: &state)
        case "absolute": return try absolute(&m, common, depth: depth, state: &state)
        case "wrapper": return try wrapper(&m, common, depth: depth, state: &state)
        case "corner": return try corner(&m, common, depth: depth, state: &state)
        default: return state.specs.spacer(style: common.style, identifier: common.identifier)
        }
    }

    @inline(never)
    func stack(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        var options = StackOptions()
        options.direction = try m.choice("direction", StackDirection.self) ?? options.direction
        options.spacing = try m.number("spacing") ?? 0
        options.justifyContent = try m.choice("justifyContent", JustifyContent.self) ?? options.justifyContent
        options.alignItems = try m.choice("alignItems", AlignItems.self) ?? options.alignItems
        options.flexWrap = try m.choice("flexWrap", FlexWrap.self) ?? options.flexWrap
        options.alignContent = try m.choice("alignContent", AlignContent.self) ?? options.alignContent
        options.lineSpacing = try m.number("lineSpacing") ?? 0
        let horizontal = try m.choice("horizontalAlignment", HorizontalAlignment.self) ?? HorizontalAlignment.none
        let vertical = try m.choice("verticalAlignment", VerticalAlignment.self) ?? VerticalAlignment.none
        let children = try children(&m, depth: depth, state: &state)
        return state.specs.stack(options, horizontalAlignment: horizontal, verticalAlignment: vertical,
                                 children: children, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func inset(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let insets = try decodeInsets(m.required("insets", for: "an inset"), path: m.path("insets"))
        let child = try child("child", of: "an inset", &m, depth: depth, state: &state)
        return state.specs.inset(insets, child, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func overlay(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let child = try child("child", of: "an overlay", &m, depth: depth, state: &state)
        let overlay = try self.child("overlay", of: "an overlay", &m, depth: depth, state: &state)
        return state.specs.overlay(child: child, overlay: overlay, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func background(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let child = try child("child", of: "a background", &m, depth: depth, state: &state)
        let background = try self.child("background", of: "a background", &m, depth: depth, state: &state)
        return state.specs.background(child: child, background: background, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func center(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let centering = try m.choice("centering", CenteringName.self) ?? .xy
        let sizing = try m.choice("sizing", CenterSizingName.self) ?? .default
        let child = try child("child", of: "a center", &m, depth: depth, state: &state)
        return state.specs.center(centering.options, sizing: sizing.options, child,
                                  style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func relative(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let horizontal = try m.choice("horizontalPosition", RelativeSpec.Position.self) ?? RelativeSpec.Position.none
        let vertical = try m.choice("verticalPosition", RelativeSpec.Position.self) ?? RelativeSpec.Position.none
        let sizing = try m.choice("sizing", RelativeSizingName.self) ?? .default
        let child = try child("child", of: "a relative", &m, depth: depth, state: &state)
        return state.specs.relative(horizontal: horizontal, vertical: vertical, sizing: sizing.options,
                                    child, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func ratio(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let ratio = try MemberReader.number(m.required("ratio", for: "a ratio"), path: m.path("ratio"))
        guard ratio > 0 else {
            throw LayoutError("expected a ratio > 0, got \(formatPoints(ratio))", path: m.path("ratio"))
        }
        let child = try child("child", of: "a ratio", &m, depth: depth, state: &state)
        return state.specs.ratio(ratio, child, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func absolute(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let sizing = try m.choice("sizing", AbsoluteSpec.Sizing.self) ?? .default
        let children = try children(&m, depth: depth, state: &state)
        return state.specs.absolute(sizing: sizing, children: children, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func wrapper(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let children = try children(&m, depth: depth, state: &state)
        return state.specs.wrapper(children, style: common.style, identifier: common.identifier)
    }

    @inline(never)
    func corner(_ m: inout MemberReader, _ common: ElementCommon, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        guard let location = try m.choice("location", CornerSpec.Location.self) else {
            throw LayoutError("missing; a corner needs \"location\"", path: m.path("location"))
        }
        let offset = try m.pair("offset", nonNegative: false).map { Point(x: $0.0, y: $0.1) } ?? .zero
        let wraps = try m.bool("wrapsCorner") ?? false
        let child = try child("child", of: "a corner", &m, depth: depth, state: &state)
        let corner = try self.child("corner", of: "a corner", &m, depth: depth, state: &state)
        return state.specs.corner(child: child, corner: corner, location: location, offset: offset, wrapsCorner: wraps,
                                  style: common.style, identifier: common.identifier)
    }

    /// `insets`: one number for all edges, or an object of `top`, `left`, `bottom`, `right` (each a number or
    /// `"inf"`; missing edges are 0).
    func decodeInsets(_ value: JSONValue, path: String) throws(LayoutError) -> EdgeInsets {
        if case .number(let all) = value { return EdgeInsets(all: all) }
        var m = try MemberReader(value, path: path, what: "insets (a number or an object of edges)")
        func edge(_ key: String, _ m: inout MemberReader) throws(LayoutError) -> Double {
            guard let value = m.value(key) else { return 0 }
            switch value {
            case .number(let number): return number
            case .string("inf"): return .infinity
            default:
                throw LayoutError("expected a number or \"inf\", got \(value.summary)", path: m.path(key))
            }
        }
        let insets = EdgeInsets(
            top: try edge("top", &m), left: try edge("left", &m),
            bottom: try edge("bottom", &m), right: try edge("right", &m))
        try m.finish()
        return insets
    }
}

/// The JSON names of a center spec's centering options.
enum CenteringName: String, CaseIterable {
    case none, x, y, xy

    var options: CenterSpec.Centering {
        switch self {
        case .none: return []
        case .x: return .x
        case .y: return .y
        case .xy: return .xy
        }
    }
}

/// The JSON names of a center spec's sizing options.
enum CenterSizingName: String, CaseIterable {
    case `default`, minimumX, minimumY, minimumXY

    var options: RelativeSpec.Sizing {
        switch self {
        case .default: return []
        case .minimumX: return .minimumWidth
        case .minimumY: return .minimumHeight
        case .minimumXY: return .minimumSize
        }
    }
}

/// The JSON names of a relative spec's sizing options.
enum RelativeSizingName: String, CaseIterable {
    case `default`, minimumWidth, minimumHeight, minimumSize

    var options: RelativeSpec.Sizing {
        switch self {
        case .default: return []
        case .minimumWidth: return .minimumWidth
        case .minimumHeight: return .minimumHeight
        case .minimumSize: return .minimumSize
        }
    }
}
