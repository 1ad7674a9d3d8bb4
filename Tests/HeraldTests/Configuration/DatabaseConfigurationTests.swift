import Foundation
import Herald
import HeraldStore
import HeraldTestSupport
import Testing

/// `database.*` for PostgreSQL: the URL's parts, the password kept out of it, and clear refusals.
@Suite struct DatabaseConfigurationTests {
    /// Loads `json` (an object) as a configuration file, with one app added: a file without apps is refused.
    func load(_ json: String, environment: [String: String] = [:]) throws -> DatabaseURL {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let withApp = #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}], "# + json.dropFirst()
        return try ConfigurationLoader.load(file: try scratch.write("herald.json", withApp), environment: environment).database
    }

    @Test func aPostgresURLIsReadWithItsPartsAndDefaults() throws {
        let url = try DatabaseURL(parsing: "postgres://herald:s3cret@db.internal:6543/push?sslmode=require&poolSize=32")
        #expect(
            url
                == .postgres(
                    PostgresLocation(
                        host: "db.internal", port: 6543, username: "herald", password: "s3cret",
                        database: "push", sslMode: .require, poolSize: 32)))
        #expect(url.isSingleServer == false)
        #expect("\(url)" == "postgres://herald:***@db.internal:6543/push", "the password is never shown")
        let plain = try DatabaseURL(parsing: "postgresql://herald@localhost/herald")
        #expect(plain == .postgres(PostgresLocation(host: "localhost", username: "herald", database: "herald")))
        #expect(DatabaseURL.sqliteMemory.isSingleServer)
    }

    /// Several hosts as libpq takes them (a primary and its standbys), tried in order, with
    /// `target_session_attrs` saying which one Herald keeps.
    @Test func aPostgresURLWithSeveralHostsKeepsTheirOrderAndTheTargetSessionAttrs() throws {
        let url = try DatabaseURL(parsing: "postgres://herald:pw@db1:5432,db2,[::1]:6000/push?target_session_attrs=any&sslmode=disable")
        guard case .postgres(let location) = url else {
            Issue.record("not postgres")
            return
        }
        #expect(
            location.hosts == [
                .init(host: "db1", port: 5432), .init(host: "db2", port: 5432), .init(host: "::1", port: 6000),
            ])
        #expect(location.targetSessionAttrs == .any && location.sslMode == .disable && location.database == "push")
        #expect(location.username == "herald" && location.password == "pw")
        #expect("\(url)" == "postgres://herald:***@db1:5432,db2:5432,[::1]:6000/push?target_session_attrs=any")
        let primary = try DatabaseURL(parsing: "postgresql://herald@a:1,b:2/herald")
        guard case .postgres(let defaults) = primary else { return }
        #expect(defaults.targetSessionAttrs == .readWrite && defaults.hosts.map(\.port) == [1, 2])
        #expect("\(primary)" == "postgres://herald@a:1,b:2/herald")
    }

    @Test(arguments: [
        ("postgres://localhost/herald", "names no user"),
        ("postgres://herald@localhost", "names no database"),
        ("postgres://herald@localhost/herald?sslmode=maybe", "sslmode must be one of disable, prefer, require, verify-full"),
        ("postgres://herald@localhost/herald?timeout=3", "unknown parameter 'timeout'"),
        ("postgres://herald:pw@localhost:99999/herald", "port 99999 is not a port number"),
        ("postgres://herald:pw@a:5432,b:70000/herald", "port 70000 is not a port number"),
        ("postgres://herald:pw@a:5432,/herald", "has an empty host in its list"),
        ("postgres://herald:pw@a,a/herald", "names a host twice"),
        ("postgres://herald:pw@a,b:x/herald", "has no port number"),
        ("postgres://herald:pw@a,b/herald?target_session_attrs=standby", "target_session_attrs must be read-write"),
    ])
    func aBadPostgresURLIsRefusedWithoutShowingThePassword(_ text: String, _ reason: String) {
        do {
            _ = try DatabaseURL(parsing: text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
            #expect(!error.description.contains(":pw@"), "\(error.description)")
        }
    }

    @Test func thePasswordComesFromTheEnvironmentOrAFileAndThePoolSizeFromItsSetting() throws {
        let json = #"{"database": {"url": "postgres://herald@db/herald", "poolSize": 4}}"#
        let fromEnvironment = try load(json, environment: ["HERALD_DATABASE_PASSWORD": "from-env"])
        #expect(
            fromEnvironment
                == .postgres(PostgresLocation(host: "db", username: "herald", password: "from-env", database: "herald", poolSize: 4)))
        let scratch = try Scratch()
        defer { scratch.remove() }
        let secret = try scratch.write("password", "from-file\n")
        let fromFile = try load(#"{"database": {"url": "postgres://herald@db/herald", "passwordFile": "\#(secret)"}}"#)
        guard case .postgres(let location) = fromFile else {
            Issue.record("not postgres")
            return
        }
        #expect(location.password == "from-file")
        let inURL = try load(
            #"{"database": {"url": "postgres://herald:in-url@db/herald"}}"#, environment: ["HERALD_DATABASE_PASSWORD": "env"])
        guard case .postgres(let kept) = inURL else {
            Issue.record("not postgres")
            return
        }
        #expect(kept.password == "in-url", "a password in the URL wins")
    }

    @Test func aMissingPasswordFileOrABadPoolSizeIsOneClearLine() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try load(#"{"database": {"url": "postgres://herald@db/herald", "passwordFile": "/nonexistent/pw"}}"#)
        }
        #expect(throws: ConfigurationError.self) {
            _ = try load(#"{"database": {"url": "postgres://herald@db/herald", "poolSize": 0}}"#)
        }
    }
}
