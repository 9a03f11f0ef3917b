import { BeyondRetentionError } from '../errors/errors.js';

/**
 * D43: refuses a batch with a point older than the writer's own retention horizon (`now − days`),
 * before the store is asked anything, so that nothing of it is written. The horizon the data
 * recorded (D45) is the store's to check, in the write itself; both refusals are a
 * {@link BeyondRetentionError} (409 `beyond_retention`), this one with `keptDays` set.
 *
 * @param points The batch, in the caller's order: the error names the first such point by its index.
 * @param options `now` in epoch seconds; `retentionDays`: 0 or `undefined` keeps every point.
 * @throws {BeyondRetentionError} For the first point before the horizon.
 * @throws {RangeError} When `retentionDays` is not a whole number ≥ 0.
 */
export function checkRetention(
  points: readonly { readonly time: number }[],
  options: { readonly now: number; readonly retentionDays?: number | undefined },
): void {
  const days = options.retentionDays ?? 0;
  if (!Number.isSafeInteger(days) || days < 0) throw new RangeError(`retentionDays must be a whole number ≥ 0, got ${String(days)}`);
  if (days === 0) return;
  const horizon = options.now - days * 86_400;
  const index = points.findIndex((point) => point.time < horizon);
  if (index >= 0) throw new BeyondRetentionError({ index, time: points[index]!.time, horizon, keptDays: days });
}
