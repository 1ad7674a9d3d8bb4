/// The events an app's webhook receives.
public enum WebhookEventType: String, Sendable, CaseIterable {
    /// The device's push service said its token is gone: Herald removed the device and its registrations.
    case deviceTokenRemoved = "device.tokenRemoved"
    /// The device was switched off: by its push service refusing its token, or by an admin.
    case deviceDeactivated = "device.deactivated"
    /// An occurrence of a message ended (sent to everyone, failed, or cancelled), with its counts.
    case messageFinished = "message.finished"
}
