/**
 * Makes calls of `run` that overlap in time and have equal keys share it, so that a burst of them
 * costs a few database round trips instead of one each: while fewer than `concurrency` runs of a
 * key are going, a call runs at once; calls that arrive when that many run wait, and the next run
 * that ends starts them all together as one call of `run`. Every call gets its own answer: `run`
 * returns one per call, in the order they arrived. When a run throws, every call of it rejects
 * with its error, and so do the calls waiting at that moment: a database that fails (a stalled
 * link past its deadline, D28) answers them at once instead of making each wait its own deadline
 * in turn. Calls of other keys do not wait for each other; a call that finds room waits for nothing.
 *
 * @param keyOf Which calls may share a run.
 * @param run Runs a group of calls of one key at once, in arrival order.
 * @param concurrency Runs of one key going at once.
 */
export function coalescedByKey<Input, Output>(
  keyOf: (input: Input) => string,
  run: (inputs: readonly Input[]) => Promise<readonly Output[]>,
  concurrency: number,
): (input: Input) => Promise<Output> {
  interface Call {
    readonly input: Input;
    readonly resolve: (output: Output) => void;
    readonly reject: (error: unknown) => void;
  }
  interface Queue {
    running: number;
    waiting: Call[];
  }
  // Keys with runs going, and the calls that wait for them; a key leaves when nothing runs.
  const queues = new Map<string, Queue>();

  const runGroup = async (key: string, queue: Queue, group: readonly Call[]): Promise<void> => {
    let failure: { readonly error: unknown } | undefined;
    try {
      const outputs = await run(group.map((call) => call.input));
      group.forEach((call, index) => call.resolve(outputs[index]!));
    } catch (error) {
      failure = { error };
      for (const call of group) call.reject(error);
    }
    const waiting = queue.waiting;
    queue.waiting = [];
    if (failure) for (const call of waiting) call.reject(failure.error);
    else if (waiting.length > 0) return runGroup(key, queue, waiting);
    queue.running -= 1;
    if (queue.running === 0) queues.delete(key);
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      const key = keyOf(input);
      let queue = queues.get(key);
      if (!queue) {
        queue = { running: 0, waiting: [] };
        queues.set(key, queue);
      }
      if (queue.running >= concurrency) {
        queue.waiting.push({ input, resolve, reject });
        return;
      }
      queue.running += 1;
      void runGroup(key, queue, [{ input, resolve, reject }]);
    });
}
