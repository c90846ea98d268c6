/// Commands another process can leave in the journal for the driving process.
public enum RequestedCommand: String, Sendable, Codable {
    /// Take the transfer off the wire, keep the partial data.
    case pause
    /// Continue a paused download.
    case resume
    /// Stop and delete partial data.
    case cancel
}
