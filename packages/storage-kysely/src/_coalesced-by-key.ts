/**
 * Makes calls of `run` that overlap in time and have equal keys share it, so that a burst of them
 * costs one database round trip at a time instead of one each: the first call runs at once; calls
 * that arrive while one of their key runs wait for it, and then run together as one call of `run`
 * with their number. Every call gets its own answer: `run` returns one per call, in the order they
 * arrived; when it throws, every call of the group rejects with its error. Calls of other keys do
 * not wait for each other. A call that finds nothing running adds no wait at all.
 *
 * @param keyOf Which calls may share a run: equal keys mean equal inputs to `run`.
 * @param run Runs `count` calls of one key at once (the input is the first call's).
 */
export function _coalescedByKey<Input, Output>(
  keyOf: (input: Input) => string,
  run: (input: Input, count: number) => Promise<readonly Output[]>,
): (input: Input) => Promise<Output> {
  interface Waiting {
    readonly input: Input;
    readonly resolve: (output: Output) => void;
    readonly reject: (error: unknown) => void;
  }
  // Keys with a run going, and the calls that wait for it; a key leaves when nothing waits.
  const queues = new Map<string, Waiting[]>();

  const runGroup = async (key: string, group: readonly Waiting[]): Promise<void> => {
    try {
      const outputs = await run(group[0]!.input, group.length);
      group.forEach((call, index) => call.resolve(outputs[index]!));
    } catch (error) {
      for (const call of group) call.reject(error);
    }
    const waiting = queues.get(key)!;
    if (waiting.length === 0) {
      queues.delete(key);
      return;
    }
    queues.set(key, []);
    void runGroup(key, waiting);
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      const key = keyOf(input);
      const waiting = queues.get(key);
      if (waiting) {
        waiting.push({ input, resolve, reject });
        return;
      }
      queues.set(key, []);
      void runGroup(key, [{ input, resolve, reject }]);
    });
}
