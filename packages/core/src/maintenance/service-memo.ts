import { Temporal } from 'temporal-polyfill';
import { isoDateOfEpochDay } from '../time/iso-days.js';
import { localEpochDayAt, startOfLocalDay } from '../time/local-date.js';
import { dueLocalEpochDay } from './due-day.js';
import { serviceMargins } from './service-status.js';
import type { EpochSeconds, SegmentInput, ServiceSchedule, ServiceStatus, SegmentState } from '../types.js';

/**
 * P58: what a store may remember of a device's service between reads, and when it stops being
 * true. A store that remembers keeps, per device, a memo version (`memoVersion`) that every change
 * a remembered value depends on raises: a write whose segments change engine time before the
 * device's settled instant ({@link changesSettledHistory}), a reading added or removed, a schedule
 * created, changed or removed, a zone changed. A remembered value counts only while the device's
 * version is the one it was remembered at.
 *
 * The settled instant is the device's `lastReportedAt` (D26): a write that only appends after it
 * (the live case) changes engine time at and after it only, so it leaves the version, and the
 * values remembered, alone.
 */

/**
 * The earliest instant at which the engine time of two sets of a device's segments differs (P58):
 * where the segments a write removes and those it adds cover a second differently (moving, idle or
 * off). An open segment covers every second from its start on.
 *
 * @param removed Segments a write removes (non-overlapping, any order).
 * @param added Segments it adds in their place (non-overlapping, any order).
 * @returns Epoch seconds, or `null` when both cover exactly the same seconds in the same states.
 * @example
 * ```ts
 * import { firstEngineChange } from '@fleet-hours/core/adapter';
 * // An open segment closed at 900: engine time changes from 900 on.
 * firstEngineChange([{ startedAt: 100, endedAt: null, state: 'moving' }], [{ startedAt: 100, endedAt: 900, state: 'moving' }]); // 900
 * ```
 */
export function firstEngineChange(removed: readonly SegmentInput[], added: readonly SegmentInput[]): EpochSeconds | null {
  const before = _sorted(removed);
  const after = _sorted(added);
  const instants = new Set<number>();
  for (const segment of [...before, ...after]) {
    instants.add(segment.startedAt);
    if (segment.endedAt !== null) instants.add(segment.endedAt);
  }
  // Between two consecutive boundaries both sets keep one state: compare them at each boundary.
  for (const instant of [...instants].sort((a, b) => a - b)) {
    if (_stateAt(before, instant) !== _stateAt(after, instant)) return instant;
  }
  return null;
}

/**
 * Whether a write of a device's segments changes engine time before its settled instant, and so
 * must raise the device's memo version (P58): it changes anything, and either the device had no
 * settled instant (`lastReportedAt` null before the write) or the first change is before it.
 *
 * @param input The segments the write removes and adds, and the device's `lastReportedAt` before it.
 * @returns `true` when the version must be raised.
 */
export function changesSettledHistory(input: {
  readonly removed: readonly SegmentInput[];
  readonly added: readonly SegmentInput[];
  readonly settledAt: EpochSeconds | null;
}): boolean {
  const first = firstEngineChange(input.removed, input.added);
  return first !== null && (input.settledAt === null || first < input.settledAt);
}

/**
 * The instant up to which a device's engine time is settled for a read at `now` (P58): its
 * `lastReportedAt`, or `now` when that is earlier; `null` for a device that never reported, of
 * which nothing is remembered. `lastReportedAt` is never lowered (D26), and a write that leaves the
 * memo version alone changes engine time only from the `lastReportedAt` it found on, adding at most
 * one second of it per second (D1: a device's segments never overlap).
 *
 * @param lastReportedAt The device's `lastReportedAt`, read no later than the data the read uses.
 * @param now Epoch seconds of the read.
 */
export function settledInstant(lastReportedAt: EpochSeconds | null, now: EpochSeconds): EpochSeconds | null {
  return lastReportedAt === null ? null : Math.min(lastReportedAt, now);
}

/**
 * The instant before which a schedule that is `ok` at `now` stays `ok` whatever the device reports
 * (P58, D39): the earlier of the start of the local date on which its calendar margin begins
 * (`due_date − due_soon_days`, in the device's zone), and `settled + (due − margin − hour meter)`:
 * after `settled` the hour meter grows by at most a second a second, unless the memo version moves.
 *
 * @param input The schedule, the hour meter at its last service and at `now` (D38), the device's
 *   zone, now, and the settled instant ({@link settledInstant}).
 * @returns Epoch seconds (exclusive), or `null` when the schedule is not `ok` at `now`.
 * @example
 * ```ts
 * import { scheduleOkUntil } from '@fleet-hours/core/adapter';
 * const schedule = {
 *   id: 3, deviceId: 7, name: 'Engine oil', intervalSeconds: 900_000, intervalDays: null,
 *   dueSoonSeconds: null, dueSoonDays: null, lastDoneAt: 0, lastDoneHourMeterSeconds: null, createdAt: 0,
 * };
 * // 810,000 s before the margin, 800,000 used: ok for 10,000 s after the settled instant.
 * scheduleOkUntil({ schedule, lastDoneHourMeterSeconds: 0, hourMeterSeconds: 800_000, timeZone: 'UTC', now: 4_995_000, settled: 4_990_000 }); // 5000000
 * ```
 */
export function scheduleOkUntil(input: {
  readonly schedule: ServiceSchedule;
  readonly lastDoneHourMeterSeconds: number;
  readonly hourMeterSeconds: number;
  readonly timeZone: string;
  readonly now: EpochSeconds;
  readonly settled: EpochSeconds;
}): EpochSeconds | null {
  const { schedule, lastDoneHourMeterSeconds, hourMeterSeconds, timeZone, now, settled } = input;
  const { dueSoonSeconds, dueSoonDays } = serviceMargins(schedule);
  const leftBeforeMargin = lastDoneHourMeterSeconds + schedule.intervalSeconds - dueSoonSeconds - hourMeterSeconds;
  let until = settled + leftBeforeMargin;
  const dueDay = dueLocalEpochDay(schedule, timeZone);
  if (dueDay !== null && dueSoonDays !== null) {
    const { year, month, day } = isoDateOfEpochDay(dueDay - dueSoonDays);
    until = Math.min(until, startOfLocalDay(new Temporal.PlainDate(year, month, day), timeZone));
  }
  return until > now ? until : null;
}

/**
 * The instant before which a schedule keeps the status it has at `now` whatever the device
 * reports (P66, D49): `Infinity` when it keeps it for good, `null` when that cannot be promised.
 * From `now` on, unless the memo version moves (P58), the hour meter lies between its value at the
 * settled instant — at least `hourMeterSeconds − (now − settled)` — and `hourMeterSeconds + (t −
 * settled)` at `t` (it grows at most a second a second after `settled`, and a write after `settled`
 * may take back engine time it had counted up to now: closing the open segment earlier), and the
 * local date only moves on. A status is kept while both ends of that range give it:
 *
 * - `ok`: {@link scheduleOkUntil};
 * - `due_soon`, when the low end is within a margin too (or the calendar margin has begun): until
 *   the high end reaches the due hour meter or the local date passes the due date;
 * - `overdue`, when the low end is overdue too (or the due date has passed): for good.
 *
 * @param input As {@link scheduleOkUntil}, and the schedule's status at `now` (from `serviceState`).
 * @returns Epoch seconds (exclusive, after `now`), `Infinity`, or `null`.
 */
export function scheduleStatusUntil(input: Parameters<typeof scheduleOkUntil>[0] & { readonly status: ServiceStatus }): number | null {
  const { schedule, lastDoneHourMeterSeconds, hourMeterSeconds, timeZone, now, settled, status } = input;
  if (status === 'ok') return scheduleOkUntil(input);
  const { dueSoonSeconds, dueSoonDays } = serviceMargins(schedule);
  const due = lastDoneHourMeterSeconds + schedule.intervalSeconds;
  const lowest = hourMeterSeconds - Math.max(0, now - settled);
  const dueDay = dueLocalEpochDay(schedule, timeZone);
  const daysLeft = dueDay === null ? null : dueDay - localEpochDayAt(now, timeZone);
  if (status === 'overdue') return due - lowest <= 0 || (daysLeft !== null && daysLeft < 0) ? Number.POSITIVE_INFINITY : null;
  const soonAtLowest = due - lowest <= dueSoonSeconds || (daysLeft !== null && dueSoonDays !== null && daysLeft <= dueSoonDays);
  if (!soonAtLowest) return null;
  let until = settled + (due - hourMeterSeconds);
  if (dueDay !== null) {
    const { year, month, day } = isoDateOfEpochDay(dueDay + 1);
    until = Math.min(until, startOfLocalDay(new Temporal.PlainDate(year, month, day), timeZone));
  }
  return until > now ? until : null;
}

function _sorted(segments: readonly SegmentInput[]): SegmentInput[] {
  return [...segments].sort((a, b) => a.startedAt - b.startedAt);
}

/** The state of the segment covering `instant` (`[startedAt, endedAt)`), `null` for none. */
function _stateAt(segments: readonly SegmentInput[], instant: number): SegmentState | null {
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (segments[middle]!.startedAt <= instant) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (found < 0) return null;
  const segment = segments[found]!;
  return segment.endedAt === null || instant < segment.endedAt ? segment.state : null;
}
