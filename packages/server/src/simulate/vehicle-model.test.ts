import { localDateAt, telemetryToSegments, type TelemetryPoint } from '@fleet-hours/core';
import { summarizeSegments } from '@fleet-hours/core/adapter';
import { describe, expect, it } from 'vitest';
import { simulateVehicle, type VehicleReport } from './vehicle-model.js';

/** Monday 2026-11-16 00:00 in Berlin (+01:00). */
const MONDAY = Date.UTC(2026, 10, 15, 23) / 1000;
const WEEK = 7 * 86_400;
const points = (reports: readonly VehicleReport[]): TelemetryPoint[] =>
  reports.map(({ time, ignition, speedKmh }) => ({ time, ignition, speedKmh }));

describe('simulateVehicle()', () => {
  it('is deterministic: the same seed and vehicle give the same reports, another seed or vehicle others', () => {
    const run = (seed: number, vehicle: number) => [
      ...simulateVehicle({ seed, vehicle, from: MONDAY, until: MONDAY + 2 * 86_400, intervalSeconds: 15 }),
    ];
    expect(run(7, 0)).toEqual(run(7, 0));
    expect(run(7, 0)).not.toEqual(run(8, 0));
    expect(run(7, 0)).not.toEqual(run(7, 1));
  });

  it('reports in strictly increasing whole seconds within [from, until), never two in one second (D21)', () => {
    const reports = [
      ...simulateVehicle({ seed: 3, vehicle: 2, from: MONDAY + 17, until: MONDAY + WEEK, intervalSeconds: 7, timeZone: 'Europe/Berlin' }),
    ];
    expect(reports.length).toBeGreaterThan(1000);
    const problems = reports.flatMap((report, index) => {
      const previous = reports[index - 1];
      const wrong: string[] = [];
      if (!Number.isSafeInteger(report.time) || report.time < MONDAY + 17 || report.time >= MONDAY + WEEK) wrong.push(`time of ${index}`);
      if (previous && report.time <= previous.time) wrong.push(`order at ${index}`);
      if (!(report.speedKmh >= 0) || (!report.ignition && report.speedKmh !== 0)) wrong.push(`speed of ${index}`);
      if (Math.abs(report.speedKmh - 5) < 0.5) wrong.push(`speed of ${index} near the moving threshold`);
      if (report.fixTime > report.time || (report.valid && report.fixTime !== report.time)) wrong.push(`fix of ${index}`);
      return wrong;
    });
    expect(problems).toEqual([]);
  });

  it('makes plausible working days (D2): engine off overnight and on Sunday, weekday shifts of hours, mostly moving', () => {
    const timeZone = 'Europe/Berlin';
    for (const [seed, vehicle] of [
      [1, 0],
      [2, 5],
      [99, 3],
    ] as const) {
      const reports = [...simulateVehicle({ seed, vehicle, from: MONDAY, until: MONDAY + WEEK, intervalSeconds: 10, timeZone })];
      const segments = telemetryToSegments(points(reports), { tail: 'none' });
      const byDay = new Map<string, { engine: number; moving: number }>();
      for (const segment of segments) {
        const date = localDateAt(segment.startedAt, timeZone).toString();
        const day = byDay.get(date) ?? { engine: 0, moving: 0 };
        day.engine += segment.endedAt! - segment.startedAt;
        if (segment.state === 'moving') day.moving += segment.endedAt! - segment.startedAt;
        byDay.set(date, day);
      }
      for (const date of ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']) {
        const engine = byDay.get(date)?.engine ?? 0;
        expect(engine, `${date}, seed ${seed}`).toBeGreaterThan(2 * 3600);
        expect(engine, `${date}, seed ${seed}`).toBeLessThan(11 * 3600);
      }
      expect(byDay.get('2026-11-22')?.engine ?? 0, `Sunday, seed ${seed}`).toBe(0);

      const { movingSeconds, idleSeconds } = summarizeSegments(segments, MONDAY + WEEK);
      const engineSeconds = movingSeconds + idleSeconds;
      expect(movingSeconds / engineSeconds).toBeGreaterThan(0.5);
      expect(movingSeconds / engineSeconds).toBeLessThan(0.95);
      expect(idleSeconds).toBeGreaterThan(0);
      // Nobody drives between midnight and 03:00 local time.
      const night = reports.filter((report) => report.ignition && (report.time - MONDAY) % 86_400 < 3 * 3600);
      expect(night).toEqual([]);
      // Engine-off stops in a shift: the ignition goes off and on again on a weekday.
      const switches = reports.filter((report, index) => index > 0 && report.ignition !== reports[index - 1]!.ignition).length;
      expect(switches).toBeGreaterThan(10);
    }
  });

  it("with shiftStart 'now' the engine starts at `from`, whatever the hour (a live run shows activity at once)", () => {
    const sundayNight = MONDAY - 3600; // Sunday 23:00 in Berlin: no scheduled shift
    const reports = [
      ...simulateVehicle({
        seed: 5,
        vehicle: 1,
        from: sundayNight,
        until: sundayNight + 600,
        intervalSeconds: 5,
        shiftStart: 'now',
        gapProbability: 0,
      }),
    ];
    expect(reports[0]).toMatchObject({ time: sundayNight, ignition: true, speedKmh: 0 });
    expect(reports.every((report) => report.ignition)).toBe(true);
    expect(reports.map((report) => report.time)).toEqual(Array.from({ length: 120 }, (_, index) => sundayNight + index * 5));
    const scheduled = [
      ...simulateVehicle({
        seed: 5,
        vehicle: 1,
        from: sundayNight,
        until: sundayNight + 600,
        intervalSeconds: 5,
        timeZone: 'Europe/Berlin',
      }),
    ];
    expect(scheduled.every((report) => !report.ignition)).toBe(true);
  });

  it('leaves data gaps: the tracker falls silent for minutes while the engine runs, and those reports are lost', () => {
    const reports = [
      ...simulateVehicle({
        seed: 11,
        vehicle: 0,
        from: MONDAY,
        until: MONDAY + 86_400,
        intervalSeconds: 10,
        shiftStart: 'now',
        gapProbability: 0.02,
      }),
    ];
    const silences = reports.filter(
      (report, index) => index > 0 && report.ignition && reports[index - 1]!.ignition && report.time - reports[index - 1]!.time >= 60,
    );
    expect(silences.length).toBeGreaterThan(2);
    const none = [
      ...simulateVehicle({
        seed: 11,
        vehicle: 0,
        from: MONDAY,
        until: MONDAY + 86_400,
        intervalSeconds: 10,
        shiftStart: 'now',
        gapProbability: 0,
      }),
    ];
    const noneSilences = none.filter(
      (report, index) => index > 0 && report.ignition && none[index - 1]!.ignition && report.time - none[index - 1]!.time > 10,
    );
    expect(noneSilences).toEqual([]);
  });

  it('refuses an interval that is not a whole number of seconds ≥ 1', () => {
    expect(() => simulateVehicle({ seed: 1, vehicle: 0, from: MONDAY, intervalSeconds: 0 }).next()).toThrow(RangeError);
    expect(() => simulateVehicle({ seed: 1, vehicle: 0, from: MONDAY, intervalSeconds: 1.5 }).next()).toThrow(
      'Option intervalSeconds must be a whole number ≥ 1, got 1.5',
    );
  });
});
