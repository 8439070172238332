import WeftLayout
import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread key whose value on each thread is an object retained for the thread (`Unmanaged.passRetained`),
/// released when the thread ends.
func threadObjectKey() -> pthread_key_t {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }
    return key
}

/// A per-thread spare `LayoutBuilder`, so that laying out one node after another on a thread reuses the same
/// arena instead of allocating one each time.
///
/// ``withBuilder(scale:_:)`` lends the thread's spare in place (or a new builder when the spare is in use: a
/// layout within a layout on the same thread gets its own) and resets it afterwards. Only the owning thread
/// touches its spare.
package enum BuilderPool {
    private final class Spare {
        // Unchecked: only the owning thread touches its spare, and no access overlaps another (`inUse` keeps a
        // nested layout off it; checked, each loan paid for the runtime's dynamic exclusivity bookkeeping).
        @exclusivity(unchecked) var builder: LayoutBuilder
        @exclusivity(unchecked) var inUse = false
        /// The thread's spare notes for a layout pass.
        @exclusivity(unchecked) var notes: PassNotes?
        /// The node whose layout the spare is lent to compute, and those of the layouts nested within it on this
        /// thread (each with a builder of its own), outermost first; not retained: each caller holds its node.
        /// A node asking for its own layout, or an ancestor's, from its spec is refused with them (each nested
        /// layout starts an empty builder, whose cycle check alone never saw the layouts around it).
        @exclusivity(unchecked) var root: Unmanaged<Node>?
        @exclusivity(unchecked) var nestedRoots: [Unmanaged<Node>] = []

        init(scale: Double) {
            builder = LayoutBuilder(scale: scale)
        }

        /// The nodes whose layouts this thread is computing, outermost first, followed by `node`, if `node` is
        /// among them; nil otherwise.
        func chain(reaching node: Node) -> [Node]? {
            guard let root else { return nil }
            let chain = [root] + nestedRoots
            guard chain.contains(where: { $0.toOpaque() == Unmanaged.passUnretained(node).toOpaque() }) else { return nil }
            return chain.map { $0.takeUnretainedValue() } + [node]
        }
    }

    private static let key = threadObjectKey()

    /// The calling thread's spare (made on its first layout).
    private static func spare(scale: Double) -> Unmanaged<Spare> {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Spare>.fromOpaque(pointer) }
        let spare = Unmanaged.passRetained(Spare(scale: scale))
        pthread_setspecific(key, spare.toOpaque())
        return spare
    }

    /// Calls `body` with the thread's spare builder for `scale`, lent in place (a builder moved out of the spare
    /// and back would be copied twice each way), then resets it. A layout
    /// within `body` on the same thread gets a new builder.
    /// `computing` is the node whose layout the builder computes, if any: when this thread is computing it already
    /// (a layout nested in its own, a spec asking for a layout, that would compute it again and so on without
    /// end), the error `refusing` makes of the nodes being computed (outermost first, then the node) is thrown
    /// and `body` is not called.
    @inline(__always)
    package static func withBuilder<R, E: Error>(
        scale: Double, computing root: Node? = nil, refusing cycle: (_ chain: [Node]) -> E? = { _ in nil },
        _ body: (inout LayoutBuilder) throws(E) -> R
    ) throws(E) -> R {
        // (The outcome is carried out of the closure: the runtime's guaranteed-reference helper does not pass a
        // typed error through.)
        let outcome = spare(scale: scale)._withUnsafeGuaranteedRef { spare -> Result<R, E> in
            if spare.inUse {
                if let root, let chain = spare.chain(reaching: root), let error = cycle(chain) { return .failure(error) }
                var builder = LayoutBuilder(scale: scale)
                if let root { spare.nestedRoots.append(Unmanaged.passUnretained(root)) }
                defer { if root != nil { spare.nestedRoots.removeLast() } }
                do throws(E) { return .success(try body(&builder)) } catch { return .failure(error) }
            }
            // A spare of another scale is replaced (the grid is the builder's for good).
            if spare.builder.grid.scale != scale { spare.builder = LayoutBuilder(scale: scale) }
            spare.inUse = true
            spare.root = root.map { Unmanaged.passUnretained($0) }
            defer {
                spare.builder.reset()
                spare.inUse = false
                spare.root = nil
            }
            do throws(E) { return .success(try body(&spare.builder)) } catch { return .failure(error) }
        }
        return try outcome.get()
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
}
