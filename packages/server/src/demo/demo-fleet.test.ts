import { localDateAt } from '@fleet-hours/core';
import { summarizeSegments } from '@fleet-hours/core/adapter';
import { describe, expect, it } from 'vitest';
import { latestTransitionDay } from './demo-banner.js';
import { mulberry32 } from '../simulate/mulberry32.js';
import { DEMO_VEHICLES, generateDemoSegments } from './demo-fleet.js';

const NOW = Date.UTC(2026, 10, 21, 15, 30) / 1000; // 2026-11-21T15:30:00Z

describe('generateDemoSegments()', () => {
  for (const [index, vehicle] of DEMO_VEHICLES.entries()) {
    it(`${vehicle.name} (${vehicle.timeZone}): a year of ordered, non-overlapping whole-second segments up to now`, () => {
      const segments = generateDemoSegments({ vehicle, seed: index + 1, now: NOW });
      expect(segments.length).toBeGreaterThan(1000);
      const problems: string[] = [];
      for (const [position, segment] of segments.entries()) {
        const next = segments[position + 1];
        if (!Number.isInteger(segment.startedAt) || segment.startedAt >= NOW) problems.push(`start of ${position}`);
        if (
          segment.endedAt !== null &&
          (!Number.isInteger(segment.endedAt) || segment.endedAt <= segment.startedAt || segment.endedAt > NOW)
        )
          problems.push(`end of ${position}`);
        if (segment.endedAt === null && next) problems.push(`open ${position} is not the last`); // only the one running now is open
        if (next && next.startedAt < (segment.endedAt ?? Infinity)) problems.push(`${position} overlaps the next`);
      }
      expect(problems).toEqual([]);
      const first = segments[0]!;
      expect(NOW - first.startedAt).toBeGreaterThan(360 * 86_400);
      const summary = summarizeSegments(segments, NOW);
      expect(summary.movingSeconds).toBeGreaterThan(0);
      expect(summary.idleSeconds).toBeGreaterThan(0);
    });
  }

  it('is deterministic: a day looks the same on every run, whatever the run time', () => {
    const vehicle = DEMO_VEHICLES[0]!;
    expect(generateDemoSegments({ vehicle, seed: 1, now: NOW })).toEqual(generateDemoSegments({ vehicle, seed: 1, now: NOW }));
    const earlier = generateDemoSegments({ vehicle, seed: 1, now: NOW - 7 * 86_400 });
    const later = generateDemoSegments({ vehicle, seed: 1, now: NOW });
    const dayStart = Date.UTC(2026, 5, 10, 4) / 1000; // 2026-06-10 in New York (-04:00)
    const day = (segments: typeof later) =>
      segments.filter((segment) => segment.startedAt >= dayStart && segment.startedAt < dayStart + 86_400);
    expect(day(later)).toEqual(day(earlier));
    expect(day(later).length).toBeGreaterThan(0);
  });

  it('keeps the local start time of shifts across DST: the New York truck starts between 06:30 and 09:01 all year but on the days of a clock change', () => {
    const vehicle = DEMO_VEHICLES.find((candidate) => candidate.timeZone === 'America/New_York')!;
    const segments = generateDemoSegments({ vehicle, seed: 1, now: NOW, days: 60 }); // across the change of 2026-11-01
    const firstOfDay = new Map<string, number>();
    for (const segment of segments) {
      const date = localDateAt(segment.startedAt, vehicle.timeZone).toString();
      if (!firstOfDay.has(date)) firstOfDay.set(date, segment.startedAt);
    }
    // A day of a clock change has its own shift across the change (the seedDemo test reads it).
    for (const [date, startedAt] of firstOfDay) {
      if (['2026-11-01', '2026-03-08'].includes(date)) continue;
      const local = new Date((startedAt + offsetSeconds(startedAt, vehicle.timeZone)) * 1000);
      const minutes = local.getUTCHours() * 60 + local.getUTCMinutes();
      expect(minutes).toBeGreaterThanOrEqual(6 * 60 + 30);
      expect(minutes).toBeLessThanOrEqual(9 * 60 + 1);
    }
  });

  it('night rounds cross local midnight', () => {
    const vehicle = DEMO_VEHICLES.find((candidate) => candidate.pattern === 'night')!;
    const segments = generateDemoSegments({ vehicle, seed: 2, now: NOW, days: 14 });
    const crossing = segments.filter(
      (segment) =>
        segment.endedAt !== null &&
        localDateAt(segment.startedAt, vehicle.timeZone).toString() !== localDateAt(segment.endedAt - 1, vehicle.timeZone).toString(),
    );
    const hours = new Set(
      segments.map((segment) => new Date((segment.startedAt + offsetSeconds(segment.startedAt, vehicle.timeZone)) * 1000).getUTCHours()),
    );
    expect(crossing.length + (hours.has(0) ? 1 : 0)).toBeGreaterThan(0);
    expect(hours.has(12)).toBe(false); // nobody bakes at noon
  });

  it('covers zones with DST, a 30-minute DST shift and a +05:45 offset', () => {
    const zones = DEMO_VEHICLES.map((vehicle) => vehicle.timeZone);
    expect(zones).toEqual(
      expect.arrayContaining(['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Sao_Paulo']),
    );
    expect(latestTransitionDay('Australia/Lord_Howe', NOW)?.seconds).toBe(84_600);
  });
});

describe('latestTransitionDay()', () => {
  it('finds the most recent day that is not 24 hours long, or null in a zone without DST', () => {
    expect(latestTransitionDay('America/New_York', NOW)).toEqual({ date: '2026-11-01', seconds: 90_000 });
    expect(latestTransitionDay('Europe/Berlin', NOW)).toEqual({ date: '2026-10-25', seconds: 90_000 });
    expect(latestTransitionDay('Asia/Kathmandu', NOW)).toBeNull();
  });
});

describe('mulberry32()', () => {
  it('gives the same stream for the same seed, values in [0, 1)', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(990);
  });
});

function offsetSeconds(epochSeconds: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(epochSeconds * 1000));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)!.value);
  return (
    (Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) - epochSeconds * 1000) / 1000
  );
}
