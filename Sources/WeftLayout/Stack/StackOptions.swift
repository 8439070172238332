/// The axis a stack lays its children along.
public enum StackDirection: String, Hashable, Sendable, CaseIterable {
    case horizontal, vertical
}

/// How a stack distributes free space along its axis when no child flexes (Texture's
/// `ASStackLayoutJustifyContent`).
public enum JustifyContent: String, Hashable, Sendable, CaseIterable {
    case start, center, end, spaceBetween, spaceAround
}

/// How a stack places its children across its axis (Texture's `ASStackLayoutAlignItems`).
public enum AlignItems: String, Hashable, Sendable, CaseIterable {
    case start, end, center, stretch, baselineFirst, baselineLast
}

/// Whether a stack breaks its children into several lines (Texture's `ASStackLayoutFlexWrap`).
public enum FlexWrap: String, Hashable, Sendable, CaseIterable {
    case noWrap, wrap
}

/// How a multi-line stack places its lines across its axis (Texture's `ASStackLayoutAlignContent`).
public enum AlignContent: String, Hashable, Sendable, CaseIterable {
    case start, center, end, spaceBetween, spaceAround, stretch
}

/// A convenience that sets `justifyContent` (horizontal stack) or `alignItems` (vertical stack).
public enum HorizontalAlignment: String, Hashable, Sendable, CaseIterable {
    case none, left, middle, right
}

/// A convenience that sets `alignItems` (horizontal stack) or `justifyContent` (vertical stack).
public enum VerticalAlignment: String, Hashable, Sendable, CaseIterable {
    case none, top, center, bottom
}

/// Every option of a stack but its children, as a plain value (Texture's `ASStackLayoutSpecStyle`).
public struct StackOptions: Hashable, Sendable {
    public var direction: StackDirection
    public var spacing: Double
    public var justifyContent: JustifyContent
    public var alignItems: AlignItems
    public var flexWrap: FlexWrap
    public var alignContent: AlignContent
    public var lineSpacing: Double

    /// Texture's defaults: horizontal, no spacing, justify start, align stretch, no wrap, lines at the start.
    public init(
        direction: StackDirection = .horizontal, spacing: Double = 0, justifyContent: JustifyContent = .start,
        alignItems: AlignItems = .stretch, flexWrap: FlexWrap = .noWrap, alignContent: AlignContent = .start,
        lineSpacing: Double = 0
    ) {
        self.direction = direction
        self.spacing = spacing
        self.justifyContent = justifyContent
        self.alignItems = alignItems
        self.flexWrap = flexWrap
        self.alignContent = alignContent
        self.lineSpacing = lineSpacing
    }

    /// These options with the horizontal and vertical alignment conveniences applied, as Texture resolves
    /// them: each one that is not `.none` overrides `justifyContent` or `alignItems`, depending on direction.
    @inlinable
    public func aligned(horizontal: HorizontalAlignment, vertical: VerticalAlignment) -> StackOptions {
        // (Inlinable: where a stack is built without the conveniences, as is usual, this folds away.)
        var options = self
        let horizontalAsJustify: JustifyContent? = switch horizontal {
        case .none: nil
        case .left: .start
        case .middle: .center
        case .right: .end
        }
        let verticalAsJustify: JustifyContent? = switch vertical {
        case .none: nil
        case .top: .start
        case .center: .center
        case .bottom: .end
        }
        let horizontalAsAlign: AlignItems? = switch horizontal {
        case .none: nil
        case .left: .start
        case .middle: .center
        case .right: .end
        }
        let verticalAsAlign: AlignItems? = switch vertical {
        case .none: nil
        case .top: .start
        case .center: .center
        case .bottom: .end
        }
        switch direction {
        case .horizontal:
            if let justify = horizontalAsJustify { options.justifyContent = justify }
            if let align = verticalAsAlign { options.alignItems = align }
        case .vertical:
            if let align = horizontalAsAlign { options.alignItems = align }
            if let justify = verticalAsJustify { options.justifyContent = justify }
        }
        return options
    }
}
