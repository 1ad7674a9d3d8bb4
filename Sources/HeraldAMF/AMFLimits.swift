/// How much a packet may ask the decoder to build, so a hostile request is refused cheaply instead of
/// exhausting memory or the stack. The whole packet's size is bounded by the HTTP layer, not here; within
/// it, the decoder never allocates for a declared length or count that the remaining bytes cannot hold.
///
/// The defaults fit a remoting request with room to spare: the Backendless SDKs' largest call (`publish`
/// with its PublishOptions constants) is about 1.9 KB, 5 levels deep and some 70 values.
public struct AMFLimits: Sendable, Equatable {
    /// Containers (objects, arrays, vectors) nested inside one another, counting a body's own value as 1;
    /// the decoder recurses once per level, so this bounds its stack. Default 32.
    public var maxDepth: Int
    /// Values in the whole packet, headers and bodies together, a reference counting as the values it
    /// copies (so a few bytes of references cannot stand for an exponentially large value). Default 100,000.
    public var maxValues: Int
    /// Bytes of one string, XML text or byte array. Default 1 MiB (1,048,576).
    public var maxStringBytes: Int
    /// Elements of one array or vector, members of one object or array's associative part, sealed members
    /// of one traits, and headers or bodies of the packet. Default 65,536.
    public var maxCollectionCount: Int

    public init(
        maxDepth: Int = 32,
        maxValues: Int = 100_000,
        maxStringBytes: Int = 1 << 20,
        maxCollectionCount: Int = 65_536
    ) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.maxStringBytes = maxStringBytes
        self.maxCollectionCount = maxCollectionCount
    }
}
