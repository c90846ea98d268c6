extension DownloadManager {
    /// Sends a snapshot of each running transfer whose `timeRemaining` became unknown since the last one it
    /// sent. The estimate turns to -1 once no byte arrived for the estimator's stall time, and a stalled
    /// transfer sends no progress that would carry the news; the command poll calls this, so a listener
    /// learns of a stall within one poll interval.
    func reportStalls() {
        let now = MonotonicTime.now()
        for id in active {
            guard let state = live[id], state.sentTimeRemaining != downloadTimeRemainingUnknown,
                  let record = records[id], record.downloadState == .active,
                  state.pace.timeRemaining(total: record.expectedLength, counted: state.downloadedBytes, at: now)
                  == downloadTimeRemainingUnknown
            else { continue }
            emit(id, force: true)
        }
    }
}
