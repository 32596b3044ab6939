import DeviceLogin
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input for the commands that read a protocol from it (`git-credential`, `docker-credential`): bounded
/// reads, done off the cooperative pool, that stop as soon as a message is complete.
///
/// A reader never waits for the end of input once its message is whole (git may keep the pipe open after the
/// blank line that ends its request), and never holds more than its limit: a longer input is reported as
/// ``Ending/tooLong`` after `limit + 1` bytes, without reading the rest.
struct StandardInput: Sendable {
    /// Why a read stopped.
    enum Ending: Sendable, Equatable {
        /// `isComplete` held for the bytes read.
        case complete
        /// The input ended.
        case endOfInput
        /// More than the limit arrived; the bytes hold the first `limit + 1`.
        case tooLong
    }

    /// What a read returned.
    struct Read: Sendable, Equatable {
        var bytes: [UInt8]
        var ending: Ending
    }

    /// A source of chunks: returns up to `count` bytes, an empty array at the end of input.
    private let nextChunk: @Sendable (_ count: Int) throws -> [UInt8]

    /// Input from `nextChunk`, which returns up to `count` bytes, an empty array at the end of input.
    init(nextChunk: @escaping @Sendable (_ count: Int) throws -> [UInt8]) {
        self.nextChunk = nextChunk
    }

    /// Reads until `isComplete` holds for everything read so far, the input ends, or more than `limit` bytes
    /// arrive. Runs on a Dispatch thread: a pipe's writer may take its time.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when reading fails.
    func read(limit: Int, until isComplete: @escaping @Sendable ([UInt8]) -> Bool) async throws -> Read {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try readOnCallingThread(limit: limit, until: isComplete) })
            }
        }
    }

    /// ``read(limit:until:)`` on the calling thread, which it blocks: for the fast lane (``FastLane``), which runs
    /// before any concurrency starts, and for the thread `read(limit:until:)` hops to.
    func readOnCallingThread(limit: Int, until isComplete: ([UInt8]) -> Bool) throws -> Read {
        var bytes: [UInt8] = []
        while true {
            let chunk = try nextChunk(min(4096, limit + 1 - bytes.count))
            if chunk.isEmpty { return Read(bytes: bytes, ending: .endOfInput) }
            bytes += chunk
            if bytes.count > limit { return Read(bytes: bytes, ending: .tooLong) }
            if isComplete(bytes) { return Read(bytes: bytes, ending: .complete) }
        }
    }

    /// Reads the file descriptor (standard input: 0).
    static func fileDescriptor(_ descriptor: Int32) -> StandardInput {
        StandardInput { count in
            var buffer = [UInt8](repeating: 0, count: max(1, count))
            while true {
                #if canImport(Glibc)
                let read = Glibc.read(descriptor, &buffer, buffer.count)
                #else
                let read = Darwin.read(descriptor, &buffer, buffer.count)
                #endif
                if read >= 0 { return Array(buffer.prefix(read)) }
                if errno == EINTR { continue }
                throw DeviceLoginError(
                    .configuration, "cannot read standard input: " + String(cString: strerror(errno)))
            }
        }
    }

    /// Input that is `bytes`, handed out in chunks of at most `chunkSize` (tests).
    static func bytes(_ bytes: [UInt8], chunkSize: Int = 4096) -> StandardInput {
        let remaining = Locked(ArraySlice(bytes))
        return StandardInput { count in
            remaining.withLock { rest in
                let chunk = Array(rest.prefix(min(count, max(1, chunkSize))))
                rest = rest.dropFirst(chunk.count)
                return chunk
            }
        }
    }

    /// Input that `make` produces when it is first read, then its end (tests: a person who types what the prompt
    /// on stderr asked for).
    static func answering(_ make: @escaping @Sendable () -> [UInt8]) -> StandardInput {
        let answered = Locked(false)
        let rest = Locked<ArraySlice<UInt8>>([])
        return StandardInput { count in
            if !answered.withLock({ flag in
                defer { flag = true }
                return flag
            }) {
                let bytes = make()
                rest.withLock { $0 = ArraySlice(bytes) }
            }
            return rest.withLock { remaining in
                let chunk = Array(remaining.prefix(max(1, count)))
                remaining = remaining.dropFirst(chunk.count)
                return chunk
            }
        }
    }

    /// No input: the end at once.
    static let empty = bytes([])
}
