import FeedServerCore
import NIOCore
import Testing

/// The RESP2 reader and writer of the shared cache's Redis client (the protocol as the Redis documentation
/// specifies it: a type byte, a line ended by CRLF, and for bulk strings that many bytes and a CRLF).
@Suite struct RESPTests {
    func values(_ text: String, parser: RESPParser = RESPParser()) throws -> [RESPValue] {
        var buffer = ByteBuffer(string: text)
        var values: [RESPValue] = []
        while let value = try parser.next(&buffer) { values.append(value) }
        #expect(buffer.readableBytes == 0)
        return values
    }

    @Test func readsEveryType() throws {
        let read = try values("+OK\r\n-ERR wrong type\r\n:42\r\n:-7\r\n$3\r\nfoo\r\n$0\r\n\r\n$-1\r\n*2\r\n$1\r\na\r\n:1\r\n*-1\r\n*0\r\n")
        #expect(read == [
            .simpleString("OK"), .error("ERR wrong type"), .integer(42), .integer(-7), .bulk(Array("foo".utf8)),
            .bulk([]), .bulk(nil), .array([.bulk([UInt8(ascii: "a")]), .integer(1)]), .array(nil), .array([]),
        ])
    }

    @Test func aBulkStringMayHoldCRLF() throws {
        #expect(try values("$4\r\na\r\nb\r\n") == [.bulk(Array("a\r\nb".utf8))])
    }

    /// Every split of a frame into two reads: nothing is consumed until the value is whole.
    @Test func partialFramesWaitForTheRest() throws {
        let frame = Array("*3\r\n$5\r\nhello\r\n:12\r\n+PONG\r\n".utf8)
        let parser = RESPParser()
        for cut in 1..<frame.count {
            var buffer = ByteBuffer(bytes: frame[..<cut])
            #expect(try parser.next(&buffer) == nil, "cut at \(cut)")
            #expect(buffer.readableBytes == cut)
            buffer.writeBytes(frame[cut...])
            #expect(try parser.next(&buffer) == .array([.bulk(Array("hello".utf8)), .integer(12), .simpleString("PONG")]))
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test(arguments: [
        ("?x\r\n", "byte 0: unknown type byte 63 (expected one of + - : $ *)"),
        (":abc\r\n", "byte 0: expected a whole number, got abc"),
        ("$-2\r\n", "byte 0: a bulk length of -2"),
        ("*-5\r\n", "byte 0: an array count of -5"),
        ("$3\r\nfooXY", "byte 0: a bulk string of 3 bytes not followed by CRLF"),
        ("+OK\rX", "byte 0: a CR not followed by LF"),
    ])
    func badFramesAreRefusedSayingWhere(_ frame: String, _ message: String) {
        var buffer = ByteBuffer(string: frame)
        #expect(throws: RESPError(message)) { _ = try RESPParser().next(&buffer) }
    }

    @Test func hugeLengthsAreRefusedBeforeWaitingForTheBytes() {
        let parser = RESPParser(maxBulkBytes: 1_000, maxArrayCount: 10)
        var bulk = ByteBuffer(string: "$1001\r\n")
        #expect(throws: RESPError("byte 0: a bulk string of 1001 bytes, more than the limit of 1000")) { _ = try parser.next(&bulk) }
        var array = ByteBuffer(string: "*11\r\n")
        #expect(throws: RESPError("byte 0: an array of 11 values, more than the limit of 10")) { _ = try parser.next(&array) }
        var enormous = ByteBuffer(string: "$99999999999999999999999\r\n")
        #expect(throws: RESPError.self) { _ = try parser.next(&enormous) }
        var nested = ByteBuffer(string: String(repeating: "*1\r\n", count: 20) + ":1\r\n")
        #expect(throws: RESPError("byte 32: arrays nested deeper than 8")) { _ = try RESPParser().next(&nested) }
    }

    @Test func aLineWithoutItsEndIsRefusedPastTheLimit() throws {
        let parser = RESPParser(maxLineBytes: 16)
        var short = ByteBuffer(string: "+" + String(repeating: "a", count: 15))
        #expect(try parser.next(&short) == nil)
        var long = ByteBuffer(string: "+" + String(repeating: "a", count: 16))
        #expect(throws: RESPError("byte 0: a line longer than 16 bytes")) { _ = try parser.next(&long) }
    }

    @Test func commandsAreArraysOfBulkStrings() {
        var buffer = ByteBuffer()
        RESPCommand.write([Array("SET".utf8), Array("k".utf8), Array("a b\r\n".utf8), Array("EX".utf8), Array("60".utf8)],
                          to: &buffer)
        #expect(String(buffer: buffer) == "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na b\r\n\r\n$2\r\nEX\r\n$2\r\n60\r\n")
    }
}
