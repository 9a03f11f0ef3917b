/**
 * P58 through the core's public functions: where a write changes a device's engine time first
 * (`firstEngineChange`), when it must raise the memo version (`changesSettledHistory`), the settled
 * instant (`settledInstant`), and until when a schedule that is ok stays ok (`scheduleOkUntil`).
 * The oracles share no code with them: per-second states for the segments, and `serviceState`
 * itself for the bound (what the bound promises is what `serviceState` answers later).
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { changesSettledHistory, firstEngineChange, scheduleOkUntil, settledInstant } from '../adapter.js';
import { serviceState, type SegmentInput, type ServiceSchedule } from '../index.js';
import { scheduleStatusUntil } from './service-memo.js';

const HOUR = 3600;
const DAY = 86_400;
/** Epoch seconds of an ISO 8601 instant with its offset. */
const at = (text: string) => Temporal.Instant.from(text).epochMilliseconds / 1000;

/** Non-overlapping segments on [0, 200), the last one possibly open. */
const segmentsArbitrary = fc
  .array(
    fc.record({ gap: fc.integer({ min: 0, max: 12 }), length: fc.integer({ min: 1, max: 15 }), moving: fc.boolean(), open: fc.boolean() }),
    { maxLength: 8 },
  )
  .map((parts) => {
    const segments: SegmentInput[] = [];
    let cursor = 0;
    parts.forEach((part, index) => {
      const startedAt = cursor + part.gap;
      const open = part.open && index === parts.length - 1;
      segments.push({ startedAt, endedAt: open ? null : startedAt + part.length, state: part.moving ? 'moving' : 'idle' });
      cursor = startedAt + part.length;
    });
    return segments;
  });

/** The oracle: each second's state from 0 to 299 (an open segment runs on). */
function secondStates(segments: readonly SegmentInput[]): string[] {
  const states = Array.from({ length: 300 }, () => 'off');
  for (const segment of segments) {
    for (let second = segment.startedAt; second < (segment.endedAt ?? 300); second += 1) states[second] = segment.state;
  }
  return states;
}

describe('P58: firstEngineChange()', () => {
  it('is the first second two sets of segments cover differently, null when none (random segments against per-second states)', () => {
    fc.assert(
      fc.property(segmentsArbitrary, segmentsArbitrary, fc.boolean(), (removed, added, same) => {
        const other = same ? [...removed].reverse() : added;
        const before = secondStates(removed);
        const after = secondStates(other);
        const first = before.findIndex((state, second) => state !== after[second]);
        expect(firstEngineChange(removed, other)).toBe(first === -1 ? null : first);
      }),
      { numRuns: 500 },
    );
  });

  it('an open segment closed later changes engine time from its new end; one re-opened from there, nothing', () => {
    const open: SegmentInput = { startedAt: 100, endedAt: null, state: 'moving' };
    expect(firstEngineChange([open], [{ startedAt: 100, endedAt: 900, state: 'moving' }])).toBe(900);
    expect(
      firstEngineChange(
        [open],
        [
          { startedAt: 100, endedAt: 900, state: 'moving' },
          { startedAt: 900, endedAt: null, state: 'moving' },
        ],
      ),
    ).toBe(null);
    expect(firstEngineChange([], [])).toBeNull();
    expect(firstEngineChange([{ startedAt: 50, endedAt: 60, state: 'idle' }], [{ startedAt: 50, endedAt: 60, state: 'moving' }])).toBe(50);
  });
});

describe('P58: changesSettledHistory()', () => {
  const open: SegmentInput = { startedAt: 1000, endedAt: null, state: 'moving' };
  it('a write at the live edge (changes from the last report on) leaves the version; one before it, or of a device that never reported, raises it', () => {
    // The newest report at 1600: the open segment closes at 1600 and a new one follows.
    const closed = [
      { startedAt: 1000, endedAt: 1600, state: 'moving' as const },
      { startedAt: 1600, endedAt: null, state: 'idle' as const },
    ];
    expect(changesSettledHistory({ removed: [open], added: closed, settledAt: 1600 })).toBe(false);
    expect(changesSettledHistory({ removed: [open], added: closed, settledAt: 1700 })).toBe(true);
    expect(changesSettledHistory({ removed: [open], added: closed, settledAt: null })).toBe(true);
    // Nothing changed: nothing to raise, whatever the settled instant.
    expect(changesSettledHistory({ removed: [open], added: [open], settledAt: null })).toBe(false);
  });

  it('settledInstant() is the last report, or now when that is earlier; nothing for a device that never reported', () => {
    expect(settledInstant(500, 900)).toBe(500);
    expect(settledInstant(1200, 900)).toBe(900);
    // A first write that changes no segment (an ignition-off point) leaves the version and sets the
    // last report; the next may then add engine time after it, before the read's now.
    expect(settledInstant(null, 900)).toBeNull();
  });
});

const schedule = (fields: Partial<ServiceSchedule> = {}): ServiceSchedule => ({
  id: 3,
  deviceId: 7,
  name: 'Engine oil',
  intervalSeconds: 250 * HOUR,
  intervalDays: null,
  dueSoonSeconds: null,
  dueSoonDays: null,
  lastDoneAt: at('2026-01-10T12:00:00Z'),
  lastDoneHourMeterSeconds: null,
  createdAt: at('2026-01-10T12:00:00Z'),
  ...fields,
});

const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/Sao_Paulo'] as const;

describe('P58: scheduleOkUntil()', () => {
  it('before the instant it gives, the schedule is ok whatever the hour meter did at most a second a second after the settled instant; at it, it may not be (random schedules and zones, serviceState as the oracle)', () => {
    fc.assert(
      fc.property(
        fc.record({
          intervalHours: fc.integer({ min: 1, max: 3000 }),
          intervalDays: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
          dueSoonShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
          dueSoonDaysShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
          lastDoneAt: fc.integer({ min: at('2024-01-01T00:00:00Z'), max: at('2026-06-01T00:00:00Z') }),
          usedShare: fc.double({ min: 0, max: 1, noNaN: true }),
          sinceDone: fc.integer({ min: 0, max: 200 * DAY }),
          behind: fc.integer({ min: 0, max: 10 * DAY }),
          zone: fc.constantFrom(...ZONES),
          later: fc.double({ min: 0, max: 1, noNaN: true }),
          growth: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        (input) => {
          const intervalSeconds = input.intervalHours * HOUR;
          const dueSoonSeconds = input.dueSoonShare === null ? null : Math.floor(intervalSeconds * input.dueSoonShare);
          const dueSoonDays =
            input.intervalDays === null || input.dueSoonDaysShare === null ? null : Math.floor(input.intervalDays * input.dueSoonDaysShare);
          const subject = schedule({
            intervalSeconds,
            intervalDays: input.intervalDays,
            dueSoonSeconds,
            dueSoonDays,
            lastDoneAt: input.lastDoneAt,
          });
          const now = input.lastDoneAt + input.sinceDone;
          const settled = now - input.behind;
          const lastDone = 5000 * HOUR;
          const hourMeter = lastDone + Math.floor(intervalSeconds * input.usedShare);
          const stateAt = (instant: number, meter: number) =>
            serviceState({
              schedule: subject,
              lastDoneHourMeterSeconds: lastDone,
              hourMeterSeconds: meter,
              timeZone: input.zone,
              now: instant,
            }).status;
          const until = scheduleOkUntil({
            schedule: subject,
            lastDoneHourMeterSeconds: lastDone,
            hourMeterSeconds: hourMeter,
            timeZone: input.zone,
            now,
            settled,
          });
          if (stateAt(now, hourMeter) !== 'ok') {
            expect(until).toBeNull();
            return;
          }
          if (until === null) return; // ok at now, but the settled instant is too far back to promise anything
          expect(until).toBeGreaterThan(now);
          // Any instant before `until`, with the meter grown by up to what the bound allows.
          const instant = Math.min(until - 1, now + Math.floor((until - now) * input.later));
          const meter = hourMeter + Math.floor(Math.max(0, instant - settled) * input.growth);
          expect(stateAt(instant, meter)).toBe('ok');
          expect(stateAt(instant, hourMeter + Math.max(0, instant - settled))).toBe('ok');
          // At `until` itself, with the meter grown a second a second since the settled instant: not ok any more.
          expect(stateAt(until, hourMeter + (until - settled))).not.toBe('ok');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a calendar margin that begins on a day without midnight (São Paulo, 2018-11-04 begins at 01:00) ends ok at that day’s first instant', () => {
    // Done 2018-10-05 at noon local; 31 days, 1 day of margin: due 2018-11-05, due soon from 2018-11-04.
    const subject = schedule({
      intervalSeconds: 10_000 * HOUR,
      intervalDays: 31,
      dueSoonDays: 1,
      lastDoneAt: at('2018-10-05T12:00:00-03:00'),
    });
    const now = at('2018-10-20T12:00:00-03:00');
    const until = scheduleOkUntil({
      schedule: subject,
      lastDoneHourMeterSeconds: 0,
      hourMeterSeconds: HOUR,
      timeZone: 'America/Sao_Paulo',
      now,
      settled: now,
    });
    expect(until).toBe(at('2018-11-04T01:00:00-02:00'));
    const status = (instant: number) =>
      serviceState({ schedule: subject, lastDoneHourMeterSeconds: 0, hourMeterSeconds: HOUR, timeZone: 'America/Sao_Paulo', now: instant })
        .status;
    expect([status(until! - 1), status(until!)]).toEqual(['ok', 'due_soon']);
  });

  it('the hour-meter bound counts from the settled instant: a device silent for a day gets a day less', () => {
    const subject = schedule({ intervalSeconds: 250 * HOUR });
    const input = {
      schedule: subject,
      lastDoneHourMeterSeconds: 0,
      hourMeterSeconds: 100 * HOUR,
      timeZone: 'UTC',
      now: at('2026-02-01T00:00:00Z'),
    };
    // 225 h is where due soon begins: 125 h left.
    expect(scheduleOkUntil({ ...input, settled: input.now })).toBe(input.now + 125 * HOUR);
    expect(scheduleOkUntil({ ...input, settled: input.now - DAY })).toBe(input.now + 125 * HOUR - DAY);
    expect(scheduleOkUntil({ ...input, settled: input.now - 200 * HOUR })).toBeNull();
  });
});

describe('P66: scheduleStatusUntil()', () => {
  it('before the instant it gives, the schedule keeps its status for any hour meter from its lowest (now − settled below) to a second a second above; null only when one of those ends differs at now (random schedules and zones, serviceState as the oracle)', () => {
    fc.assert(
      fc.property(
        fc.record({
          intervalHours: fc.integer({ min: 1, max: 3000 }),
          intervalDays: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
          dueSoonShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
          dueSoonDaysShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
          lastDoneAt: fc.integer({ min: at('2024-01-01T00:00:00Z'), max: at('2026-06-01T00:00:00Z') }),
          usedShare: fc.double({ min: 0, max: 1.3, noNaN: true }),
          sinceDone: fc.integer({ min: 0, max: 500 * DAY }),
          behind: fc.oneof(fc.integer({ min: 0, max: HOUR }), fc.integer({ min: 0, max: 10 * DAY })),
          zone: fc.constantFrom(...ZONES),
          later: fc.double({ min: 0, max: 1, noNaN: true }),
          growth: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        (input) => {
          const intervalSeconds = input.intervalHours * HOUR;
          const subject = schedule({
            intervalSeconds,
            intervalDays: input.intervalDays,
            dueSoonSeconds: input.dueSoonShare === null ? null : Math.floor(intervalSeconds * input.dueSoonShare),
            dueSoonDays:
              input.intervalDays === null || input.dueSoonDaysShare === null
                ? null
                : Math.floor(input.intervalDays * input.dueSoonDaysShare),
            lastDoneAt: input.lastDoneAt,
          });
          const now = input.lastDoneAt + input.sinceDone;
          const settled = now - input.behind;
          const lastDone = 5000 * HOUR;
          const hourMeter = lastDone + Math.floor(intervalSeconds * input.usedShare);
          const lowest = hourMeter - (now - settled);
          const statusAt = (instant: number, meter: number) =>
            serviceState({
              schedule: subject,
              lastDoneHourMeterSeconds: lastDone,
              hourMeterSeconds: meter,
              timeZone: input.zone,
              now: instant,
            }).status;
          const status = statusAt(now, hourMeter);
          const until = scheduleStatusUntil({
            schedule: subject,
            lastDoneHourMeterSeconds: lastDone,
            hourMeterSeconds: hourMeter,
            timeZone: input.zone,
            now,
            settled,
            status,
          });
          if (until === null) {
            // Nothing promised only when the range already holds another status at now.
            expect([statusAt(now, lowest), statusAt(now, hourMeter + (now - settled))]).not.toEqual([status, status]);
            return;
          }
          expect(until).toBeGreaterThan(now);
          // Any instant before `until` (within ten years), the meter anywhere in its range then.
          const last = Math.min(until - 1, now + 3650 * DAY);
          const instant = now + Math.floor((last - now) * input.later);
          const highest = hourMeter + (instant - settled);
          for (const meter of [lowest, highest, lowest + Math.floor((highest - lowest) * input.growth)]) {
            expect({ instant, meter, status: statusAt(instant, meter) }).toEqual({ instant, meter, status });
          }
          // At a finite `until`, the worst end of the range has moved on.
          if (Number.isFinite(until)) expect(statusAt(until, hourMeter + (until - settled))).not.toBe(status);
          else expect(status).toBe('overdue');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('named cases: overdue for good, due soon until the due day passes or the hour meter may reach due, nothing promised when the meter may fall back out of the margin', () => {
    const subject = schedule({ intervalSeconds: 100 * HOUR, intervalDays: 30, lastDoneAt: at('2026-03-01T12:00:00Z') });
    const input = { schedule: subject, lastDoneHourMeterSeconds: 0, timeZone: 'UTC' };
    const now = at('2026-03-20T12:00:00Z');
    // Overdue by hours at the lowest meter: for good.
    expect(scheduleStatusUntil({ ...input, hourMeterSeconds: 101 * HOUR, now, settled: now - 60, status: 'overdue' })).toBe(
      Number.POSITIVE_INFINITY,
    );
    // Overdue by one second of the open segment only (the lowest is 99 h 59 min): a write may take it back.
    expect(scheduleStatusUntil({ ...input, hourMeterSeconds: 100 * HOUR, now, settled: now - 60, status: 'overdue' })).toBeNull();
    // Due soon (95 h of 100, margin 10 h): until the meter may reach 100 h, 5 h after the settled instant.
    expect(scheduleStatusUntil({ ...input, hourMeterSeconds: 95 * HOUR, now, settled: now - 60, status: 'due_soon' })).toBe(
      now - 60 + 5 * HOUR,
    );
    // Due soon by the calendar (due 2026-03-31, margin 3 days) with hours to spare: until 2026-04-01 begins.
    const late = at('2026-03-29T08:00:00Z');
    expect(scheduleStatusUntil({ ...input, hourMeterSeconds: 10 * HOUR, now: late, settled: late, status: 'due_soon' })).toBe(
      at('2026-04-01T00:00:00Z'),
    );
    // Due soon by 30 min of engine time, reported 2 h ago: the meter may fall back to 88.5 h, out of the margin.
    expect(scheduleStatusUntil({ ...input, hourMeterSeconds: 90.5 * HOUR, now, settled: now - 2 * HOUR, status: 'due_soon' })).toBeNull();
  });
});
