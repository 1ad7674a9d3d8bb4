/// Where a published message is in its life. Stored as the raw value.
///
/// `scheduled` and `running` are both "scheduled" to a Backendless client: a message is published
/// only once its (last) occurrence has been handed to APNs.
public enum MessageStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for its next occurrence (`dueAt`).
    case scheduled
    /// A dispatcher is sending the current occurrence (or one was, and died: the lease tells).
    case running
    /// Every occurrence is done.
    case published
    /// Stopped for a reason that applies to every device (no credentials, credentials refused).
    case failed
    /// Cancelled by the publisher; no further occurrence.
    case cancelled

    /// The status a Backendless client sees.
    public var contractStatus: String {
        switch self {
        case .scheduled, .running: "scheduled"
        case .published: "published"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}
