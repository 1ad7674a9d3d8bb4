import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    /// Deletes the channels that have had no registration since `cutoff` or before, as seen by the sweeps:
    /// each call first notes `now` on the channels it finds empty and clears the note on those that are
    /// not, so a channel goes once sweeps have found it empty for the whole retention. With `app`, that
    /// app's channels only. Returns how many channels were deleted.
    ///
    /// A registration into a channel at the moment it is deleted is never lost: the deletion re-checks
    /// that the channel has no registration in the statement that deletes it, and on PostgreSQL first
    /// locks the channel rows (skipping those a registration is writing into), so a registration
    /// committed meanwhile is seen and keeps its channel. One that comes after the deletion finds the
    /// channel gone, and its write makes the channel again.
    public func removeEmptyChannels(emptySince cutoff: Timestamp, now: Timestamp, batchSize: Int, app: String?) async throws -> Int {
        let scope = app.map { SQLQueryString("AND app_id = \(bind: $0)") } ?? ""
        let empty = SQLRaw("NOT EXISTS (SELECT 1 FROM registrations r WHERE r.channel_id = channels.id)")
        try await backend.write { db in
            try await db.raw("UPDATE channels SET empty_since = \(bind: now.milliseconds) WHERE empty_since IS NULL \(scope) AND \(empty)")
                .run()
            try await db.raw("UPDATE channels SET empty_since = NULL WHERE empty_since IS NOT NULL \(scope) AND NOT \(empty)").run()
        }
        let lock = SQLRaw(backend.dialect.kind == .postgres ? "FOR UPDATE SKIP LOCKED" : "")
        var removed = 0
        while true {
            let deleted = try await backend.write { db in
                let ids = try await db.raw(
                    """
                    SELECT id FROM channels WHERE empty_since IS NOT NULL AND empty_since <= \(bind: cutoff.milliseconds) \(scope)
                    ORDER BY id LIMIT \(bind: max(1, batchSize)) \(lock)
                    """
                ).all().map { try $0.decode(column: "id", as: Int64.self) }
                guard !ids.isEmpty else { return (listed: 0, deleted: 0) }
                let listed = SQLList(ids.map { SQLBind($0) })
                let gone = try await db.raw("DELETE FROM channels WHERE id IN (\(listed)) AND \(empty) RETURNING id").all()
                // Those still here got a registration since the last sweep: not empty any more.
                if gone.count < ids.count { try await db.raw("UPDATE channels SET empty_since = NULL WHERE id IN (\(listed))").run() }
                return (listed: ids.count, deleted: gone.count)
            }
            removed += deleted.deleted
            if deleted.listed < batchSize { break }
        }
        return removed
    }
}
