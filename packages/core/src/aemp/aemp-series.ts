import type { EpochSeconds, SegmentInput } from '../types.js';

/** D64: equipment a page of the snapshot feed, and values a page of a time series. */
export const AEMP_PAGE_SIZE = 100;

/**
 * D64 (P121): how many pages a feed of `count` items has, 100 a page; at least 1 (an account
 * without devices has one page, empty).
 */
export function aempPageCount(count: number): number {
  return Math.max(1, Math.ceil(count / AEMP_PAGE_SIZE));
}

/**
 * D64 (P121): the instants of a time series over `[start, end]`: the end of every engine run that
 * ended inside the window (a run is a chain of segments each starting where the one before
 * ended, moving or idle alike), then `end` or `now` when sooner — ascending, each once. A run is
 * ended only when its end is at or before `now` (the live tail of D22 runs on).
 *
 * @param segments The device's segments overlapping the window and up to one second past its end, in start order.
 * @returns Instants, ascending (newest last); empty when the window starts after `now`.
 * @example
 * ```ts
 * import { aempSeriesInstants } from '@fleet-hours/core';
 * aempSeriesInstants({
 *   segments: [
 *     { startedAt: 100, endedAt: 200, state: 'moving' },
 *     { startedAt: 200, endedAt: 300, state: 'idle' },
 *     { startedAt: 500, endedAt: 600, state: 'idle' },
 *   ],
 *   start: 0, end: 1000, now: 2000,
 * });
 * // [300, 600, 1000]
 * ```
 */
export function aempSeriesInstants(input: {
  readonly segments: readonly SegmentInput[];
  readonly start: EpochSeconds;
  readonly end: EpochSeconds;
  readonly now: EpochSeconds;
}): EpochSeconds[] {
  const { segments, start, end, now } = input;
  const last = Math.min(end, now);
  if (last < start) return [];
  const instants: EpochSeconds[] = [];
  segments.forEach((segment, index) => {
    const ended = segment.endedAt;
    if (ended === null || ended < start || ended > last) return;
    const next = segments[index + 1];
    // The run goes on when the next segment starts where this one ends.
    if (next !== undefined && next.startedAt === ended) return;
    instants.push(ended);
  });
  if (instants.at(-1) !== last) instants.push(last);
  return instants;
}

/** The items of page `page` (from 1), 100 a page; `null` past the last page (D64: 404). */
export function aempPage<T>(items: readonly T[], page: number): { readonly items: readonly T[]; readonly lastPage: number } | null {
  const lastPage = aempPageCount(items.length);
  if (!Number.isSafeInteger(page) || page < 1 || page > lastPage) return null;
  return { items: items.slice((page - 1) * AEMP_PAGE_SIZE, page * AEMP_PAGE_SIZE), lastPage };
}
