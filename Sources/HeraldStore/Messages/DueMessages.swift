/// How instances sharing a PostgreSQL database hear of work due now.
public enum DueMessages {
    /// The LISTEN/NOTIFY channel on which a publish whose message is due at once notifies (at its commit),
    /// so every instance's dispatcher claims its share then rather than at its next poll. A publish whose
    /// instance sends the message itself (`MessageStore.insertClaimed`) notifies only when the message has
    /// other slices to share.
    public static let notifyChannel = "herald_due"
}
