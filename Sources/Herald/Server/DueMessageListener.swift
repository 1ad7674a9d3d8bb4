import HeraldDispatch
import HeraldStore
import ServiceLifecycle

/// Wakes this instance's dispatcher when any instance sharing the database publishes a message due now that
/// it may take a share of (PostgreSQL NOTIFY on `DueMessages.notifyChannel`, heard on a LISTEN connection of
/// its own): one stored for a claim, or one of several slices whose first its publishing instance sends. The
/// dispatcher's poll stays the fallback: while the connection is lost and re-opened, and for scheduled
/// occurrences, which come due without a publish. On SQLite, one process, the publish wakes the
/// dispatcher directly and this only waits to be stopped.
struct DueMessageListener: Service {
    let backend: any SQLBackend
    let dispatcher: Dispatcher

    func run() async throws {
        let dispatcher = dispatcher
        // (Re)listening wakes it too: a publish may have come while nobody listened.
        await cancelWhenGracefulShutdown {
            await backend.listen(DueMessages.notifyChannel, listening: { dispatcher.wake() }) { _ in dispatcher.wake() }
        }
    }
}
