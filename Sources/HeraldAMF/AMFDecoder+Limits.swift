/// The decoder's spending of `AMFLimits`: values, depth and declared counts, each checked before anything
/// is built, so a limit fails at the field that breaks it.
extension AMFDecoder {
    /// Spends `count` values of the packet's budget.
    mutating func spendValues(_ count: Int, at start: Int) throws(AMFDecodingError) {
        valueCount += count
        guard valueCount > limits.maxValues else { return }
        throw failure("the packet holds more than \(limits.maxValues) values (the limit)", at: start)
    }

    /// Checks a declared element count before anything is reserved for it: within the collection limit,
    /// within the values left to spend, and no more than the bytes left could hold at `minBytes` each
    /// (so an array count of 2^28 in a 20-byte packet is refused, not allocated).
    func checkCount(_ count: Int, minBytes: Int, _ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) {
        guard count <= limits.maxCollectionCount else {
            throw failure("\(what()) of \(count) is over the limit of \(limits.maxCollectionCount)", at: start)
        }
        guard count <= limits.maxValues - valueCount else {
            throw failure(
                "\(what()) of \(count) would take the packet past \(limits.maxValues) values (the limit)", at: start)
        }
        guard count * minBytes <= remaining else {
            throw failure(
                "\(what()) of \(count) runs past the end of the packet (\(remaining) of \(bytes.count) bytes left)",
                at: start)
        }
    }

    /// Refuses a collection that grows one member too many (members whose count is not declared up front).
    func checkGrowth(_ count: Int, _ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) {
        guard count >= limits.maxCollectionCount else { return }
        throw failure("\(what()) has more than \(limits.maxCollectionCount) members (the limit)", at: start)
    }

    /// Opens a container one level deeper; refused past `maxDepth`, so nesting cannot exhaust the stack.
    mutating func descend(at start: Int) throws(AMFDecodingError) -> Mark {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw failure("values are nested more than \(limits.maxDepth) deep (the limit)", at: start)
        }
        let mark = Mark(values: valueCount, deepest: deepest)
        deepest = depth
        return mark
    }

    /// Closes the container opened by `descend`, giving what it held beyond itself and its height, which
    /// its reference-table entry keeps.
    mutating func ascend(_ mark: Mark) -> Entry {
        let entry = Entry(value: nil, count: valueCount - mark.values, height: deepest - depth + 1)
        deepest = max(deepest, mark.deepest)
        depth -= 1
        return entry
    }

    /// The value a reference names, spending what it holds again, with its depth placed where the reference
    /// stands: values are copies, so a reference costs what its value costs.
    mutating func resolve(
        _ table: [Entry], _ index: Int, _ kind: String, at start: Int
    ) throws(AMFDecodingError) -> AMFValue {
        guard index < table.count else {
            throw failure("\(kind) reference \(index) is out of range (\(table.count) read so far)", at: start)
        }
        let entry = table[index]
        guard let value = entry.value else {
            throw failure(
                "\(kind) reference \(index) names a value that contains the reference (a cycle, which values cannot hold)",
                at: start)
        }
        if entry.height > 0 {
            guard depth + entry.height <= limits.maxDepth else {
                throw failure(
                    "\(kind) reference \(index) nests values more than \(limits.maxDepth) deep (the limit)", at: start)
            }
            deepest = max(deepest, depth + entry.height)
        }
        try spendValues(entry.count, at: start)
        return value
    }
}
