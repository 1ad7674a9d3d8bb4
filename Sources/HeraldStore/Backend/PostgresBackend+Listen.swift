import PostgresNIO

/// LISTEN on the database, following the primary.
extension PostgresBackend {
    /// Listens on the host in use; after a failover, on the new one (NOTIFY reaches only the sessions of
    /// the server it ran on), calling `listening` again each time it listens.
    public func listen(_ channel: String, listening: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            guard let (host, generation) = primary.current else {
                try? await Task.sleep(for: PostgresPrimary.retryInterval)
                continue
            }
            do {
                let connection = try await openConnection(to: host)
                let moved = await withTaskGroup(of: Result<Bool, any Error>.self) { group in
                    group.addTask {
                        do {
                            try await connection.listen(on: channel) { notifications in
                                listening()
                                for try await notification in notifications { body(notification.payload) }
                            }
                            return .success(false)
                        } catch {
                            return .failure(error)
                        }
                    }
                    if self.clients.count > 1 {
                        // The host given up or another chosen: listen again where the writes now go.
                        group.addTask {
                            while self.primary.generation == generation {
                                guard (try? await Task.sleep(for: .milliseconds(200))) != nil else { return .success(false) }
                            }
                            return .success(true)
                        }
                    }
                    let first = await group.next() ?? .success(false)
                    try? await connection.close()
                    group.cancelAll()
                    return first
                }
                if case .success(true) = moved {
                    logger.notice("LISTEN \(channel) moves with the database host in use")
                    continue
                }
                if case .failure(let error) = moved { throw error }
            } catch {
                if Task.isCancelled { return }
                noteFailure(error, on: host)
                logger.warning(
                    "LISTEN \(channel) lost its connection; listening again in 1 s", metadata: ["error": "\(Self.explain(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
