import type { CountableSegment } from './sum-by-bucket.js';
import type { SegmentSummary } from '../types.js';

/**
 * The meter's figures (D3) from a device's whole segment history, in memory: the start of the
 * first segment and every second of moving and idle time up to `now`. A store that can aggregate
 * computes the same in the database.
 *
 * @param segments Every segment of the device, any order.
 * @param now Epoch seconds; open segments count up to it, and nothing after it counts.
 * @returns `{ firstStartedAt, movingSeconds, idleSeconds }`; `firstStartedAt` is `null` without segments.
 * @example
 * ```ts
 * import { summarizeSegments } from '@fleet-hours/core/adapter';
 * summarizeSegments([{ startedAt: 10, endedAt: null, state: 'moving' }], 70); // { firstStartedAt: 10, movingSeconds: 60, idleSeconds: 0 }
 * ```
 */
export function summarizeSegments(segments: Iterable<CountableSegment>, now: number): SegmentSummary {
  let firstStartedAt: number | null = null;
  let movingSeconds = 0;
  let idleSeconds = 0;
  for (const segment of segments) {
    if (firstStartedAt === null || segment.startedAt < firstStartedAt) firstStartedAt = segment.startedAt;
    const seconds = Math.max(0, Math.min(segment.endedAt ?? now, now) - segment.startedAt);
    if (segment.state === 'moving') movingSeconds += seconds;
    else idleSeconds += seconds;
  }
  return { firstStartedAt, movingSeconds, idleSeconds };
}
