/// Why the demo stopped; `description` is the one line printed on stderr before exiting 1.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
