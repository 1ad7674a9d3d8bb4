/// The release this source tree is. `herald --version` prints it; bump it when a release is tagged.
public enum HeraldVersion {
    public static let current = "0.9.0"
}
