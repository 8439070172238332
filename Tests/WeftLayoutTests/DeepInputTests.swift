import Foundation
import Testing
import WeftFormat
import WeftLayout

/// Runs `body` on a thread with a `stackSize`-byte stack and waits for it.
func onThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
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

final class Locked2<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ value: T) { lock.withLock { self.value = value } }
    func get() -> T { lock.withLock { value } }
}
