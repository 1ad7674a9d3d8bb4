import HeraldCore
import Testing

/// An `Idempotency-Key` header value: 1 to 255 printable ASCII characters, given once.
@Suite struct IdempotencyKeyTests {
    @Test func printableASCIIUpTo255IsAKey() throws {
        for value in ["a", "order-42-shipped", " !~{}\"'; =,/", String(repeating: "k", count: 255)] {
            #expect(try IdempotencyKey(validating: value).rawValue == value)
        }
        #expect(try IdempotencyKey(headerValues: []) == nil, "no header: no key")
        #expect(try IdempotencyKey(headerValues: ["x"])?.rawValue == "x")
    }

    @Test func anythingElseIsRefusedNamingTheHeader() {
        let refused: [([String], Int)] = [
            ([""], 8008), ([String(repeating: "k", count: 256)], 8000), (["tab\there"], 8008), (["café"], 8008),
            (["nul\u{0}"], 8008), (["del\u{7F}"], 8008), (["a", "a"], 8008),
        ]
        for (values, code) in refused {
            #expect(throws: HeraldFault.self, "\(values)") { try IdempotencyKey(headerValues: values) }
            do {
                _ = try IdempotencyKey(headerValues: values)
            } catch {
                #expect(error.code == code, "\(values): \(error)")
                #expect(error.message.contains("Idempotency-Key"), "\(error)")
            }
        }
    }
}
