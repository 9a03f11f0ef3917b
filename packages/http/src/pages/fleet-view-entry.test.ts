import { formatInstant, parseInstant } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { parseDays, parseHours, zonedInstant } from './fleet-view/entry.js';

describe('what a person types into the fleet view’s action forms (P98)', () => {
  it.each([
    ['250', 900_000],
    ['250:30', 901_800],
    [' 12.5 ', 45_000],
    ['0', 0],
    ['4190:05', 4190 * 3600 + 300],
  ])('P98: parseHours() reads %j as %i seconds of engine time', (text, seconds) => {
    expect(parseHours(text)).toBe(seconds);
  });

  it.each(['', 'ten', '-5', '250:60', '1e3', '12,5', '250h'])('P98: parseHours() reads %j as no hours', (text) => {
    expect(parseHours(text)).toBeNull();
  });

  it('P98: parseDays() reads whole days only', () => {
    expect([parseDays('180'), parseDays(' 7 '), parseDays('1.5'), parseDays('-1'), parseDays('')]).toEqual([180, 7, null, null, null]);
  });

  it.each([
    // Ordinary days, east and west, and zones with odd offsets.
    ['2026-11-25T10:00', 'America/New_York', '2026-11-25T10:00:00-05:00'],
    ['2026-07-01T08:30', 'America/New_York', '2026-07-01T08:30:00-04:00'],
    ['2026-06-10T00:15', 'Asia/Kathmandu', '2026-06-10T00:15:00+05:45'],
    ['2026-01-10T23:59', 'Pacific/Chatham', '2026-01-10T23:59:00+13:45'],
    // The day after a clock change, just after midnight: the offset of the day, not of the day before.
    ['2026-11-02T00:30', 'America/New_York', '2026-11-02T00:30:00-05:00'],
    ['2026-03-09T00:30', 'America/New_York', '2026-03-09T00:30:00-04:00'],
    // Lord Howe Island moves its clock by 30 minutes.
    ['2026-04-05T03:00', 'Australia/Lord_Howe', '2026-04-05T03:00:00+10:30'],
    ['2026-11-28T07:30', 'UTC', '2026-11-28T07:30:00+00:00'],
  ])('P98: zonedInstant() reads the wall time %s of %s as %s', (local, zone, instant) => {
    expect(zonedInstant(local, zone)).toBe(instant);
    // The instant, shown in the zone again, is the wall time typed.
    expect(formatInstant(parseInstant(instant), zone).slice(0, 16)).toBe(local);
  });

  it('P98: zonedInstant() gives a wall time a clock change skips or repeats one of the offsets around it', () => {
    for (const [local, offsets] of [
      ['2026-03-08T02:30', ['-05:00', '-04:00']],
      ['2026-11-01T01:30', ['-04:00', '-05:00']],
    ] as const) {
      const instant = zonedInstant(local, 'America/New_York')!;
      expect(instant.slice(0, 19)).toBe(`${local}:00`);
      expect(offsets).toContain(instant.slice(19));
    }
  });

  it('P98: zonedInstant() reads no other text as a wall time', () => {
    expect([zonedInstant('', 'UTC'), zonedInstant('2026-11-25', 'UTC'), zonedInstant('10:00', 'UTC')]).toEqual([null, null, null]);
  });
});
