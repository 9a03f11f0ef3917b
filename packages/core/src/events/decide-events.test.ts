/**
 * Events (D40) through the core's public functions: `decideServiceEvents` and
 * `decideSilenceEvents`, with the outbox's one rule (an id is stored once) played by a Set.
 * Property: however the engine time that causes them is split into batches, ordered or repeated,
 * the events stored are those of the change from the first state to the last, and no batch raises
 * an event an earlier batch raised (P50).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideServiceEvents,
  decideSilenceEvents,
  isSilent,
  serviceState,
  type DeviceWatch,
  type ScheduleMark,
  type ServiceSchedule,
} from '../index.js';

const HOUR = 3600;
const schedule = (id: number, lastDoneAt: number, fields: Partial<ServiceSchedule> = {}): ServiceSchedule => ({
  id,
  deviceId: 7,
  name: `Schedule ${id}`,
  intervalSeconds: 100 * HOUR,
  intervalDays: null,
  dueSoonSeconds: null,
  dueSoonDays: null,
  lastDoneAt,
  lastDoneHourMeterSeconds: 0,
  createdAt: lastDoneAt,
  ...fields,
});

/** The device as the events see it when its hour meter is `hourMeter` (the real D39 status). */
const watch = (schedules: readonly ServiceSchedule[], hourMeter: number, lastReportedAt: number | null = 0): DeviceWatch => ({
  deviceId: 7,
  active: true,
  lastReportedAt,
  schedules: schedules.map(
    (s): ScheduleMark => ({
      scheduleId: s.id,
      cycle: s.lastDoneAt,
      status: serviceState({ schedule: s, lastDoneHourMeterSeconds: 0, hourMeterSeconds: hourMeter, timeZone: 'UTC', now: s.lastDoneAt })
        .status,
    }),
  ),
});
const mark = (scheduleId: number, cycle: number, status: ScheduleMark['status']): ScheduleMark => ({ scheduleId, cycle, status });
const device = (schedules: ScheduleMark[]): DeviceWatch => ({ deviceId: 7, active: true, lastReportedAt: 0, schedules });

describe('decideServiceEvents() (D40)', () => {
  it('raises service.due_soon when a schedule first reaches due soon', () => {
    const events = decideServiceEvents(device([mark(3, 50, 'ok')]), device([mark(3, 50, 'due_soon')]));
    expect(events).toEqual([{ id: 'evt_due_soon_s3_c50', type: 'service.due_soon', deviceId: 7, scheduleId: 3, cause: 50 }]);
  });

  it('raises only service.overdue when a due-soon schedule runs out', () => {
    const events = decideServiceEvents(device([mark(3, 50, 'due_soon')]), device([mark(3, 50, 'overdue')]));
    expect(events.map((event) => event.type)).toEqual(['service.overdue']);
  });

  it('raises due soon and overdue, in that order, when one write jumps from ok to overdue (P50)', () => {
    const events = decideServiceEvents(device([mark(3, 50, 'ok')]), device([mark(3, 50, 'overdue')]));
    expect(events.map((event) => event.id)).toEqual(['evt_due_soon_s3_c50', 'evt_overdue_s3_c50']);
  });

  it('raises nothing when late data moves a status back, and nothing for a status already reached', () => {
    expect(decideServiceEvents(device([mark(3, 50, 'overdue')]), device([mark(3, 50, 'due_soon')]))).toEqual([]);
    expect(decideServiceEvents(device([mark(3, 50, 'overdue')]), device([mark(3, 50, 'ok')]))).toEqual([]);
    expect(decideServiceEvents(device([mark(3, 50, 'due_soon')]), device([mark(3, 50, 'due_soon')]))).toEqual([]);
  });

  it('gives a status reached again in the same cycle the same id, so the outbox keeps one event', () => {
    const first = decideServiceEvents(device([mark(3, 50, 'ok')]), device([mark(3, 50, 'overdue')]));
    const again = decideServiceEvents(device([mark(3, 50, 'due_soon')]), device([mark(3, 50, 'overdue')]));
    expect(again.map((event) => event.id)).toEqual([first[1]!.id]);
  });

  it('raises again in a new cycle (a service recorded), under new ids', () => {
    const events = decideServiceEvents(device([mark(3, 50, 'overdue')]), device([mark(3, 900, 'due_soon')]));
    expect(events.map((event) => event.id)).toEqual(['evt_due_soon_s3_c900']);
  });

  it('raises every reached status when nothing is known before (the periodic check), schedules by id', () => {
    const events = decideServiceEvents(null, device([mark(9, 1, 'due_soon'), mark(4, 2, 'ok'), mark(3, 3, 'overdue')]));
    expect(events.map((event) => event.id)).toEqual(['evt_due_soon_s3_c3', 'evt_overdue_s3_c3', 'evt_due_soon_s9_c1']);
  });

  it('stores the same events whatever the split, order or repetition of the engine time that causes them', () => {
    const increments = fc.uniqueArray(fc.record({ key: fc.nat(1000), seconds: fc.integer({ min: 1, max: 40 * HOUR }) }), {
      selector: (increment) => increment.key,
      minLength: 1,
      maxLength: 12,
    });
    const scenario = increments.chain((all) =>
      fc.record({
        all: fc.constant(all),
        batches: fc.array(fc.subarray(all, { minLength: 1 }), { minLength: 1, maxLength: 8 }),
        margins: fc.array(fc.integer({ min: 0, max: 100 * HOUR }), { minLength: 1, maxLength: 3 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ all, batches, margins }) => {
        const schedules = margins.map((margin, index) => schedule(index + 1, 1000 + index, { dueSoonSeconds: margin }));
        // The last batch brings whatever the others left out, so every run ends with all the engine time.
        const runs = [...batches, all];
        const received = new Set<number>();
        const meter = () => all.filter((increment) => received.has(increment.key)).reduce((sum, increment) => sum + increment.seconds, 0);
        const outbox = new Set<string>();
        for (const batch of runs) {
          const before = watch(schedules, meter());
          for (const increment of batch) received.add(increment.key);
          for (const event of decideServiceEvents(before, watch(schedules, meter()))) {
            expect(outbox.has(event.id), `${event.id} raised twice`).toBe(false);
            outbox.add(event.id);
          }
        }
        const whole = decideServiceEvents(watch(schedules, 0), watch(schedules, meter())).map((event) => event.id);
        expect([...outbox].sort()).toEqual(whole.sort());
      }),
    );
  });
});

describe('decideSilenceEvents() (D40)', () => {
  const quiet = 1800;
  const at = (lastReportedAt: number | null, active = true): DeviceWatch => ({ deviceId: 7, active, lastReportedAt, schedules: [] });

  it('isSilent() needs an active device that has reported and the whole quiet time without a report', () => {
    expect(isSilent(at(1000), 2799, quiet)).toBe(false);
    expect(isSilent(at(1000), 2800, quiet)).toBe(true);
    expect(isSilent(at(null), 99_999, quiet)).toBe(false);
    expect(isSilent(at(1000, false), 99_999, quiet)).toBe(false);
  });

  it('raises device.silent once per silence, named by the last report before it', () => {
    const events = decideSilenceEvents({ before: null, after: at(1000), openSilence: null, now: 2800, silentAfterSeconds: quiet });
    expect(events).toEqual([{ id: 'evt_silent_d7_r1000', type: 'device.silent', deviceId: 7, scheduleId: null, cause: 1000 }]);
    expect(decideSilenceEvents({ before: null, after: at(1000), openSilence: 1000, now: 9000, silentAfterSeconds: quiet })).toEqual([]);
  });

  it("raises device.reporting, under the silence's name, when the device reports again", () => {
    const events = decideSilenceEvents({ before: at(1000), after: at(9000), openSilence: 1000, now: 9001, silentAfterSeconds: quiet });
    expect(events.map((event) => event.id)).toEqual(['evt_reporting_d7_r1000']);
  });

  it('raises both when a write ends a silence the periodic check has not seen yet', () => {
    const events = decideSilenceEvents({ before: at(1000), after: at(9000), openSilence: null, now: 9001, silentAfterSeconds: quiet });
    expect(events.map((event) => event.id)).toEqual(['evt_silent_d7_r1000', 'evt_reporting_d7_r1000']);
  });

  it('raises nothing for late data that leaves the device silent, nor for a device that never fell silent', () => {
    expect(decideSilenceEvents({ before: at(1000), after: at(1500), openSilence: 1000, now: 9000, silentAfterSeconds: quiet })).toEqual([]);
    expect(decideSilenceEvents({ before: at(1000), after: at(2000), openSilence: null, now: 2100, silentAfterSeconds: quiet })).toEqual([]);
  });

  it('never raises for an inactive device, nor closes its silence without a report', () => {
    expect(decideSilenceEvents({ before: null, after: at(1000, false), openSilence: null, now: 9000, silentAfterSeconds: quiet })).toEqual(
      [],
    );
    expect(decideSilenceEvents({ before: null, after: at(1000, false), openSilence: 1000, now: 9000, silentAfterSeconds: quiet })).toEqual(
      [],
    );
  });
});
