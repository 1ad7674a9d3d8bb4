import ArgumentParser
import Herald

/// `herald schema`: the configuration file's JSON Schema, for an editor to check herald.json with.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema of the configuration file (herald.json).",
        discussion: """
            Every setting with its type, range or choices and default, from the same declarations Herald \
            reads the file with. Save it beside herald.json and point the file's "$schema" or your editor \
            at it: herald schema > herald.schema.json
            """)

    func run() throws {
        print(ConfigurationJSONSchema.text, terminator: "")
    }
}
