internal import CHarfBuzz
internal import CICU
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The mutable objects shaping needs, one set per thread: a HarfBuzz buffer, ICU's line and grapheme
/// break iterators, and an ICU bidi object.
///
/// None of these may be used by two threads at once, and making them is slow (an ICU break iterator takes
/// tens of microseconds), so each thread makes its own on first use and keeps it until the thread ends.
/// Only the owning thread touches its scratch, and one measurement uses it at a time (shaping never
/// re-enters itself), so no lock is needed.
final class ShapingScratch {
    let buffer: OpaquePointer
    let lineBreaks: OpaquePointer
    let graphemes: OpaquePointer
    let bidi: OpaquePointer
    /// The UTF-16 units of the text being shaped: kept between texts up to ``keptUnits`` code units.
    private var units = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 256)
    static let keptUnits = 1 << 16

    private init(buffer: OpaquePointer, lineBreaks: OpaquePointer, graphemes: OpaquePointer, bidi: OpaquePointer) {
        self.buffer = buffer
        self.lineBreaks = lineBreaks
        self.graphemes = graphemes
        self.bidi = bidi
    }

    deinit {
        units.deallocate()
        hb_buffer_destroy(buffer)
        weft_break_close(lineBreaks)
        weft_break_close(graphemes)
        weft_bidi_close(bidi)
    }

    /// Calls `body` with room for `count` UTF-16 units: the thread's kept buffer, or for a long text one of
    /// its own, freed after.
    func withUnits<R>(count: Int, _ body: (UnsafeMutableBufferPointer<UInt16>) throws(TextError) -> R) throws(TextError) -> R {
        if count > Self.keptUnits {
            let own = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: count)
            defer { own.deallocate() }
            return try body(own)
        }
        if units.count < count {
            units.deallocate()
            units = .allocate(capacity: max(count, units.count * 2))
        }
        return try body(UnsafeMutableBufferPointer(rebasing: units[0..<count]))
    }

    private static func make() throws(TextError) -> ShapingScratch {
        var status: Int32 = 0
        let lineBreaks = weft_break_open(1, &status)
        let graphemes = weft_break_open(0, &status)
        let bidi = weft_bidi_open()
        let buffer = hb_buffer_create()
        guard status <= 0, let lineBreaks, let graphemes, let bidi, let buffer,
              hb_buffer_allocation_successful(buffer) != 0 else {
            if let lineBreaks { weft_break_close(lineBreaks) }
            if let graphemes { weft_break_close(graphemes) }
            if let bidi { weft_bidi_close(bidi) }
            hb_buffer_destroy(buffer)
            throw TextError("ICU or HarfBuzz could not start (ICU status \(status))", kind: .font)
        }
        return ShapingScratch(buffer: buffer, lineBreaks: lineBreaks, graphemes: graphemes, bidi: bidi)
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ShapingScratch>.fromOpaque(pointer).release()
        }
        return key
    }()

    /// This thread's scratch, made on first use.
    static func current() throws(TextError) -> ShapingScratch {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ShapingScratch>.fromOpaque(pointer).takeUnretainedValue()
        }
        let scratch = try make()
        pthread_setspecific(key, Unmanaged.passRetained(scratch).toOpaque())
        return scratch
    }
}
