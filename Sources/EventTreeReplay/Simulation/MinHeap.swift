/// A binary min-heap of (key, value) pairs: the open events, by the seq at which they end
/// (the replay's chains; a trace export's raises and what they led to).
package struct MinHeap<Value> {
    private var items: [(key: Int, value: Value)] = []

    /// An empty heap.
    package init() {}

    package var isEmpty: Bool { items.isEmpty }
    package var minimumKey: Int? { items.first?.key }

    package mutating func insert(_ key: Int, _ value: Value) {
        items.append((key, value))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].key < items[parent].key else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    package mutating func popMinimum() -> (key: Int, value: Value)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let minimum = items.removeLast()
        var parent = 0
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left].key < items[smallest].key { smallest = left }
            if right < items.count, items[right].key < items[smallest].key { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return minimum
    }
}
