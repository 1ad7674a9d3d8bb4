import HeraldCore

/// A one-shot value that one task sets and another awaits; the hand-off point of group commit.
final class Promise<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, Never>?)
        case done(Value)
    }

    private let state = Locked<State>(.waiting(nil))

    func fulfill(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { preconditionFailure("promise fulfilled twice") }
            state = .done(value)
            return continuation
        }
        continuation?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = state.withLock { state in
                    switch state {
                    case .done(let value): return value
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
