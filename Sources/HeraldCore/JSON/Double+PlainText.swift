extension Double {
    /// The number as a person (or a configuration file) writes it: `30` for 30.0, `0.25` as it is.
    public var plainText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
