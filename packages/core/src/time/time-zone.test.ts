import { describe, expect, it } from 'vitest';
import { normalizeTimeZone } from './time-zone.js';

describe('normalizeTimeZone()', () => {
  it('returns an IANA name as given when it is already canonical', () => {
    for (const zone of [
      'America/New_York',
      'America/Sao_Paulo',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Apia',
      'Pacific/Chatham',
      'UTC',
    ]) {
      expect(normalizeTimeZone(zone)).toBe(zone);
    }
  });

  it('canonicalises the case of a name', () => {
    expect(normalizeTimeZone('america/new_york')).toBe('America/New_York');
    expect(normalizeTimeZone('ASIA/KATHMANDU')).toBe('Asia/Kathmandu');
    expect(normalizeTimeZone('utc')).toBe('UTC');
  });

  it('keeps a link name as given rather than resolving it', () => {
    expect(normalizeTimeZone('US/Eastern')).toBe('US/Eastern');
    expect(normalizeTimeZone('asia/calcutta')).toBe('Asia/Calcutta');
  });

  it('refuses a fixed offset such as "+05:00": a vehicle has a zone with rules', () => {
    for (const zone of ['+05:00', '-03:30', '+0545', 'Z']) {
      expect(() => normalizeTimeZone(zone)).toThrow(RangeError);
      expect(() => normalizeTimeZone(zone)).toThrow(`Unknown time zone "${zone}": use an IANA name such as "Europe/Berlin"`);
    }
  });

  it('refuses an unknown name such as "Mars/Base", and empty or padded text', () => {
    for (const zone of ['Mars/Base', '', ' UTC', 'UTC ', 'America/New York', '2026-01-01T00:00Z']) {
      expect(() => normalizeTimeZone(zone)).toThrow(RangeError);
    }
    expect(() => normalizeTimeZone('Mars/Base')).toThrow('Unknown time zone "Mars/Base"');
  });

  it('refuses a value that is not a string with a RangeError, not a crash', () => {
    expect(() => normalizeTimeZone(undefined as unknown as string)).toThrow(RangeError);
    expect(() => normalizeTimeZone(5 as unknown as string)).toThrow('Unknown time zone "5"');
  });
});
