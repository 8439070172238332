/// Measures text with real fonts: HarfBuzz shaping over the faces of a ``FontRegistry``, ICU's UAX #14 line
/// breaking and bidi, and a cache of shaped paragraphs so that measuring the same text again (at any width,
/// size or line limit) only breaks lines.
///
/// Threading: `measure` and `lineMetrics` MAY be called from any thread, concurrently. The registry is an
/// immutable value, fonts are immutable HarfBuzz objects, per-thread scratch holds the mutable ones, and
/// the cache takes a short per-shard lock (see ``ShapeCache``). No lock is held while shaping.
///
/// Characters: a tab is set as a space (no tab stops); line terminators (LF, CR LF, CR, VT, FF, NEL, LS,
/// PS) end lines and are not measured; other controls take the face of the text before them; a grapheme
/// cluster no registered face covers is measured with the run's face's missing-glyph advance.
///
/// Limits: a text longer than ``maximumLength`` UTF-16 code units is refused with a `.limit` error (work and
/// memory are linear in the length: about 15 bytes per code unit while measuring), and so is a grapheme
/// cluster longer than 1,024 code units (a base with that many combining marks; see
/// ``TextAnalysis/maximumClusterLength``), naming its offset. Paragraphs over an eighth of a cache shard are
/// measured but not kept.
public struct FontMeasurer: TextMeasurer {
    public let registry: FontRegistry
    /// The longest text measured, in UTF-16 code units.
    public let maximumLength: Int
    let cache: ShapeCache

    /// The default cache size: 64 MiB, about 25,000 comments of 150 characters.
    public static let defaultCacheCapacity = 64 << 20
    /// The default length limit: 2^20 UTF-16 code units (a 1 MiB ASCII text).
    public static let defaultMaximumLength = 1 << 20

    /// A measurer over `registry`, with its own cache of `cacheCapacity` bytes.
    public init(registry: FontRegistry, cacheCapacity: Int = FontMeasurer.defaultCacheCapacity,
                maximumLength: Int = FontMeasurer.defaultMaximumLength) {
        self.registry = registry
        self.maximumLength = maximumLength
        cache = ShapeCache(capacity: cacheCapacity)
    }

    /// A measurer over ``FontRegistry/standard()``, the Debian fonts, with its own cache.
    public static func standard(cacheCapacity: Int = FontMeasurer.defaultCacheCapacity) throws(TextError) -> FontMeasurer {
        FontMeasurer(registry: try FontRegistry.standard(), cacheCapacity: cacheCapacity)
    }

    /// The shaping cache's counters (hits, misses, evictions, size).
    public var cacheStatistics: TextCacheStatistics { cache.statistics }

    public func measure(_ text: AttributedText, constraints: TextConstraints) throws(TextError) -> TextLayout {
        try measure(text, constraints: constraints, shouldStop: nil)
    }

    /// Asks `shouldStop` every ``StopCheck/interval`` steps of work (see ``StopCheck``): while shaping, breaking
    /// and setting lines. A shaped paragraph is cached only once it is whole.
    public func measure(_ text: AttributedText, constraints: TextConstraints,
                        shouldStop: (@Sendable () -> Bool)?) throws(TextError) -> TextLayout {
        if let problem = text.problem() ?? constraints.problem() { throw problem }
        let count = text.utf16Count
        guard count <= maximumLength else {
            throw TextError("the text has \(count) UTF-16 code units, more than this measurer's limit of \(maximumLength)",
                            path: "string", kind: .limit)
        }
        guard count > 0 else {
            let metrics = try lineMetrics(for: text.runs[0].style)
            return TextLayout(width: 0, height: 0, lines: [], isTruncated: false, truncationToken: nil,
                              ascender: metrics.ascender, descender: metrics.descender)
        }
        var stop = StopCheck(shouldStop)
        let breaker = LineBreaker(paragraph: try shaped(text, stop: &stop), runs: text.runs, maxWidth: constraints.width)
        let setter = LineSetter(breaker: breaker, registry: registry)
        let options = text.paragraph
        var (spans, more) = try breaker.spans(wrapping: options.wrapping, limit: options.maximumNumberOfLines, stop: &stop)
        var lines: [TextLine] = []
        lines.reserveCapacity(spans.count)
        var top = 0.0
        var token: String?
        if more, options.truncation == .tail, let last = spans.popLast() {
            for span in spans {
                try stop.add(StopCheck.callSteps)
                lines.append(setter.line(span, top: top))
                top += lines[lines.count - 1].height
            }
            let (cut, measured) = try truncate(from: last.start, text: text, setter: setter)
            lines.append(setter.line(cut, top: top, token: measured))
            top += lines[lines.count - 1].height
            token = options.truncationToken
        } else {
            for span in spans {
                try stop.add(StopCheck.callSteps)
                lines.append(setter.line(span, top: top))
                top += lines[lines.count - 1].height
            }
        }
        let widest = lines.reduce(0.0) { max($0, $1.width) }
        return TextLayout(width: widest, height: top, lines: lines, isTruncated: more, truncationToken: token,
                          ascender: lines[0].baseline, descender: lines[lines.count - 1].baseline - top)
    }

    /// The last line from `start` cut for the token, and the token measured in the style of the text it
    /// follows (found from the uncut line, then once more if the cut moved into another style run).
    private func truncate(from start: Int, text: AttributedText,
                          setter: LineSetter) throws(TextError) -> (Span, LineSetter.Token) {
        var style = text.style(at: start)
        var token = try measureToken(text.paragraph.truncationToken, style: style)
        var cut = setter.truncated(from: start, tokenWidth: token.width)
        let kept = text.style(at: max(start, cut.visible - 1))
        if kept != style {
            style = kept
            token = try measureToken(text.paragraph.truncationToken, style: style)
            cut = setter.truncated(from: start, tokenWidth: token.width)
        }
        return (cut, token)
    }

    private func measureToken(_ token: String, style: TextStyle) throws(TextError) -> LineSetter.Token {
        let text = AttributedText(token, style: style)
        guard text.utf16Count > 0 else { return LineSetter.Token(width: 0, font: nil, size: style.size) }
        var stop = StopCheck(nil)
        let paragraph = try shaped(text, stop: &stop)
        let breaker = LineBreaker(paragraph: paragraph, runs: text.runs, maxWidth: .infinity)
        let face = paragraph.segments.first.map { registry.entries[Int($0.face)].face }
        return LineSetter.Token(width: breaker.width(0, paragraph.length), font: face, size: style.size)
    }

    /// The shaped paragraph of `text`, from the cache or shaped now (and kept once whole: a stopped shaping
    /// throws before anything is kept).
    func shaped(_ text: AttributedText, stop: inout StopCheck) throws(TextError) -> ShapedParagraph {
        let key = ShapeKey(text)
        if let paragraph = cache.lookup(key) { return paragraph }
        let paragraph = try Shaper.shape(text, registry: registry, stop: &stop)
        cache.insert(paragraph, for: key)
        return paragraph
    }

    public func lineMetrics(for style: TextStyle) throws(TextError) -> LineMetrics {
        if let problem = style.problem() { throw problem }
        let face = try registry.face(family: style.family, weight: style.weight, isItalic: style.isItalic)
        let ascent = face.ascender * style.size, descent = -face.descender * style.size
        let height = style.lineHeight ?? face.naturalLineHeight(size: style.size)
        let baseline = (height - ascent - descent) / 2 + ascent
        return LineMetrics(ascender: baseline, descender: baseline - height)
    }
}
