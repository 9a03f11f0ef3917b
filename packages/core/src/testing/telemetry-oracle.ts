/**
 * Brute-force oracle of live telemetry (D2, D21, D22) for the core's tests. Test-only: not exported
 * from the package. It shares no code with the rules it checks: points of one second are grouped by
 * hand, and every second is walked one at a time to find the point that governs it.
 */
import type { SegmentInput, SegmentState } from '../types.js';

/** The rules under test, spelled out (no defaults here: tests pass them explicitly). */
export interface OracleOptions {
  readonly movingSpeedKmh: number;
  readonly maxGapSeconds: number;
  /** `live`: the newest point covers `maxGapSeconds`; `none`: nothing. */
  readonly tail: 'live' | 'none';
}

interface OraclePoint {
  readonly time: number;
  readonly ignition: boolean;
  readonly speedKmh: number;
}

/** One point per second: ignition on if any point of that second is on, the highest speed (D21). */
export function oracleMergedPoints(points: readonly OraclePoint[]): OraclePoint[] {
  const bySecond = new Map<number, OraclePoint[]>();
  for (const point of points) {
    const second = Math.floor(point.time);
    bySecond.set(second, [...(bySecond.get(second) ?? []), point]);
  }
  return [...bySecond.entries()]
    .sort(([a], [b]) => a - b)
    .map(([time, group]) => ({
      time,
      ignition: group.some((point) => point.ignition),
      speedKmh: group.reduce((highest, point) => Math.max(point.speedKmh, highest), 0),
    }));
}

/** The state of every second, found by walking the seconds one by one. */
export function oracleSecondStates(points: readonly OraclePoint[], options: OracleOptions): Map<number, SegmentState> {
  const merged = oracleMergedPoints(points);
  const states = new Map<number, SegmentState>();
  if (merged.length === 0) return states;
  const lastIndex = merged.length - 1;
  let governing = 0;
  for (let second = merged[0]!.time; second < merged[lastIndex]!.time + options.maxGapSeconds; second += 1) {
    while (governing < lastIndex && merged[governing + 1]!.time <= second) governing += 1;
    const point = merged[governing]!;
    if (governing === lastIndex && options.tail === 'none') break;
    if (second - point.time >= options.maxGapSeconds || !point.ignition) continue;
    states.set(second, point.speedKmh >= options.movingSpeedKmh ? 'moving' : 'idle');
  }
  return states;
}

/** Maximal runs of seconds in one state. */
export function oracleSegments(points: readonly OraclePoint[], options: OracleOptions): SegmentInput[] {
  const segments: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  for (const [second, state] of [...oracleSecondStates(points, options)].sort(([a], [b]) => a - b)) {
    const last = segments[segments.length - 1];
    if (last && last.endedAt === second && last.state === state) last.endedAt = second + 1;
    else segments.push({ startedAt: second, endedAt: second + 1, state });
  }
  return segments;
}

/** Moving and idle seconds, counted one second at a time. */
export function oracleHours(points: readonly OraclePoint[], options: OracleOptions): { movingSeconds: number; idleSeconds: number } {
  let movingSeconds = 0;
  let idleSeconds = 0;
  for (const state of oracleSecondStates(points, options).values()) {
    if (state === 'moving') movingSeconds += 1;
    else idleSeconds += 1;
  }
  return { movingSeconds, idleSeconds };
}
