import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A queue from tasks to a C caller's thread, which blocks in ``take()`` until an item arrives.
///
/// The C API is synchronous: a `dl_…` call runs its work in a task and waits here, on the caller's own thread, so the
/// cooperative pool is never blocked; a sign-in's event lines come through the same queue, so that the event
/// callback runs on the caller's thread too (and may call back into the library). A POSIX mutex and condition
/// variable at stable heap addresses guard `items`: that is what makes the `@unchecked Sendable` true.
final class Handoff<Item: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var items: [Item] = []
    private var head = 0

    init() {
        mutex = PThreadObjects.makeMutex()
        condition = PThreadObjects.makeCondition()
    }

    deinit {
        PThreadObjects.destroy(condition)
        PThreadObjects.destroy(mutex)
    }

    /// Adds `item` and wakes the waiting thread. Never blocks for longer than the mutex is held.
    func put(_ item: Item) {
        pthread_mutex_lock(mutex)
        items.append(item)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The next item, in the order put; blocks the calling thread until there is one. Call it from a thread of
    /// the caller's, never from a task.
    func take() -> Item {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while head == items.count { pthread_cond_wait(condition, mutex) }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }

    /// Runs `body` in a new task and blocks the calling (C) thread until it ends.
    /// - Returns: What `body` returned, or the failure its error maps to.
    static func waiting<Value: Sendable>(
        for body: @escaping @Sendable () async throws -> Value
    ) -> Result<Value, EmbeddedFailure> where Item == Result<Value, EmbeddedFailure> {
        let handoff = Handoff()
        Task.detached {
            do {
                handoff.put(.success(try await body()))
            } catch {
                handoff.put(.failure(EmbeddedFailure(error)))
            }
        }
        return handoff.take()
    }
}
