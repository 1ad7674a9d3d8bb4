import HeraldCore
import Testing

/// The seconds/milliseconds rule and the "must be in the future" rule (5004).
@Suite struct ExpirationTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    func parse(_ value: JSONValue) throws(HeraldFault) -> Int64? {
        try Expiration.parse(value, now: now)?.timestamp.milliseconds
    }

    @Test func valuesBelow100BillionAreSeconds() throws {
        #expect(try parse(.integer(1_900_000_000)) == 1_900_000_000_000)
        #expect(try parse(.number(1_900_000_000.5)) == 1_900_000_000_500)
        #expect(try parse(.integer(99_999_999_999)) == 99_999_999_999_000)
    }

    @Test func valuesFrom100BillionAreMilliseconds() throws {
        #expect(try parse(.integer(1_900_000_000_123)) == 1_900_000_000_123)
        // 100,000,000,000 ms is 1973: a millisecond value in the past, not a second value in 5138.
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.integer(100_000_000_000)) }
    }

    @Test func numericStringsFollowTheSameRule() throws {
        #expect(try parse(.string("1900000000")) == 1_900_000_000_000)
        #expect(try parse(.string("1900000000123")) == 1_900_000_000_123)
    }

    @Test func iso8601StringsAreAccepted() throws {
        #expect(try parse(.string("2030-03-17T17:46:40Z")) == 1_900_000_000_000)
        #expect(try parse(.string("2030-03-17T17:46:40.250Z")) == 1_900_000_000_250)
    }

    /// Found probing the API by hand next to the schemathesis run: "999999999-12-31T23:59:59Z" was kept as 14,650,010,956,799,000 ms (a number that large
    /// is 8008), past what a JavaScript client reads exactly.
    @Test func iso8601DatesHaveTheSameRangeAsNumbers() throws {
        for text in ["999999999-12-31T23:59:59Z", "99999-12-31T23:59:59Z", "2147483648-12-31T23:59:59Z"] {
            #expect(throws: HeraldFault.invalidParameter("expiration", "the value is out of range"), "\(text)") {
                try parse(.string(text))
            }
        }
        #expect(throws: HeraldFault.invalidParameter("expiration", "the value is out of range")) {
            try parse(.integer(1_000_000_000_000_000))
        }
        #expect(try parse(.string("9999-12-31T23:59:59Z")) == 253_402_300_799_000)
    }

    @Test func nullMeansNoExpiration() throws {
        #expect(try parse(.null) == nil)
    }

    @Test func notAfterNowIs5004() throws {
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.integer(now.milliseconds)) }
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.integer(now.milliseconds / 1000)) }
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.integer(0)) }
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.integer(-5)) }
        #expect(throws: HeraldFault.expirationNotInFuture) { try parse(.string("2020-01-01T00:00:00Z")) }
        #expect(try parse(.integer(now.milliseconds + 1)) == now.milliseconds + 1)
    }
}
