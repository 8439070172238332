import WeftLayout
// Users of the node layer get the lock type with it (data sources, cells with state of their own).
@_exported import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread spare `LayoutBuilder`, so that laying out one node after another on a thread reuses the same
/// arena instead of allocating one each time.
///
/// `take` hands out the thread's spare (or a new builder when the spare is in use: nested layouts get their
/// own) and `give` puts it back. Only the owning thread touches its spare.
package enum BuilderPool {
    private final class Spare {
        // Unchecked: only the owning thread touches its spare, and no access overlaps another (checked, each
        // take and give paid for the runtime's dynamic exclusivity bookkeeping).
        @exclusivity(unchecked) var builder: LayoutBuilder?
        /// The thread's spare notes for a layout pass.
        @exclusivity(unchecked) var notes: PassNotes?

        var isEmpty: Bool {
            switch builder {
            case .none: return true
            case .some: return false
            }
        }

        init(_ builder: consuming LayoutBuilder) {
            self.builder = consume builder
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    package static func take(scale: Double) -> LayoutBuilder {
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if let builder = spare.builder.take(), builder.grid.scale == scale {
                return builder
            }
        }
        return LayoutBuilder(scale: scale)
    }

    /// The thread's spare notes for a layout pass (or new ones when they are in use: a pass within a pass).
    static func takeNotes() -> PassNotes {
        if let pointer = pthread_getspecific(key), let notes = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue().notes.take() {
            return notes
        }
        return PassNotes()
    }

    /// Puts `notes` back as the thread's spare, cleared.
    static func giveNotes(_ notes: PassNotes) {
        notes.clear()
        guard let pointer = pthread_getspecific(key) else { return }
        let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
        if spare.notes == nil { spare.notes = notes }
    }

    package static func give(_ builder: consuming LayoutBuilder) {
        builder.reset()
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if spare.isEmpty { spare.builder = consume builder }
            return
        }
        pthread_setspecific(key, Unmanaged.passRetained(Spare(builder) as AnyObject).toOpaque())
    }
}
