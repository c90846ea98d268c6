public import ContentPackaging

/// Knobs of the download manager: concurrency, bandwidth, retries and the engine's settings.
public struct DownloadOptions: Sendable, Equatable {
    /// Transfers running at once. A verified download that is still installing (its post-verify
    /// step) no longer holds a slot, so the next transfer starts meanwhile.
    public var concurrency: Int = 3
    /// Global receive cap in bytes/s, divided among active transfers (0 = none).
    public var maxBytesPerSecond: Int64 = 0
    /// Attempts per download before `failed` (transient errors only).
    public var maxAttempts: Int = 5
    /// First retry delay in seconds; doubles per attempt, ±20 % jitter.
    public var retryBaseDelay: Double = 1
    /// Longest computed retry delay.
    public var retryMaxDelay: Double = 30
    /// Longest `Retry-After` honoured.
    public var retryAfterCap: Double = 60
    /// How often the journal is polled for commands from other processes.
    public var commandPollInterval: Double = 0.3
    /// Seconds between two progress updates of an active download: the updates come at this steady cadence
    /// (however the server paces its bytes), never closer together; a transfer's first comes as soon as its first
    /// bytes arrive. State changes are never held back.
    public var progressInterval: Double = 0.25
    /// Engine settings (timeouts, stall detection, CA file, checkpoints).
    public var transfer = TransferSettings()
    /// What this device is on each variant axis (languages, architecture, texture formats, custom axes): a
    /// product's first install picks its variants from it. Defaults to the system's (`LANGUAGE`/`LANG`, `uname -m`).
    public var deviceProfile = DeviceProfile.system()
    /// Whether a purchase's prefetch packs are installed right after its essential ones, in the background (a
    /// second download the transaction does not wait for; ``ContentQueue/waitForPrefetches()``).
    public var prefetchesPacks = true

    /// Defaults: 3 at once, no caps, 5 attempts.
    public init() {}

    /// The delay before retry number `attempt` (1-based), honouring `retryAfter` (capped).
    public func retryDelay(attempt: Int, retryAfter: Double?, jitter: Double = Double.random(in: -0.2...0.2)) -> Double {
        if let retryAfter, retryAfter >= 0 { return min(retryAfter, retryAfterCap) }
        let base = min(retryMaxDelay, retryBaseDelay * Double(1 << min(max(attempt - 1, 0), 20)))
        return max(0, base * (1 + jitter))
    }
}
