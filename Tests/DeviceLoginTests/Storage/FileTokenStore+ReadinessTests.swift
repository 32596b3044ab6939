import Foundation
import Testing

@testable import DeviceLogin

/// Issue 8: store problems found only after the person approved cost the tokens; `checkReady` finds them first.
@Suite struct FileTokenStoreReadinessTests {
    /// The uid of `nobody`, for files of another user (only root can make them).
    static let otherUser: UInt32 = 65_534

    // Issue 17: a login that failed before any request had already created the directory and the lock file.
    @Test("a missing directory is not created, nor its parents; nothing is written")
    func leavesAMissingDirectoryMissing() async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FileTokenStore(directory: root + "/a/b")
        try await store.checkReady(profile: "work")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).isEmpty)
        // The first save creates it, 0700, parents too.
        try await store.save(try Fixtures.record(name: "work", tokens: Fixtures.tokens()))
        #expect(try permissions(root + "/a/b") == 0o700)
        #expect(try permissions(root + "/a") == 0o700)
    }

    @Test("an existing directory gets no lock file: the probe file is removed and the lock made when needed")
    func writesNothingInAnExistingDirectory() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.checkReady(profile: "work")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).isEmpty)
    }

    @Test("a missing directory under a file is refused, and nothing is created")
    func refusesAParentThatIsAFile() async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("", to: root + "/file")
        let store = FileTokenStore(directory: root + "/file/a/b")
        let error = try await storageError { try await store.checkReady(profile: "work") }
        #expect(error.message.contains("the token directory \(root)/file/a/b: Not a directory"), "\(error.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["file"])
    }

    @Test(
        "a missing directory whose parent this user cannot write is refused (not as root: root may write anywhere)",
        .enabled(if: geteuid() != 0))
    func refusesAnUnwritableParent() async throws {
        let root = try Fixtures.temporaryDirectory()
        defer {
            try? setMode(root, 0o700)
            try? FileManager.default.removeItem(atPath: root)
        }
        try setMode(root, 0o500)
        let store = FileTokenStore(directory: root + "/a")
        let error = try await storageError { try await store.checkReady(profile: "work") }
        #expect(error.message.contains("could not create the token directory \(root)/a"), "\(error.message)")
    }

    @Test("an existing profile is left as it is")
    func leavesTheRecordAlone() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let record = try Fixtures.record(name: "work", tokens: Fixtures.tokens())
        try await store.save(record)
        let before = try Data(contentsOf: URL(fileURLWithPath: root + "/work.json"))
        try await store.checkReady(profile: "work")
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/work.json")) == before)
    }

    /// Each problem, made in a fresh store directory, and what the error says.
    static let problems: [(name: String, make: @Sendable (String) throws -> Void, says: String)] = [
        ("a directory others can read", { try setMode($0, 0o755) }, "can be accessed by other users (mode 0755)"),
        ("a directory others can write", { try setMode($0, 0o703) }, "can be accessed by other users (mode 0703)"),
        (
            "a symbolic link as the directory",
            { root in
                try FileManager.default.moveItem(atPath: root, toPath: root + ".real")
                try FileManager.default.createSymbolicLink(atPath: root, withDestinationPath: root + ".real")
            }, "the token directory $ROOT is a symbolic link; refusing to follow it"
        ),
        (
            "a file as the directory",
            { root in
                try FileManager.default.removeItem(atPath: root)
                try write("", to: root)
            }, "is not a directory"
        ),
        (
            "a symbolic link as the lock file",
            { root in
                try FileManager.default.createSymbolicLink(
                    atPath: root + "/work.lock", withDestinationPath: "/dev/null")
            }, "the lock file $ROOT/work.lock is a symbolic link"
        ),
        (
            "a symbolic link as the token file",
            { root in
                try write("{}", to: root + "/real.json")
                try FileManager.default.createSymbolicLink(
                    atPath: root + "/work.json", withDestinationPath: "real.json")
            }, "the token file $ROOT/work.json is a symbolic link"
        ),
        (
            "a directory as the token file",
            { root in
                try FileManager.default.createDirectory(atPath: root + "/work.json", withIntermediateDirectories: false)
            }, "the token file $ROOT/work.json is not a regular file"
        ),
        (
            "a token file others can read",
            { root in
                try write("{}", to: root + "/work.json")
                try setMode(root + "/work.json", 0o644)
            }, "can be accessed by other users (mode 0644)"
        ),
    ]

    @Test("each store problem is refused before anything is asked", arguments: 0..<problems.count)
    func refuses(index: Int) async throws {
        let (root, store) = try makeStore()
        defer {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: root + ".real")
        }
        let problem = Self.problems[index]
        try problem.make(root)
        let error = try await storageError { try await store.checkReady(profile: "work") }
        let says = problem.says.replacingOccurrences(of: "$ROOT", with: root)
        #expect(error.message.contains(says), "\(problem.name): \(error.message)")
        #expect(error.hint != nil)
    }

    @Test(
        "a lock file or token file of another user is refused (needs root to set up)",
        .enabled(if: geteuid() == 0), arguments: ["work.lock", "work.json"])
    func refusesAnotherUsersFile(file: String) async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("", to: root + "/" + file)
        try #require(chown(root + "/" + file, Self.otherUser, Self.otherUser) == 0)
        let error = try await storageError { try await store.checkReady(profile: "work") }
        #expect(error.message.contains("\(root)/\(file) belongs to another user (uid \(Self.otherUser))"))
    }

    @Test("a directory of another user is refused (needs root to set up)", .enabled(if: geteuid() == 0))
    func refusesAnotherUsersDirectory() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try #require(chown(root, Self.otherUser, Self.otherUser) == 0)
        let error = try await storageError { try await store.checkReady(profile: "work") }
        #expect(error.message.contains("belongs to another user"))
    }

    @Test("an invalid profile name never reaches the file system")
    func invalidName() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        await #expect(throws: DeviceLoginError(.configuration, "")) { try await store.checkReady(profile: "../x") }
    }
}

private func setMode(_ path: String, _ mode: Int) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
}
