import WeftLayout
import WeftText

/// A leaf node that shows text, sized by a WeftText measurer (Texture's `ASTextNode`).
///
/// The text is attributed (runs of ``TextStyle``, one ``ParagraphStyle``): set ``attributedText``, or use the
/// plain-string convenience, ``text`` set in ``textStyle`` with ``paragraphStyle``. The node measures with
/// ``measurer``: by default ``TextNode/standardMeasurer`` (real fonts: HarfBuzz over the standard font
/// registry, one shaped-run cache for the process); pass `FixedMetricsMeasurer()` for font-independent numbers.
///
/// Threading: every property MAY be read and set from any thread. Each setter is one atomic change of the
/// node's text (concurrent setters never lose each other's changes) and calls ``Node/setNeedsLayout()`` when
/// the value changed. The measurer runs with no lock held.
///
/// Baselines: like Texture's text node, the style's `ascender` comes from the first run's font and its
/// `descender` from the last run's (the measurer's ``TextMeasurer/lineMetrics(for:)``, line height
/// included), set with the text, so that the node aligns on its baselines in a stack.
///
/// Bad text: when the text is set, every run's style is checked by the measurer (sizes, weights, font
/// families it knows) and its length against the measurer's limit. Text it refuses is kept, reported by
/// ``textProblem``, and laying the node out throws a `LayoutError` naming the node and the run. A failure
/// that no check can foresee (ICU or HarfBuzz unable to start; a custom measurer's own error) makes the node
/// measure as 0 x 0.
///
/// Stopping: laid out by a builder with a stop hook (``LayoutBuilder/shouldStop``), the node's measurement asks
/// it too (``TextMeasurer/measure(_:constraints:shouldStop:)``), and a measurement it stops ends the layout with
/// the builder's stop error (``LayoutBuilder/stoppedReason``); nothing of it is cached.
open class TextNode: Node, @unchecked Sendable {
    // @unchecked: `content` is guarded by the node's lock, like `Node.state`.
    private var content: TextContent
    /// Measures the text: `TextNode.standardMeasurer` unless another was given.
    public let measurer: any TextMeasurer

    /// A node showing `text` (nil: none, measured as 0 x 0) in one style.
    public init(text: String? = nil, textStyle: TextStyle = TextStyle(), paragraphStyle: ParagraphStyle = ParagraphStyle(),
                measurer: (any TextMeasurer)? = nil) {
        let attributed = text.map { AttributedText($0, style: textStyle, paragraph: paragraphStyle) }
        self.measurer = measurer ?? TextNode.standardMeasurer
        content = TextContent(text: attributed, textStyle: textStyle, paragraphStyle: paragraphStyle)
        super.init()
        updateContent { _ in }
    }

    /// A node showing attributed text (nil: none, measured as 0 x 0).
    public init(attributedText: AttributedText?, measurer: (any TextMeasurer)? = nil) {
        self.measurer = measurer ?? TextNode.standardMeasurer
        content = TextContent(text: nil, textStyle: TextStyle(), paragraphStyle: ParagraphStyle())
        super.init()
        content.assign(attributedText)
        updateContent { _ in }
    }

    // MARK: The text

    /// The text with its runs and paragraph options, or nil for none. Setting it also sets ``textStyle`` (to
    /// its first run's style) and ``paragraphStyle``.
    public var attributedText: AttributedText? {
        get { lock.withLock { content.text } }
        set { updateContent { $0.assign(newValue) } }
    }

    /// The text as a plain string, or nil for none. Setting a string sets it in ``textStyle`` and
    /// ``paragraphStyle`` (one run).
    public var text: String? {
        get { lock.withLock { content.text?.string } }
        set {
            updateContent { content in
                content.text = newValue.map { AttributedText($0, style: content.textStyle, paragraph: content.paragraphStyle) }
            }
        }
    }

    /// The style of plain strings set through ``text``. Setting it restyles the whole text as one run.
    public var textStyle: TextStyle {
        get { lock.withLock { content.textStyle } }
        set {
            updateContent { content in
                content.textStyle = newValue
                content.text = content.text.map { AttributedText($0.string, style: newValue, paragraph: $0.paragraph) }
            }
        }
    }

    /// How the text wraps and is cut (line limit, truncation, token).
    public var paragraphStyle: ParagraphStyle {
        get { lock.withLock { content.paragraphStyle } }
        set {
            updateContent { content in
                content.paragraphStyle = newValue
                content.text?.paragraph = newValue
            }
        }
    }

    /// Why the measurer refuses the text (a bad size, an unknown family, too long), found when it was set;
    /// nil when it can be measured.
    public var textProblem: TextError? { lock.withLock { content.problem } }

    /// Applies `change` to the content as one atomic change: the new content is checked with the measurer
    /// outside the lock, then stored only over the content it was made from (else made again from the newer
    /// one), together with the style's ascender and descender. Calls `setNeedsLayout` when the text changed.
    private func updateContent(_ change: (inout TextContent) -> Void) {
        while true {
            let current = lock.withLock { content }
            var next = current
            change(&next)
            let isFirst = current.generation == 0
            guard isFirst || !next.sameText(as: current) else { return }
            let check = next.check(with: measurer)
            next.problem = check.problem
            next.generation = current.generation &+ 1
            let stored = withState { state -> Bool in
                guard content.generation == current.generation else { return false }
                content = next
                if let metrics = check.metrics {
                    state.style.ascender = metrics.ascender
                    state.style.descender = metrics.descender
                }
                return true
            }
            guard stored else { continue }
            if !isFirst { setNeedsLayout() }
            return
        }
    }

    // MARK: Measuring

    /// The text as set in lines at most `width` points wide (infinite, or not a valid size: no wrapping); no
    /// text measures as an empty layout with the metrics of ``textStyle``.
    public func measurement(width: Double) throws(TextError) -> TextLayout {
        try measured(width: width).layout
    }

    /// The text and its layout at `width`, both from one reading of the content. Measured during a layout whose
    /// builder has a stop hook, the measurer asks it (see `MeasurementStop`).
    func measured(width: Double) throws(TextError) -> (text: AttributedText, layout: TextLayout) {
        let snapshot = lock.withLock { content }
        if let problem = snapshot.problem { throw problem }
        let text = snapshot.text ?? AttributedText("", style: snapshot.textStyle)
        let constraints = TextConstraints(width: Size.isValid(width) ? width : .infinity)
        guard let stop = MeasurementStop.current else { return (text, try measurer.measure(text, constraints: constraints)) }
        do throws(TextError) {
            return (text, try measurer.measure(text, constraints: constraints, shouldStop: stop.shouldStop))
        } catch {
            if error.isStopped { stop.noteStopped() }
            throw error
        }
    }

    /// A text the measurer refuses is an error naming the node; measurable text measures as
    /// ``calculateSizeThatFits(_:)`` says.
    open override func sizeThatFits(_ constrainedSize: Size) throws(LayoutError) -> Size {
        if let problem = textProblem {
            throw LayoutError("\(displayName) cannot be measured: \(problem)", kind: problem.kind == .limit ? .limit : .invalid)
        }
        return calculateSizeThatFits(constrainedSize)
    }

    /// The measured size of the text in `constrainedSize.width` (0 x 0 for no text, or if measuring failed).
    open override func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
        guard let layout = try? measurement(width: constrainedSize.width) else { return .zero }
        return Size(width: layout.width, height: layout.height)
    }

    /// `text`, the element type of the JSON format.
    open override var kindName: String { "text" }
}
