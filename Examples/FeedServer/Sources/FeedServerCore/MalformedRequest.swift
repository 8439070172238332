import HummingbirdCore
import NIOHTTP1

/// The refusal of a request the HTTP decoder could not read (NIO's `HTTPParserError`): 431 for header fields
/// over the decoder's limits, 400 for anything else, each written with a JSON error body by
/// ``ConnectionTimers/refuseMalformed(_:)``, which then closes the connection.
struct MalformedRequest: Equatable {
    var status: Int
    var reason: String
    var message: String

    /// The refusal of a request that failed with `error` under the decoder's `limits`.
    init(_ error: HTTPParserError, limits: HTTP1Channel.Configuration.DecoderConfiguration) {
        switch error {
        case .headerOverflow:
            status = 431
            reason = "Request Header Fields Too Large"
            message = "the request's header fields are over the limit of \(limits.maxHeaderListSize) bytes in all "
                + "(\(limits.maxHeaderFieldSize) in one) or \(limits.maxHeaderFieldCount) fields"
        default:
            status = 400
            reason = "Bad Request"
            message = "the request is not valid HTTP/1.1: " + Self.what(error)
        }
    }

    /// What is wrong, in words: NIO's description, spelled out for the common cases.
    static func what(_ error: HTTPParserError) -> String {
        switch error {
        case .unexpectedContentLength: return "more than one Content-Length, or a Content-Length with Transfer-Encoding"
        case .invalidContentLength: return "a Content-Length that is not a number"
        case .invalidMethod: return "the request line does not start with a method"
        case .invalidURL: return "the request line's target is not a URL"
        case .invalidVersion: return "the request line does not end with an HTTP version"
        case .invalidHeaderToken: return "a header line with a character not allowed there"
        default: return error.debugDescription
        }
    }
}
