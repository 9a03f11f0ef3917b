/**
 * Merges time-ordered streams into one, lazily: by `time`, ties by stream index, so the order is
 * the same on every run. A small binary heap keeps it O(log n) per item for thousands of vehicles.
 */
export function* _mergeByTime<T extends { readonly time: number }>(streams: readonly Iterator<T>[]): Generator<T, void, undefined> {
  const heap: { item: T; stream: number }[] = [];
  const before = (a: { item: T; stream: number }, b: { item: T; stream: number }) =>
    a.item.time < b.item.time || (a.item.time === b.item.time && a.stream < b.stream);
  const push = (entry: { item: T; stream: number }) => {
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  };
  const pop = () => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const left = index * 2 + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
        index = smallest;
      }
    }
    return top;
  };

  streams.forEach((stream, index) => {
    const first = stream.next();
    if (!first.done) push({ item: first.value, stream: index });
  });
  while (heap.length > 0) {
    const { item, stream } = pop();
    yield item;
    const next = streams[stream]!.next();
    if (!next.done) push({ item: next.value, stream });
  }
}
