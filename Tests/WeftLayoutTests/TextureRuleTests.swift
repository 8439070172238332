import Testing
import WeftLayout

/// Texture's small rules checked one by one, each with numbers from Texture's own source or comments.
///
/// The layout fixtures check the same rules inside whole layouts; these pin the helpers themselves.
@Suite("Texture rules")
struct TextureRuleTests {
    @Test("Ceil and floor to the pixel grid absorb floating-point noise with FLT_EPSILON")
    func pixelGrid() {
        let three = PixelGrid(scale: 3)
        // ASCeilPixelValue's comment: 100.666666666669 x 3 = 302.000000000007 px would ceil to 303 px (101);
        // with FLT_EPSILON subtracted first it is 301.9999996 px -> 302 px = 100.666...
        #expect(three.ceil(100.666666666669) == 302.0 / 3)
        // ASFloorPixelValue's comment: 100.66666666663 x 3 = 301.9999999999 px would floor to 301 px (100.333);
        // with FLT_EPSILON added first it is 302.0000004 px -> 302 px = 100.666...
        #expect(three.floor(100.66666666663) == 302.0 / 3)
        // 0.57 x 400 is 227.99999999999997 in doubles: at scale 2, 456.0000002 px -> 456 px = 228.
        #expect(PixelGrid(scale: 2).floor(0.57 * 400) == 228)
        // Values clearly inside a pixel still go down and up: 10.2 at scale 2 is 20.4 px.
        #expect(PixelGrid(scale: 2).floor(10.2) == 10)
        #expect(PixelGrid(scale: 2).ceil(10.2) == 10.5)
        // Rounding to the nearest pixel has no epsilon: 33.5 at scale 3 is 100.5 px -> 101 px.
        #expect(three.round(33.5) == 101.0 / 3)
    }
}
