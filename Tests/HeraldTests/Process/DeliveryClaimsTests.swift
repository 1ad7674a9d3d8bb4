import Foundation
import HeraldTestSupport
import Testing

/// What README.md and docs/ say about the push services Herald delivers through stays true: it delivers
/// through APNs, FCM and Web Push. Pages once said "APNs only" and "sends nothing to ANDROID" after FCM
/// had landed, and named APNs and FCM alone after Web Push had; the CONVENTIONS ask that a feature's
/// change search the docs for the old limit, and this keeps the known ones from coming back.
@Suite struct DeliveryClaimsTests {
    /// Claims that were true once and are false now (case ignored).
    static let falseClaims = [
        #"\bAPNs[ -]only\b"#,
        #"\bonly (through|via|to) APNs\b"#,
        #"\b(sends|delivers|pushes) nothing to `?(android|web\b|browsers)"#,
        #"\b(does not|doesn't|cannot|can't|will not) (yet )?(deliver|send|push) (anything )?to `?(android|web\b|browsers)"#,
    ]

    /// A sentence that says what Herald delivers through (the verb, not the noun "deliveries").
    static let deliveryClaim = #"\bdeliver(s|ing)\b|\bdelivery (through|to|via)\b"#

    @Test func noPageRepeatsAClaimThatIsNoLongerTrue() throws {
        let patterns = try Self.falseClaims.map { try Regex($0).ignoresCase() }
        for document in try ReadmeExamplesTests.documents() {
            for (index, line) in document.lines.enumerated() {
                for (pattern, source) in zip(patterns, Self.falseClaims) where line.contains(pattern) {
                    Issue.record("\(document.name):\(index + 1) says what Herald no longer is (/\(source)/): \(line)")
                }
            }
        }
    }

    @Test func aSentenceOnWhatHeraldDeliversThroughNamesEveryService() throws {
        let claim = try Regex(Self.deliveryClaim).ignoresCase()
        var found = 0
        for document in try ReadmeExamplesTests.documents() {
            for paragraph in Self.paragraphs(document.lines) {
                let text = paragraph.lines.joined(separator: " ")
                for sentence in text.components(separatedBy: ". ") where sentence.contains(claim) && sentence.contains("APNs") {
                    found += 1
                    #expect(
                        text.contains("FCM") && text.localizedCaseInsensitiveContains("Web Push"),
                        "\(document.name):\(paragraph.line) names APNs but not FCM and Web Push in its paragraph: \(sentence)")
                }
            }
        }
        // README.md, api.md, publishing.md and real-app.md each have one: the check has something to check.
        #expect(found >= 4, "only \(found) sentences say what Herald delivers through")
    }

    @Test func theChecksCatchTheOldSentences() throws {
        let old = [
            "Herald delivers through APNs only, and sends nothing to ANDROID registrations.",
            "Herald does not deliver to Android.",
            "Herald delivers through APNs (`IOS` and `OSX` registrations) and FCM (`ANDROID`).",
        ]
        let patterns = try Self.falseClaims.map { try Regex($0).ignoresCase() }
        #expect(old.prefix(2).allSatisfy { line in patterns.contains { line.contains($0) } })
        let claim = try Regex(Self.deliveryClaim).ignoresCase()
        let paragraph = try #require(Self.paragraphs([old[2]]).first).lines.joined(separator: " ")
        #expect(paragraph.contains(claim) && !paragraph.localizedCaseInsensitiveContains("Web Push"))
    }

    /// Markdown paragraphs, each with its first line's number: text between blank lines, where a list
    /// item, a table row and a heading each start a new one and fenced code is left out.
    static func paragraphs(_ lines: [String]) -> [(line: Int, lines: [String])] {
        var paragraphs: [(line: Int, lines: [String])] = []
        var current: (line: Int, lines: [String])?
        var inCode = false
        func close() {
            if let done = current { paragraphs.append(done) }
            current = nil
        }
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                close()
                inCode.toggle()
                continue
            }
            if inCode { continue }
            if line.isEmpty {
                close()
                continue
            }
            let startsBlock =
                line.hasPrefix("|") || line.hasPrefix("#") || line.hasPrefix("- ") || line.hasPrefix("* ")
                || (line.first?.isNumber == true && line.drop { $0.isNumber }.hasPrefix(". "))
            if startsBlock { close() }
            if current == nil { current = (index + 1, []) }
            current?.lines.append(line)
        }
        close()
        return paragraphs
    }
}
