/// Where the shared cache's Redis server listens.
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` (the host may be empty: 127.0.0.1), or nil when the text is not of that shape.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        let host = String(text[..<colon])
        self.init(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }

    public var description: String { "\(host):\(port)" }
}

extension FeedServerConfiguration {
    /// The settings of the fleet (font sets, the shared cache) that the main switch leaves to this one.
    mutating func setFleet(_ flag: String, to text: String, source: String) throws(ConfigurationError) {
        switch flag {
        case "font-set":
            // NAME=DIR; the environment variable may hold several, separated by commas.
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let equals = item.firstIndex(of: "="), FontSets.isValidName(item[..<equals]),
                      item[..<equals] != FontSets.defaultName, item.index(after: equals) < item.endIndex else {
                    throw ConfigurationError(description: "\(source): expected NAME=DIR (a name of letters, digits, "
                                             + "'-' or '_', not \"default\"), got \"\(item)\"")
                }
                fontSetDirectories[String(item[..<equals])] = String(item[item.index(after: equals)...])
            }
        case "redis":
            if text.isEmpty || text == "off" {
                redis = nil
            } else if let address = RedisAddress(text) {
                redis = address
            } else {
                throw ConfigurationError(description: "\(source): expected HOST:PORT (or \"off\"), got \"\(text)\"")
            }
        case "cache-version":
            guard FontSets.isValidName(text) else {
                throw ConfigurationError(description: "\(source): expected 1 to 64 letters, digits, '-' or '_', got \"\(text)\"")
            }
            cacheVersion = text
        default:
            throw ConfigurationError(description: "\(source): unknown setting")
        }
    }

    /// The problem with the fleet's settings, naming the setting, or nil.
    var fleetProblem: String? {
        if !(1...64).contains(redisConnections) { return "redis-connections: expected 1 to 64, got \(redisConnections)" }
        if redisTimeout <= .zero { return "redis-timeout: expected a time > 0, got \(redisTimeout)" }
        if redisTTL < 1 { return "redis-ttl: expected a number of seconds >= 1, got \(redisTTL)" }
        return nil
    }
}
