import Foundation
import Testing
import WeftFormat
import WeftLayout
import WeftSync

/// Runs `body` on a thread with a `stackSize`-byte stack and waits until the thread has ended, so that it has
/// let go of `body` and what `body` captured by then: the caller's references outlive the thread's. (A
/// `Foundation.Thread` signalling a semaphore let go of its closure after the signal, sometimes last: a deep
/// value spec tree it captured was then freed on the small thread, recursively, and ran off its stack.)
func onThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    let work = Unmanaged.passRetained(Work(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, &attributes, { pointer in
        Unmanaged<Work>.fromOpaque(pointer!).takeRetainedValue().body()
        return nil
    }, work)
    guard created == 0 else {
        Unmanaged<Work>.fromOpaque(work).release()
        Issue.record("pthread_create failed: \(created)")
        return
    }
    pthread_join(thread, nil)
}

@Suite("Deep input")
struct DeepInputTests {
    /// A document nested as deep as the decoder allows decodes and lays out on a thread with the
    /// recommended stack (the parser keeps no stack of its own; decoding and layout recurse once per level).
    @Test("A document at the nesting limit decodes and lays out on a thread of the recommended stack size")
    func atTheLimit() {
        let depth = LayoutDecoder.Limits().maxDepth
        var text = #"{"type": "box", "size": [10, 10]}"#
        for i in 1..<depth {
            text = i % 2 == 0
                ? #"{"type": "stack", "direction": "vertical", "children": ["# + text + "]}"
                : #"{"type": "inset", "insets": 1, "child": "# + text + "}"
        }
        let input = text
        let result = Locked2<String>("")
        onThread(stackSize: LayoutDecoder.recommendedStackSize) {
            do {
                let document = try LayoutDecoder().decode(input)
                let layout = try Layout.compute(document.root, in: .unconstrained)
                result.set("\(layout.size)")
            } catch {
                result.set("\(error)")
            }
        }
        // Every inset adds 2 in each direction: (depth / 2) insets around 10 x 10.
        let side = 10 + 2 * Double(depth / 2)
        #expect(result.get() == "\(Size(side, side))")
    }

    /// Well-formed documents one level too deep and 100 times too deep: each is refused as a limit (not as
    /// malformed JSON, which would hide a missing depth check). Decoding recurses once per level, so it runs on
    /// a thread of the recommended stack size, as `weft layout` does.
    @Test("Nesting beyond the limit is refused as a limit, however deep")
    func beyondTheLimit() {
        let limit = LayoutDecoder.Limits().maxDepth
        for depth in [limit + 1, limit * 100] {
            let text = String(repeating: #"{"type": "wrapper", "children": ["#, count: depth - 1)
                + #"{"type": "box"}"# + String(repeating: "]}", count: depth - 1)
            let outcome = Locked2<String>("")
            onThread(stackSize: LayoutDecoder.recommendedStackSize) {
                do throws(LayoutError) {
                    _ = try LayoutDecoder().decode(text)
                    outcome.set("accepted")
                } catch {
                    outcome.set(error.kind == .limit && error.reason.contains("deeper than") ? "limit" : "\(error)")
                }
            }
            #expect(outcome.get() == "limit", "\(depth) levels: refused as a depth limit")
        }
    }
}

/// Trees built in code have no depth limit of their own, and laying one out nests a call per level (about
/// 1 KB of stack per spec in a release build, more in a debug one; adding a value spec tree to an arena, a few
/// hundred bytes): deep enough, a tree ran off the thread's stack (signal 11; about 8,600 nested stacks on an
/// 8 MB thread). Each level now checks the stack first and refuses to go deeper within the last quarter of it
/// (at most 256 KiB). A 512 KiB thread keeps these trees small enough to free on the test's own thread (the
/// runtime frees a nested value recursively too).
@Suite("Deeper than the stack")
struct DeeperThanTheStackTests {
    static let stackSize = 512 << 10

    /// The outcome of laying `element` out on a thread with a ``stackSize`` stack, as a string: the size, or
    /// `limit` for the stack's error (its path checked to lead from the root down the tree, `place` after `place`),
    /// or the error.
    static func outcome(_ element: any LayoutElement, place: String) -> String {
        let result = Locked2<String>("")
        onThread(stackSize: stackSize) {
            do throws(LayoutError) {
                result.set("\(try Layout.compute(element, in: .unconstrained).size)")
            } catch {
                let expected = error.kind == .limit && error.reason.hasPrefix("nested too deep for this thread's stack: ")
                    && error.reason.hasSuffix("KiB of it left (lay deep trees out on a thread with a larger stack)")
                    && error.path.hasPrefix("root.\(place).\(place)")
                result.set(expected ? "limit" : "\(error)")
            }
        }
        return result.get()
    }

    @Test("Specs built with a SpecBuilder too deep for the thread's stack are refused; a shallow tree then lays out")
    func builtSpecs() {
        func tree(_ depth: Int) -> Spec {
            var specs = SpecBuilder()
            var top = specs.box(size: Size(10, 10))
            for _ in 0..<depth { top = specs.inset(EdgeInsets(all: 1), top) }
            return specs.finish(top)
        }
        #expect(Self.outcome(tree(20_000), place: "child") == "limit")
        // Each inset adds 1 on every side.
        #expect(Self.outcome(tree(20), place: "child") == "\(Size(50, 50))")
    }

    @Test("A value spec tree too deep for the thread's stack is refused, whether adding it to an arena or laying it out runs short")
    func valueSpecs() {
        var element: any LayoutElement = Box(size: Size(10, 10))
        for _ in 0..<1_000 { element = StackSpec.vertical(children: [InsetSpec(insets: EdgeInsets(all: 1), child: element)]) }
        #expect(Self.outcome(element, place: "children[0].child") == "limit")
        var shallow: any LayoutElement = Box(size: Size(10, 10))
        for _ in 0..<20 { shallow = StackSpec.vertical(children: [InsetSpec(insets: EdgeInsets(all: 1), child: shallow)]) }
        #expect(Self.outcome(shallow, place: "children[0].child") == "\(Size(50, 50))")
    }

    /// The guard is prepared by a thread's first layout builder; a value spec added with a SpecBuilder before any
    /// ran unguarded (and crashed) on a thread that had made none.
    @Test("A value spec tree added with a SpecBuilder, on a thread that has laid nothing out yet, is refused too")
    func valueSpecsInABuilder() {
        var element: any LayoutElement = Box(size: Size(10, 10))
        for _ in 0..<1_000 { element = StackSpec.vertical(children: [InsetSpec(insets: EdgeInsets(all: 1), child: element)]) }
        let tree = element
        let result = Locked2<String>("")
        onThread(stackSize: Self.stackSize) {
            var specs = SpecBuilder()
            let spec = specs.finish(specs.stack(children: [tree]))
            do throws(LayoutError) {
                result.set("\(try Layout.compute(spec, in: .unconstrained).size)")
            } catch {
                result.set(error.kind == .limit && error.reason.hasPrefix("nested too deep") ? "limit" : "\(error)")
            }
        }
        #expect(result.get() == "limit")
    }
}

final class Locked2<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ value: T) { lock.withLock { self.value = value } }
    func get() -> T { lock.withLock { value } }
}
