import Foundation
import HeraldTestSupport
import Testing

/// The README's table of contents and every cross-reference in README.md and docs/ lead somewhere: each
/// relative link names a file of the repository, and each `#anchor` a heading of the file it points at
/// (as GitHub makes anchors: lower case, punctuation dropped, spaces as hyphens).
@Suite struct DocumentationLinkTests {
    @Test func everyRelativeLinkAndAnchorExists() throws {
        let documents = try ReadmeExamplesTests.documents()
        var checked = 0
        for document in documents {
            let directory = FixtureFiles.root.appendingPathComponent(document.name).deletingLastPathComponent()
            for target in Self.links(in: document.lines) {
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file =
                    parts[0].isEmpty ? FixtureFiles.root.appendingPathComponent(document.name) : directory.appendingPathComponent(parts[0])
                checked += 1
                #expect(FileManager.default.fileExists(atPath: file.path), "\(document.name): no such file for link \(target)")
                guard parts.count == 2, file.pathExtension == "md", let text = try? String(contentsOf: file, encoding: .utf8) else {
                    continue
                }
                let anchors = Self.anchors(of: text.components(separatedBy: "\n"))
                #expect(anchors.contains(parts[1]), "\(document.name): \(file.lastPathComponent) has no heading for #\(parts[1])")
            }
        }
        #expect(checked > 20, "the README's table of contents alone has more links than \(checked)")
    }

    @Test func theReadmeStaysShortAndLinksEveryDocument() throws {
        let readme = try #require(try ReadmeExamplesTests.documents().first { $0.name == "README.md" })
        #expect(readme.lines.count <= 250, "README.md has \(readme.lines.count) lines; the reference belongs in docs/")
        let links = Set(Self.links(in: readme.lines).map { String($0.split(separator: "#", omittingEmptySubsequences: false)[0]) })
        let docs = try FileManager.default.contentsOfDirectory(atPath: FixtureFiles.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
        for doc in docs { #expect(links.contains("docs/\(doc)"), "README.md's contents do not link docs/\(doc)") }
    }

    /// Every shell example in README.md and docs/ is run by a test (`<!-- readme-check: NAME -->`, a name
    /// `ReadmeExamplesTests` runs) or says on the line before it why it is not (`<!-- not-run: why -->`).
    @Test func everyShellExampleIsRunOrSaysWhyNot() throws {
        var marked = Set<String>()
        for document in try ReadmeExamplesTests.documents() {
            var inCode = false
            for (index, raw) in document.lines.enumerated() {
                // Blocks inside list items are indented.
                let line = raw.trimmingCharacters(in: .whitespaces)
                guard line.hasPrefix("```") else { continue }
                defer { inCode.toggle() }
                guard !inCode, ["sh", "bash", "shell", "console"].contains(line.dropFirst(3).trimmingCharacters(in: .whitespaces))
                else { continue }
                let before = index > 0 ? document.lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
                let place = "\(document.name):\(index + 1)"
                if before.hasPrefix("<!-- readme-check: "), before.hasSuffix(" -->") {
                    let name = String(before.dropFirst("<!-- readme-check: ".count).dropLast(" -->".count))
                    #expect(ReadmeExamplesTests.runBlocks.contains(name), "\(place): no test runs the block named \(name)")
                    #expect(!marked.contains(name), "\(place): a second block named \(name)")
                    marked.insert(name)
                } else if before.hasPrefix("<!-- not-run: "), before.hasSuffix(" -->") {
                    #expect(before.count > "<!-- not-run:  -->".count + 10, "\(place): say why the block is not run")
                } else {
                    Issue.record(
                        "\(place): a shell example that no test runs; mark it readme-check (and run it) or not-run with the reason")
                }
            }
        }
        #expect(marked == ReadmeExamplesTests.runBlocks, "every block the tests run is in the documents")
    }

    /// A file or folder of the repository named in code style (`deploy/README.md`) is a link to it, so a
    /// reader gets there in one click.
    @Test func everyFileNamedIsALink() throws {
        let named = try NSRegularExpression(pattern: #"(?<!\[)`([A-Za-z0-9_./-]+)`(?!\]\()"#)
        var found = 0
        for document in try ReadmeExamplesTests.documents() {
            var inCode = false
            for (index, raw) in document.lines.enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("```") { inCode.toggle() }
                if inCode || line.hasPrefix("```") || line.hasPrefix("<!--") { continue }
                for match in named.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    guard let range = Range(match.range(at: 1), in: line) else { continue }
                    let path = String(line[range])
                    guard path != "/", path != "//", path.contains("/") || path.hasSuffix(".md") else { continue }
                    guard FileManager.default.fileExists(atPath: FixtureFiles.root.appendingPathComponent(path).path) else { continue }
                    found += 1
                    Issue.record("\(document.name):\(index + 1): `\(path)` names a file of the repository; make it a link")
                }
            }
        }
        #expect(found == 0)
    }

    /// The targets of `[text](target)` links outside code blocks.
    static func links(in lines: [String]) -> [String] {
        var inCode = false
        var targets: [String] = []
        for line in lines {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inCode.toggle()
                continue
            }
            if inCode { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                targets.append(String(after[..<close]))
                rest = after[after.index(after: close)...]
            }
        }
        return targets
    }

    /// The anchors GitHub gives the headings of a Markdown file.
    static func anchors(of lines: [String]) -> Set<String> {
        var inCode = false
        var anchors: Set<String> = []
        for line in lines {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}
