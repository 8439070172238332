/// The limits text is set in.
public struct TextConstraints: Hashable, Sendable {
    /// The widest a line may be, in points (>= 0); infinity for no wrapping (only line breaks in the text
    /// start new lines).
    public var width: Double

    public init(width: Double = .infinity) {
        self.width = width
    }

    /// The first problem with these constraints; nil when usable.
    public func problem() -> TextError? {
        if width.isNaN || width < 0 {
            return TextError("expected a number >= 0 or infinity, got \(TextError.number(width))", path: "constraints.width")
        }
        return nil
    }
}

/// Measures text for layout: what a text node calls.
///
/// Threading: implementations MUST be thread-safe, and measuring MAY run on any thread, concurrently with any
/// other measuring, for the same or different texts. Results depend only on the arguments (and the fonts
/// the measurer was made with), never on what was measured before.
public protocol TextMeasurer: Sendable {
    /// The lines of `text` set within `constraints`, or an error naming the bad value (a size <= 0, an
    /// unknown font family, a text over the measurer's length limit).
    func measure(_ text: AttributedText, constraints: TextConstraints) throws(TextError) -> TextLayout

    /// ``measure(_:constraints:)``, asking `shouldStop` every few hundred microseconds of work whether to give up
    /// (a deadline passed, a client left): `true` ends the measurement with a `.limit` error whose reason is
    /// ``TextError/stoppedReason``, and nothing of it is kept in a cache but what was finished (a whole shaped
    /// paragraph). `shouldStop` is called on the measuring thread, with no lock held; once it says stop it
    /// should keep saying so. The default measures to the end without asking (``FontMeasurer`` asks).
    func measure(_ text: AttributedText, constraints: TextConstraints,
                 shouldStop: (@Sendable () -> Bool)?) throws(TextError) -> TextLayout

    /// Where a line set in `style` (its primary font, no fallback) has its baseline.
    func lineMetrics(for style: TextStyle) throws(TextError) -> LineMetrics
}

extension TextMeasurer {
    public func measure(_ text: AttributedText, constraints: TextConstraints,
                        shouldStop: (@Sendable () -> Bool)?) throws(TextError) -> TextLayout {
        try measure(text, constraints: constraints)
    }

    /// `string` in one style, set in lines at most `width` wide.
    public func measure(_ string: String, style: TextStyle = TextStyle(), paragraph: ParagraphStyle = ParagraphStyle(),
                        width: Double = .infinity) throws(TextError) -> TextLayout {
        try measure(AttributedText(string, style: style, paragraph: paragraph), constraints: TextConstraints(width: width))
    }
}
