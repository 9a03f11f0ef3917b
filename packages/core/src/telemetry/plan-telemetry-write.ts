import { aheadMessage, EARLIEST_POINT_TIME, MAX_AHEAD_SECONDS, outOfRangeMessage, secondsAhead, showValue } from './telemetry-clock.js';
import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { TelemetryOverlapError } from '../errors/errors.js';
import { mergePoints, type PointMerge } from './merge-points.js';
import { rederivationSpan, rederiveSpan, type RederivationSpan, type SpanRederivation } from './rederive-span.js';
import { InvalidTelemetryPointError, isStorableText, type ParseTelemetryPointOptions, type TelemetryPoint } from './telemetry-point.js';
import { assertPointPosition } from './newest-position.js';
import { DEFAULT_TELEMETRY_OPTIONS, type TelemetryOptions } from './telemetry-to-segments.js';
import type { DeviceTelemetryPoint, EpochSeconds, SegmentInput, SegmentSource } from '../types.js';

/**
 * Checks a batch a store is asked to write (D20, D25, D26) before it reads anything: each point
 * names its device by `deviceId` or by `imei` (one of the two; an `imei` PostgreSQL can store, D37),
 * its time is whole epoch seconds of the years 0001–9999 (the port's unit: `parseTelemetryPoint`
 * floors fractions on the wire) and not before 0001-01-02T00:00:00Z, the read API's first date
 * (D37), its ignition a boolean, its speed a finite number ≥ 0, and it is not more than `maxAheadSeconds`
 * ahead of `now` — the same clock rule as `parseTelemetryPoint`, so a store refuses a point from
 * the future whoever sends it (the CLI, embedding code).
 *
 * @param points The batch, in its order.
 * @param options `now` (epoch seconds) and the tolerance ahead of it (default 300 s, D26).
 * @throws {RangeError} For a malformed point, naming it: `points[3].time must be whole epoch seconds, …`.
 * @throws {InvalidTelemetryPointError} With `index` (0-based) and `field: 'time'`, for the first
 *   point before 0001-01-02T00:00:00Z (D37) or more than `maxAheadSeconds` ahead of `now`.
 * @example
 * ```ts
 * import { assertTelemetryPoints } from '@fleet-hours/core/adapter';
 * assertTelemetryPoints([{ deviceId: 1, time: 100, ignition: true, speedKmh: 0 }], { now: 100 }); // fine
 * assertTelemetryPoints([{ deviceId: 1, time: 500, ignition: true, speedKmh: 0 }], { now: 100 });
 * // throws InvalidTelemetryPointError: time must be at most 300 s ahead of the server clock, got 500 (400 s ahead)
 * ```
 */
export function assertTelemetryPoints(points: readonly DeviceTelemetryPoint[], options: ParseTelemetryPointOptions): void {
  const maxAheadSeconds = options.maxAheadSeconds ?? MAX_AHEAD_SECONDS;
  assertEpochSeconds('now', options.now);
  points.forEach((point, index) => {
    const byId = point.deviceId !== undefined;
    const byImei = point.imei !== undefined;
    if (byId === byImei)
      throw new RangeError(`points[${index}] must name its device by deviceId or by imei, ${byId ? 'not both' : 'got neither'}`);
    if (byImei && typeof point.imei !== 'string')
      throw new RangeError(`points[${index}].imei must be a string, got ${showValue((point as { imei: unknown }).imei)}`);
    // D37: PostgreSQL cannot store a NUL, and an unpaired surrogate is not text.
    if (byImei && !isStorableText(point.imei!))
      throw new RangeError(
        `points[${index}].imei must be text without NUL characters or unpaired surrogates, got ${showValue(point.imei)}`,
      );
    assertEpochSeconds(`points[${index}].time`, point.time);
    if (typeof point.ignition !== 'boolean')
      throw new RangeError(`points[${index}].ignition must be true or false, got ${showValue(point.ignition)}`);
    if (typeof point.speedKmh !== 'number' || !Number.isFinite(point.speedKmh) || point.speedKmh < 0) {
      throw new RangeError(`points[${index}].speedKmh must be a number ≥ 0, got ${showValue(point.speedKmh)}`);
    }
    assertPointPosition(point, index);
  });
  points.forEach((point, index) => {
    // D37: a point before the read API's first date is refused by every store, as on the wire.
    if (point.time < EARLIEST_POINT_TIME) throw new InvalidTelemetryPointError('time', outOfRangeMessage(point.time), index);
    const ahead = secondsAhead(point.time, options.now, maxAheadSeconds);
    if (ahead !== null) throw new InvalidTelemetryPointError('time', aheadMessage(point.time, ahead, maxAheadSeconds), index);
  });
}

/**
 * A device's `lastReportedAt` after a write (P6, D26): the newest instant the write reported when
 * that is later than the current value, else the current value — raised, never lowered. Imports
 * (through `planSegmentImport`) and telemetry writes (through {@link planTelemetryWrite}) both
 * decide it here.
 *
 * @param current The device's value before the write.
 * @param report The newest instant of the write: an import's latest instant or `reportedAt`, the
 *   newest point a telemetry write stored; `null` when the write reported nothing.
 * @returns The value to store.
 * @example
 * ```ts
 * import { raiseLastReportedAt } from '@fleet-hours/core/adapter';
 * raiseLastReportedAt(100, 90); // 100
 * raiseLastReportedAt(null, 90); // 90
 * ```
 */
export function raiseLastReportedAt(current: EpochSeconds | null, report: EpochSeconds | null): EpochSeconds | null {
  if (report === null) return current;
  return current === null || report > current ? report : current;
}

/** What a store writes for one device's share of a telemetry batch ({@link planTelemetryWrite}). */
export interface TelemetryWritePlan extends Pick<PointMerge, 'writes' | 'inserted' | 'accepted' | 'duplicates'> {
  /** Where segments are re-derived (D20); `null` when nothing is written (every point a duplicate). */
  readonly span: RederivationSpan | null;
  /** Every point of the span after the write, in time order: the `points` of `rederiveSpan`. */
  readonly spanPoints: readonly TelemetryPoint[];
  /**
   * The stored segments the store must read next and hand to {@link planTelemetrySegments}: every
   * segment of the device, imported or derived, with `startedAt ≤ end` and `endedAt ≥ start` (an
   * open one counts as ending never). Both ends inclusive. `null` when nothing is written.
   */
  readonly segmentRange: { readonly start: EpochSeconds; readonly end: EpochSeconds } | null;
  /** The device's `lastReportedAt` after the write (D26: the newest stored point). */
  readonly lastReportedAt: EpochSeconds | null;
}

/**
 * Plans one device's share of a telemetry write (D20–D22, D26): merges the batch into the stored
 * points (`mergePoints`), finds the span to re-derive (`rederivationSpan`) and the points in it,
 * and decides `lastReportedAt`. Then the store reads `segmentRange`, calls
 * {@link planTelemetrySegments}, and writes `writes` (insert or replace by second) and the segment
 * changes, all in one transaction under the device's lock.
 *
 * @param input `batch`: the device's points of the batch (checked by {@link assertTelemetryPoints});
 *   `stored`: every stored point of the device from the last one before the batch's earliest time
 *   through the first one after its latest time (both included when they exist; more is allowed,
 *   fewer is not), any order; `lastReportedAt`: the device's current value.
 * @param options The thresholds of D2 (the store's, the same for every write).
 * @returns The plan.
 * @example
 * ```ts
 * import { planTelemetryWrite } from '@fleet-hours/core/adapter';
 * const plan = planTelemetryWrite({
 *   batch: [{ time: 150, ignition: true, speedKmh: 30 }],
 *   stored: [{ time: 100, ignition: true, speedKmh: 0 }, { time: 200, ignition: true, speedKmh: 0 }],
 *   lastReportedAt: 200,
 * });
 * plan.span; // { firstPoint: 100, lastPoint: 200 }
 * plan.segmentRange; // { start: 100, end: 200 }
 * ```
 */
export function planTelemetryWrite(
  input: {
    readonly batch: readonly TelemetryPoint[];
    readonly stored: readonly TelemetryPoint[];
    readonly lastReportedAt: EpochSeconds | null;
  },
  options: Omit<TelemetryOptions, 'tail'> = {},
): TelemetryWritePlan {
  const merge = mergePoints(input.stored, input.batch);
  const { writes, inserted, accepted, duplicates } = merge;
  const storedTimes = input.stored.map((point) => point.time).sort((a, b) => a - b);
  const span = rederivationSpan({ written: writes.map((point) => point.time), storedTimes });
  if (!span)
    return { writes, inserted, accepted, duplicates, span, spanPoints: [], segmentRange: null, lastReportedAt: input.lastReportedAt };

  const after = new Map<number, TelemetryPoint>();
  for (const point of input.stored) after.set(point.time, point);
  for (const point of writes) after.set(point.time, point);
  const spanPoints = [...after.values()]
    .filter((point) => point.time >= span.firstPoint && (span.lastPoint === null || point.time <= span.lastPoint))
    .sort((a, b) => a.time - b.time);
  const newest = spanPoints[spanPoints.length - 1]!.time;
  const end = span.lastPoint ?? newest + (options.maxGapSeconds ?? DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds);
  return {
    writes,
    inserted,
    accepted,
    duplicates,
    span,
    spanPoints,
    segmentRange: { start: span.firstPoint, end },
    lastReportedAt: raiseLastReportedAt(input.lastReportedAt, writes[writes.length - 1]!.time),
  };
}

/** A stored segment with where it came from, as a store reads it for {@link planTelemetrySegments}. */
export interface SourcedSegment extends SegmentInput {
  readonly source: SegmentSource;
}

/**
 * The segment changes of a telemetry write (D20, D22), checked against imported segments (D23):
 * re-derives the plan's span with `rederiveSpan` from the device's telemetry segments, and refuses
 * the write when a segment it adds would overlap an imported one.
 *
 * @param input `deviceId` (for the refusal), the device's {@link TelemetryWritePlan} (with a span),
 *   and `segments`: every stored segment in the plan's `segmentRange`, of both sources (more is
 *   allowed: segments outside the range are ignored, so a store can read a wider range in the
 *   statement that reads the points, before it knows the span).
 * @param options The thresholds of D2, as given to {@link planTelemetryWrite}.
 * @returns The re-derivation: apply `removed` and `added` (as `telemetry` segments).
 * @throws {TelemetryOverlapError} When the telemetry would overlap imported segments (D23), naming
 *   the device and the first instant both would cover.
 * @throws {RangeError} When the plan has no span, or the segments break `rederiveSpan`'s contract.
 * @example
 * ```ts
 * import { planTelemetrySegments, planTelemetryWrite } from '@fleet-hours/core/adapter';
 * const plan = planTelemetryWrite({ batch: [{ time: 0, ignition: true, speedKmh: 0 }], stored: [], lastReportedAt: null });
 * planTelemetrySegments({ deviceId: 1, plan, segments: [] }).added; // [{ startedAt: 0, endedAt: 300, state: 'idle' }]
 * planTelemetrySegments({ deviceId: 1, plan, segments: [{ startedAt: 120, endedAt: 600, state: 'moving', source: 'import' }] });
 * // throws TelemetryOverlapError: Device 1: the telemetry would overlap imported segments at "1970-01-01T00:02:00Z": nothing was written
 * ```
 */
export function planTelemetrySegments(
  input: { readonly deviceId: number; readonly plan: TelemetryWritePlan; readonly segments: readonly SourcedSegment[] },
  options: Omit<TelemetryOptions, 'tail'> = {},
): SpanRederivation {
  const { span, spanPoints } = input.plan;
  if (!span) throw new RangeError('The plan writes nothing: there is no span to re-derive');
  const range = input.plan.segmentRange!;
  const telemetry: SegmentInput[] = [];
  const imported: SegmentInput[] = [];
  for (const { startedAt, endedAt, state, source } of input.segments) {
    // A store may read a wider range in the same statement as the points (before it knew the span).
    if (startedAt > range.end || (endedAt !== null && endedAt < range.start)) continue;
    (source === 'telemetry' ? telemetry : imported).push({ startedAt, endedAt, state });
  }
  const rederived = rederiveSpan({ span, points: spanPoints, segments: telemetry }, options);
  assertSourcesApart({ deviceId: input.deviceId, written: 'telemetry', incoming: rederived.added, other: imported });
  return rederived;
}

/**
 * D23: refuses a write whose new segments would overlap stored segments of the other source —
 * telemetry over imported segments, or an import over segments derived from telemetry.
 *
 * @param input `incoming`: the segments the write adds; `other`: the stored segments of the other
 *   source that overlap them (more is allowed); open segments run forever.
 * @throws {TelemetryOverlapError} Naming the device and the first instant both would cover.
 * @example
 * ```ts
 * import { assertSourcesApart } from '@fleet-hours/core/adapter';
 * assertSourcesApart({ deviceId: 1, written: 'import', incoming: [{ startedAt: 0, endedAt: 60, state: 'idle' }], other: [] }); // fine
 * ```
 */
export function assertSourcesApart(input: {
  readonly deviceId: number;
  readonly written: SegmentSource;
  readonly incoming: readonly SegmentInput[];
  readonly other: readonly SegmentInput[];
}): void {
  const instant = _firstCommonInstant(input.incoming, input.other);
  if (instant !== null) throw new TelemetryOverlapError({ deviceId: input.deviceId, instant, written: input.written });
}

/**
 * The first instant covered by a segment of each list, or `null`. Within each list segments do not
 * overlap. Sweeping starts in order: the first common instant is the start of one segment, at which
 * a segment of the other list already started has not yet ended.
 */
function _firstCommonInstant(a: readonly SegmentInput[], b: readonly SegmentInput[]): number | null {
  if (a.length === 0 || b.length === 0) return null;
  const tagged = [...a.map((segment) => ({ segment, list: 0 })), ...b.map((segment) => ({ segment, list: 1 }))];
  tagged.sort((x, y) => x.segment.startedAt - y.segment.startedAt);
  const reach = [-Infinity, -Infinity];
  for (const { segment, list } of tagged) {
    if (reach[1 - list]! > segment.startedAt) return segment.startedAt;
    reach[list] = Math.max(reach[list]!, segment.endedAt ?? Infinity);
  }
  return null;
}
