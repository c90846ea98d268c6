internal import Metrics

/// The library's swift-metrics instruments: no-ops until the host bootstraps a backend (`MetricsSystem.bootstrap`,
/// e.g. swift-prometheus), then counters, a gauge and a timer a service can chart and alert on.
///
/// Labels carry no product identifier (unbounded cardinality); a failure's dimension is its error code.
///
/// | label | kind | what |
/// | --- | --- | --- |
/// | `iapcontent_download_bytes` | counter | body bytes received |
/// | `iapcontent_download_retries` | counter | attempts retried after a failure |
/// | `iapcontent_downloads_finished` | counter | downloads verified (and installed, through a queue) |
/// | `iapcontent_downloads_failed` | counter | downloads that failed for good, by `code` |
/// | `iapcontent_downloads_active` | gauge | transfers running |
/// | `iapcontent_install_duration` | timer | verified → installed |
enum DownloadMetrics {
    static func received(bytes: Int64) {
        guard bytes > 0 else { return }
        Counter(label: "iapcontent_download_bytes").increment(by: bytes)
    }

    static func retried() { Counter(label: "iapcontent_download_retries").increment() }

    static func finished() { Counter(label: "iapcontent_downloads_finished").increment() }

    static func failed(code: String) { Counter(label: "iapcontent_downloads_failed", dimensions: [("code", code)]).increment() }

    static func active(_ count: Int) { Gauge(label: "iapcontent_downloads_active").record(count) }

    static func installed(seconds: Double) { Metrics.Timer(label: "iapcontent_install_duration").recordSeconds(seconds) }
}
