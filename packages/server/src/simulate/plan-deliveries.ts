/** One sending of an item: the item itself, and whether it comes late or again. */
export interface Delivery<T> {
  readonly item: T;
  /** It was held back and comes after items that followed it. */
  readonly late: boolean;
  /** It was sent before: this is a repeat. */
  readonly repeat: boolean;
}

/** Options of {@link planDeliveries}. */
export interface DeliveryPlanOptions {
  /** Fraction of items, 0 to 1, held back and sent after later ones (out of order). */
  readonly shuffle: number;
  /** Fraction of items, 0 to 1, sent a second time a little later. */
  readonly resend: number;
  /** How far an item may slip: it comes at most this many items after its place. A whole number ≥ 1. */
  readonly maxDelay: number;
  /** The random stream, numbers in [0, 1) (a seeded `mulberry32` for a reproducible plan). */
  readonly random: () => number;
}

/**
 * Turns a stream of items (reports in time order) into the order a flaky network delivers them:
 * a `shuffle` fraction comes late, after up to `maxDelay` items that followed it, and a `resend`
 * fraction comes twice. Every item is delivered at least once and nothing else is: the set of
 * distinct items delivered is exactly the input, so a store that follows D20 ends up the same.
 * Items still held when the input ends are delivered then, in the order they fell due.
 *
 * @param items The items in their true order; read lazily, so an endless stream works.
 * @param options Fractions, the furthest slip, and the random stream.
 * @returns The deliveries, lazily.
 * @throws {RangeError} For a fraction outside 0…1 or a `maxDelay` that is not a whole number ≥ 1.
 */
export function* planDeliveries<T>(items: Iterable<T>, options: DeliveryPlanOptions): Generator<Delivery<T>, void, undefined> {
  for (const [name, value] of [
    ['shuffle', options.shuffle],
    ['resend', options.resend],
  ] as const) {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`Option ${name} must be a fraction from 0 to 1, got ${value}`);
  }
  if (!Number.isSafeInteger(options.maxDelay) || options.maxDelay < 1) {
    throw new RangeError(`Option maxDelay must be a whole number ≥ 1, got ${options.maxDelay}`);
  }
  const { random, maxDelay } = options;
  // Held deliveries by the position after which they fall due; in due order, then arrival order.
  let held: { due: number; order: number; delivery: Delivery<T> }[] = [];
  let order = 0;
  const hold = (due: number, delivery: Delivery<T>) => {
    held.push({ due, order: order++, delivery });
    held.sort((a, b) => a.due - b.due || a.order - b.order);
  };

  let position = 0;
  for (const item of items) {
    const late = random() < options.shuffle;
    const again = random() < options.resend;
    const slip = (after: number) => after + 1 + Math.floor(random() * maxDelay);
    // The first sending is now or, held back, at `sent`; a repeat always comes after it.
    const sent = late ? slip(position) : position;
    if (late) hold(sent, { item, late: true, repeat: false });
    else yield { item, late: false, repeat: false };
    if (again) hold(slip(sent), { item, late: false, repeat: true });

    let due = 0;
    while (due < held.length && held[due]!.due <= position) due += 1;
    if (due > 0) {
      const released = held.slice(0, due);
      held = held.slice(due);
      for (const entry of released) yield entry.delivery;
    }
    position += 1;
  }
  for (const entry of held) yield entry.delivery;
}
