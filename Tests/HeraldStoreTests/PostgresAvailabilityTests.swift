import HeraldTestSupport
import Testing

/// Says, in every run, whether the PostgreSQL cases ran: a developer without a server sees them
/// skipped with the command that runs them; under CI a missing server fails the run.
@Suite struct PostgresAvailabilityTests {
    @Test(.disabled(if: PostgresTestDatabase.serverURL == nil, "\(PostgresTestDatabase.skipMessage)"))
    func thePostgresCasesRun() {
        #expect(PostgresTestDatabase.serverURL != nil)
    }

    @Test func underCIThePostgresCasesAreNotSkipped() {
        if PostgresTestDatabase.isCI {
            #expect(PostgresTestDatabase.serverURL != nil, "CI must run the PostgreSQL tests: start a server with scripts/with-postgres.sh")
        }
    }
}
