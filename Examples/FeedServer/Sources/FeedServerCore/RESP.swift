import NIOCore

/// A value of RESP2, the Redis protocol: what a Redis server answers.
public enum RESPValue: Sendable, Equatable {
    /// `+OK`
    case simpleString(String)
    /// `-ERR ...`
    case error(String)
    /// `:42`
    case integer(Int)
    /// `$3 foo`, or `$-1` (nil: the key does not exist).
    case bulk([UInt8]?)
    /// `*2 ...`, or `*-1` (nil).
    case array([RESPValue]?)
}

/// A RESP2 frame that cannot be read: names what was wrong and where (the byte offset in the stream's
/// current frame).
public struct RESPError: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Reads RESP2 values from the front of a byte buffer, one at a time, as bytes arrive.
///
/// ``next(_:)`` returns nil (consuming nothing) while the buffer holds only part of a value, so a frame split
/// anywhere across reads is read once it is whole. Refused with a ``RESPError``: an unknown type byte, a
/// length or integer that is not a number, a negative length other than -1, a bulk string longer than
/// ``maxBulkBytes``, an array of more than ``maxArrayCount`` values or nested deeper than ``maxDepth``, a line
/// longer than ``maxLineBytes`` without its CRLF, and a bulk string not followed by CRLF. After an error the
/// stream cannot be resynchronized: the connection must be closed.
///
/// Work: a line is scanned once per read that brings more of it (at most ``maxLineBytes``); a bulk string's
/// bytes are checked for length only, then copied once.
public struct RESPParser: Sendable {
    /// The longest bulk string accepted (default 16 MiB: a page of cells is far less).
    public var maxBulkBytes: Int
    /// The most values in one array.
    public var maxArrayCount: Int
    /// The deepest nesting of arrays.
    public var maxDepth: Int
    /// The longest line (a simple string, an error, a length) accepted.
    public var maxLineBytes: Int

    public init(maxBulkBytes: Int = 16 << 20, maxArrayCount: Int = 1 << 16, maxDepth: Int = 8, maxLineBytes: Int = 64 << 10) {
        self.maxBulkBytes = maxBulkBytes
        self.maxArrayCount = maxArrayCount
        self.maxDepth = maxDepth
        self.maxLineBytes = maxLineBytes
    }

    /// The next whole value at the front of `buffer`, consumed; nil (nothing consumed) if it is not whole yet.
    public func next(_ buffer: inout ByteBuffer) throws(RESPError) -> RESPValue? {
        var view = buffer
        guard let value = try read(&view, depth: 0) else { return nil }
        buffer.moveReaderIndex(to: view.readerIndex)
        return value
    }

    private func read(_ buffer: inout ByteBuffer, depth: Int) throws(RESPError) -> RESPValue? {
        guard let type: UInt8 = buffer.getInteger(at: buffer.readerIndex) else { return nil }
        let start = buffer.readerIndex
        guard let line = try line(&buffer) else { return nil }
        let text = line.dropFirst()
        switch type {
        case UInt8(ascii: "+"):
            return .simpleString(String(decoding: text, as: UTF8.self))
        case UInt8(ascii: "-"):
            return .error(String(decoding: text, as: UTF8.self))
        case UInt8(ascii: ":"):
            return .integer(try number(text, at: start))
        case UInt8(ascii: "$"):
            let length = try number(text, at: start)
            if length == -1 { return .bulk(nil) }
            guard length >= 0 else { throw RESPError("byte \(start): a bulk length of \(length)") }
            guard length <= maxBulkBytes else {
                throw RESPError("byte \(start): a bulk string of \(length) bytes, more than the limit of \(maxBulkBytes)")
            }
            guard buffer.readableBytes >= length + 2 else { return nil }
            let bytes = buffer.readBytes(length: length) ?? []
            guard buffer.readInteger(as: UInt16.self) == 0x0D0A else {
                throw RESPError("byte \(start): a bulk string of \(length) bytes not followed by CRLF")
            }
            return .bulk(bytes)
        case UInt8(ascii: "*"):
            let count = try number(text, at: start)
            if count == -1 { return .array(nil) }
            guard count >= 0 else { throw RESPError("byte \(start): an array count of \(count)") }
            guard count <= maxArrayCount else {
                throw RESPError("byte \(start): an array of \(count) values, more than the limit of \(maxArrayCount)")
            }
            guard depth < maxDepth else { throw RESPError("byte \(start): arrays nested deeper than \(maxDepth)") }
            var values: [RESPValue] = []
            for _ in 0..<count {
                guard let value = try read(&buffer, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .array(values)
        default:
            throw RESPError("byte \(start): unknown type byte \(type) (expected one of + - : $ *)")
        }
    }

    /// The next line less its CRLF, consumed; nil if its CRLF has not arrived.
    private func line(_ buffer: inout ByteBuffer) throws(RESPError) -> [UInt8]? {
        let view = buffer.readableBytesView
        // The CR of a line of at most maxLineBytes (its type byte included) lies within the first maxLineBytes + 1.
        let limit = min(view.endIndex, view.startIndex + maxLineBytes + 1)
        var index = view.startIndex
        while index < limit {
            if view[index] == 0x0D {
                guard index + 1 < view.endIndex else { return nil }
                guard view[index + 1] == 0x0A else {
                    throw RESPError("byte \(buffer.readerIndex): a CR not followed by LF")
                }
                let line = buffer.readBytes(length: index - view.startIndex) ?? []
                buffer.moveReaderIndex(forwardBy: 2)
                return line
            }
            index += 1
        }
        if view.count > maxLineBytes {
            throw RESPError("byte \(buffer.readerIndex): a line longer than \(maxLineBytes) bytes")
        }
        return nil
    }

    private func number(_ text: ArraySlice<UInt8>, at start: Int) throws(RESPError) -> Int {
        guard text.count <= 20, let value = Int(String(decoding: text, as: UTF8.self)) else {
            throw RESPError("byte \(start): expected a whole number, got \(String(decoding: text.prefix(24), as: UTF8.self))")
        }
        return value
    }
}

/// Writes commands in RESP2: each an array of bulk strings.
public enum RESPCommand {
    /// Appends `arguments` (such as `SET key value PX 100`) to `buffer` as one command.
    public static func write(_ arguments: [[UInt8]], to buffer: inout ByteBuffer) {
        buffer.writeString("*\(arguments.count)\r\n")
        for argument in arguments {
            buffer.writeString("$\(argument.count)\r\n")
            buffer.writeBytes(argument)
            buffer.writeStaticString("\r\n")
        }
    }
}
