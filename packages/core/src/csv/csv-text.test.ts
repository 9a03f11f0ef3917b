/**
 * D62, P115: the CSV text of a list — RFC 4180 quoting, the formula guard, the rows of an answer by
 * its list's columns — checked against an independent RFC 4180 reader over random values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CSV_LISTS, csvField, csvFileName, csvHeader, csvList, csvRecord, csvRows, type CsvList } from '../index.js';
import { readCsv } from '../testing/read-csv.js';

describe('csvField and csvRecord (D62, P115)', () => {
  it('D62: prefixes a text beginning with =, +, -, @, a tab or a carriage return with a quote mark', () => {
    for (const text of ['=SUM(A1:A9)', '+1', '-1', '@cmd', '\tx', '\rx']) expect(csvField(text).replace(/^"|"$/g, '')).toBe(`'${text}`);
    for (const text of ['a=1', "'quoted", ' =spaced', 'x-1', '']) expect(csvField(text)).toBe(text);
  });

  it('P115: writes numbers and booleans as JSON does, negative numbers unguarded; null as an empty field; arrays and maps as JSON text', () => {
    expect([csvField(-3600), csvField(0.25), csvField(true), csvField(null), csvField(undefined)]).toEqual([
      '-3600',
      '0.25',
      'true',
      '',
      '',
    ]);
    expect(csvField(['north', '=evil'])).toBe('"[""north"",""=evil""]"');
    expect(csvField({ name: ['A', 'B'] })).toBe('"{""name"":[""A"",""B""]}"');
  });

  it('RFC 4180: quotes a field with a comma, a quote or a line break, doubling quotes; ends records with CRLF', () => {
    expect(csvRecord(['a,b', 'say "hi"', 'two\nlines', 'cr\rhere', 'plain'])).toBe('"a,b","say ""hi""","two\nlines","cr\rhere",plain\r\n');
  });

  it('any record of texts reads back, field for field, as the texts (guarded ones with their quote mark)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 5 }), { maxLength: 5 }), (records) => {
        const text = records.map(csvRecord).join('');
        expect(readCsv(text)).toEqual(records.map((record) => record.map((field) => (/^[=+\-@\t\r]/.test(field) ? `'${field}` : field))));
      }),
      { numRuns: 300 },
    );
  });
});

describe('csvRows (D62)', () => {
  const daily = (deviceId: number, dates: readonly string[]) => ({
    device_id: deviceId,
    timezone: 'Europe/Berlin',
    from: '2026-11-01T00:00:00+01:00',
    to: '2026-11-02T23:59:59+01:00',
    data: dates.map((date, index) => ({
      date,
      engine_seconds: index * 60,
      moving_seconds: index * 60,
      idle_seconds: 0,
      day_seconds: 86_400,
      scheduled_seconds: 0,
      engine_in_schedule_seconds: 0,
      engine_outside_schedule_seconds: index * 60,
      first_engine_on: index === 0 ? null : `${date}T00:00:00+01:00`,
      last_engine_off: index === 0 ? null : `${date}T00:01:00+01:00`,
    })),
  });

  it('D62: one row per device per day of a fleet daily page, device_id and timezone on each, nested fields under data.', () => {
    const page = { data: [daily(1, ['2026-11-01', '2026-11-02']), daily(2, []), daily(3, ['2026-11-01'])], next_cursor: null };
    expect(csvHeader(CSV_LISTS.fleetDaily)).toBe(
      'device_id,timezone,from,to,data.date,data.engine_seconds,data.moving_seconds,data.idle_seconds,data.day_seconds,' +
        'data.scheduled_seconds,data.engine_in_schedule_seconds,data.engine_outside_schedule_seconds,data.first_engine_on,' +
        'data.last_engine_off\r\n',
    );
    expect(readCsv(csvRows(page, CSV_LISTS.fleetDaily))).toEqual([
      [
        '1',
        'Europe/Berlin',
        '2026-11-01T00:00:00+01:00',
        '2026-11-02T23:59:59+01:00',
        '2026-11-01',
        '0',
        '0',
        '0',
        '86400',
        '0',
        '0',
        '0',
        '',
        '',
      ],
      [
        '1',
        'Europe/Berlin',
        '2026-11-01T00:00:00+01:00',
        '2026-11-02T23:59:59+01:00',
        '2026-11-02',
        '60',
        '60',
        '0',
        '86400',
        '0',
        '0',
        '60',
        '2026-11-02T00:00:00+01:00',
        '2026-11-02T00:01:00+01:00',
      ],
      [
        '3',
        'Europe/Berlin',
        '2026-11-01T00:00:00+01:00',
        '2026-11-02T23:59:59+01:00',
        '2026-11-01',
        '0',
        '0',
        '0',
        '86400',
        '0',
        '0',
        '0',
        '',
        '',
      ],
    ]);
    // A device's own series is one entry: one row per day.
    expect(csvRows(daily(1, ['2026-11-01', '2026-11-02']), CSV_LISTS.daily)).toBe(
      csvRows({ data: [daily(1, ['2026-11-01', '2026-11-02'])] }, CSV_LISTS.fleetDaily),
    );
  });

  it('D62: flattens nested objects with a dot and writes a free-form map as JSON text', () => {
    const entry = {
      id: 9,
      at: '2026-11-01T10:00:00+00:00',
      actor: { kind: 'api_key', label: '-ops', fingerprint_prefix: 'ab12cd34' },
      request_id: null,
      action: 'device.update',
      resource: { type: 'device', id: '7' },
      changes: { name: ['Old, one', '=New'] },
    };
    expect(readCsv(csvRows({ data: [entry], next_cursor: 'x' }, CSV_LISTS.listAudit))).toEqual([
      [
        '9',
        '2026-11-01T10:00:00+00:00',
        'api_key',
        "'-ops",
        'ab12cd34',
        '',
        'device.update',
        'device',
        '7',
        '{"name":["Old, one","=New"]}',
      ],
    ]);
  });

  it('writes a missing field as an empty one and nothing for an answer without entries', () => {
    const list: CsvList = { answer: 'list', file: 'x', columns: ['a', 'b.c'] };
    expect(csvRows({ data: [{ a: 1 }, { b: { c: 'x' } }] }, list)).toBe('1,\r\n,x\r\n');
    expect(csvRows({ data: [] }, list)).toBe('');
    expect(csvRows(null, list)).toBe('');
  });

  it('P117: names the file by the list, the id of its path and the date', () => {
    expect(csvFileName(CSV_LISTS.fleetDaily, '2026-11-01')).toBe('fleet-hours-daily-2026-11-01.csv');
    expect(csvFileName(CSV_LISTS.service, '2026-11-01', '7"; x')).toBe('fleet-hours-device-7x-service-2026-11-01.csv');
    expect([csvList('fleetDaily'), csvList('hours'), csvList('toString')]).toEqual([CSV_LISTS.fleetDaily, undefined, undefined]);
  });
});
