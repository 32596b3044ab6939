import Foundation

extension NSLock {
    /// Runs `body` holding the lock. (`NSLocking.withLock` needs macOS 14; the package supports macOS 13.)
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
