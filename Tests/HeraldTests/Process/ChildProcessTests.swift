import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The tests' own process runner (posix_spawn, plain pipe reads).
@Suite struct ChildProcessTests {
    /// A descriptor the test process holds without close-on-exec (a raw socket a test opened) does not
    /// reach a child: closing it in the test must close it for good.
    @Test func aChildInheritsNoDescriptorButItsPipes() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor > 2)
        defer { close(descriptor) }
        let listed = try ChildProcess.run("/bin/ls", ["/proc/self/fd"]).stdout.split(separator: "\n").compactMap { Int32($0) }
        #expect(!listed.contains(descriptor), "the child holds the test's socket \(descriptor): \(listed)")
        #expect(Set(listed).isSuperset(of: [0, 1, 2]))
    }

    @Test func outputExitCodeAndDirectory() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try ChildProcess.run("/bin/sh", ["-c", "pwd; echo oops >&2; exit 3"], directory: scratch.path(""))
        #expect(result.code == 3)
        #expect(result.stdout.trimmingCharacters(in: .newlines) == URL(fileURLWithPath: scratch.path("")).resolvingSymlinksInPath().path)
        #expect(result.stderr == "oops\n")
        let killed = try ChildProcess("/bin/sleep", ["30"])
        killed.kill9()
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
    }
}
