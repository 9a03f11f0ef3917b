import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { fingerprintApiKey, generateApiKey } from '../access/api-key.js';
import { createFleetHours, type FleetHours } from './create-fleet-hours.js';
import type { WindowQuery } from './read-queries.js';
import { InvalidParameterError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import { addDays, intlFormatInstant, intlLocalDate, oracleDailySeconds, oracleWindow } from '../testing/oracle.js';
import { rejectionBy } from '../testing/refusal.js';
import type { SegmentInput } from '../types.js';

const HOUR = 3600;
const NY = 'America/New_York';
/** 2026-03-12T15:04:05-04:00. */
const NOW = Date.UTC(2026, 2, 12, 19, 4, 5) / 1000;

async function setup(
  options: { timeZone?: string; segments?: readonly SegmentInput[]; now?: number; store?: FleetHoursStore; plan?: string } = {},
) {
  const store = options.store ?? createMemoryStore();
  const account = await store.createAccount({ name: 'Acme', plan: options.plan ?? 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const device = (await store.createDevice({
    accountId: account.id,
    name: 'Truck 1',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: options.timeZone ?? NY,
  }))!;
  const foreign = (await store.createDevice({
    accountId: other.id,
    name: 'Their truck',
    imei: '350000000000002',
    model: 'FMB920',
    timeZone: NY,
  }))!;
  if (options.segments) await store.importSegments({ deviceId: device.id, segments: options.segments });
  const clock = { now: (options.now ?? NOW) * 1000 };
  const fleetHours = createFleetHours({ store, now: () => clock.now });
  return { store, account, other, device, foreign, clock, fleetHours };
}

/** A local date as `parseWindowQuery` gives it. */
const day = (text: string) => Temporal.PlainDate.from(text);
const DAY = 24 * HOUR;
/** D59: the calendar fields of a day without a calendar: its length, nothing scheduled, every engine second outside. */
const unscheduled = (daySeconds: number, engineSeconds: number) => ({
  daySeconds,
  scheduledSeconds: 0,
  engineInScheduleSeconds: 0,
  engineOutsideScheduleSeconds: engineSeconds,
});

const refusal = (promise: Promise<unknown>): Promise<InvalidParameterError> => rejectionBy(InvalidParameterError, promise);

describe('createFleetHours()', () => {
  describe('hours()', () => {
    it('totals moving and idle seconds over the window, engine = moving + idle', async () => {
      const dayStart = Date.UTC(2026, 2, 10, 4) / 1000; // 2026-03-10T00:00:00-04:00
      const { fleetHours, account, device } = await setup({
        segments: [
          { startedAt: dayStart - HOUR, endedAt: dayStart + HOUR, state: 'moving' }, // half inside
          { startedAt: dayStart + 2 * HOUR, endedAt: dayStart + 3 * HOUR, state: 'idle' },
          { startedAt: dayStart + 24 * HOUR - 60, endedAt: dayStart + 24 * HOUR + 60, state: 'idle' }, // half inside
        ],
      });
      expect(
        await fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2026-03-10'), to: day('2026-03-10') }),
      ).toEqual({
        deviceId: device.id,
        timeZone: NY,
        from: '2026-03-10T00:00:00-04:00',
        to: '2026-03-10T23:59:59-04:00',
        engineSeconds: HOUR + HOUR + 60,
        movingSeconds: HOUR,
        idleSeconds: HOUR + 60,
      });
    });

    it('counts an open segment up to now (D1), and the default window ends now (D5)', async () => {
      const { fleetHours, account, device } = await setup({ segments: [{ startedAt: NOW - 90 * 60, endedAt: null, state: 'moving' }] });
      const total = await fleetHours.hours({ accountId: account.id, deviceId: device.id });
      expect(total).toMatchObject({
        from: '2026-03-05T00:00:00-05:00',
        to: '2026-03-12T15:04:05-04:00',
        movingSeconds: 90 * 60,
        idleSeconds: 0,
        engineSeconds: 90 * 60,
      });
    });

    it('counts an open segment only up to now when to lies in the future', async () => {
      const { fleetHours, account, device, clock } = await setup({ segments: [{ startedAt: NOW - 60, endedAt: null, state: 'idle' }] });
      const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-12'), to: day('2026-03-20') };
      expect((await fleetHours.hours(query))?.idleSeconds).toBe(60);
      clock.now += 30_000;
      expect((await fleetHours.hours(query))?.idleSeconds).toBe(90);
    });

    it('never counts time after now: a closed segment stamped in the future counts only up to now, as in the meter (P1, D3)', async () => {
      const { fleetHours, account, device } = await setup({
        segments: [{ startedAt: NOW - 60, endedAt: NOW + 2 * HOUR, state: 'moving' }],
      });
      const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-12'), to: day('2026-03-13') };
      expect((await fleetHours.hours(query))?.movingSeconds).toBe(60);
      expect((await fleetHours.daily(query))?.days.map((day) => day.movingSeconds)).toEqual([60, 0]);
      expect((await fleetHours.meter(query))?.movingSeconds).toBe(60);
    });

    it('reads the clock in milliseconds and floors it to the second (P3)', async () => {
      const { fleetHours, account, device, clock } = await setup({ segments: [{ startedAt: NOW - 10, endedAt: null, state: 'idle' }] });
      clock.now = NOW * 1000 + 999;
      expect(await fleetHours.hours({ accountId: account.id, deviceId: device.id })).toMatchObject({
        to: '2026-03-12T15:04:05-04:00',
        idleSeconds: 10,
      });
    });

    it('is null for a device of another account and for a device that does not exist (D11)', async () => {
      const { fleetHours, account, foreign } = await setup();
      expect(await fleetHours.hours({ accountId: account.id, deviceId: foreign.id })).toBeNull();
      expect(await fleetHours.hours({ accountId: account.id, deviceId: 999_999 })).toBeNull();
      expect(await fleetHours.daily({ accountId: account.id, deviceId: foreign.id })).toBeNull();
      expect(await fleetHours.meter({ accountId: account.id, deviceId: foreign.id })).toBeNull();
    });

    it('looks the device up before the window: a missing device is null even with a from after today (P11)', async () => {
      const { fleetHours, account, foreign } = await setup();
      expect(await fleetHours.hours({ accountId: account.id, deviceId: foreign.id, from: day('2026-03-13') })).toBeNull();
    });

    it('rejects a from after today in the device zone, or after to, with InvalidParameterError naming from (D7)', async () => {
      const { fleetHours, account, device } = await setup();
      expect((await refusal(fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2026-03-13') }))).parameter).toBe(
        'from',
      );
      expect(
        (await refusal(fleetHours.daily({ accountId: account.id, deviceId: device.id, from: day('2026-03-09'), to: day('2026-03-08') })))
          .parameter,
      ).toBe('from');
    });

    it('clamps a from older than 365 days and reports the window used (D6)', async () => {
      const { fleetHours, account, device } = await setup();
      const total = await fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2020-01-01'), to: day('2026-03-08') });
      expect([total?.from, total?.to]).toEqual(['2025-03-08T00:00:00-05:00', '2026-03-08T23:59:59-04:00']);
    });

    it('takes window limits as an option', async () => {
      const { store, account, device } = await setup();
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000, window: { defaultDays: 1, maxDays: 2 } });
      expect((await fleetHours.hours({ accountId: account.id, deviceId: device.id }))?.from).toBe('2026-03-11T00:00:00-04:00');
      expect((await fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2026-01-01') }))?.from).toBe(
        '2026-03-10T00:00:00-04:00',
      );
    });
  });

  describe('daily() (D8)', () => {
    it('gives one entry per local date, zeros included, over a 23-hour DST day', async () => {
      const dayStart = Date.UTC(2026, 2, 8, 5) / 1000; // 2026-03-08T00:00:00-05:00
      const { fleetHours, account, device } = await setup({
        segments: [
          { startedAt: dayStart - 30 * 60, endedAt: dayStart + 30 * 60, state: 'idle' },
          { startedAt: dayStart + HOUR, endedAt: dayStart + 23 * HOUR + 60, state: 'moving' }, // to 2026-03-09T00:01-04:00
        ],
      });
      const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, from: day('2026-03-07'), to: day('2026-03-10') });
      expect(daily).toEqual({
        deviceId: device.id,
        timeZone: NY,
        from: '2026-03-07T00:00:00-05:00',
        to: '2026-03-10T23:59:59-04:00',
        days: [
          // D59 without a calendar: nothing scheduled, every engine second outside; the run on at midnight ends the day.
          {
            ...{ date: '2026-03-07', engineSeconds: 1800, movingSeconds: 0, idleSeconds: 1800 },
            ...unscheduled(DAY, 1800),
            ...{ firstEngineOn: '2026-03-07T23:30:00-05:00', lastEngineOff: '2026-03-08T00:00:00-05:00' },
          },
          {
            ...{ date: '2026-03-08', engineSeconds: 1800 + 22 * HOUR, movingSeconds: 22 * HOUR, idleSeconds: 1800 },
            ...unscheduled(23 * HOUR, 1800 + 22 * HOUR),
            ...{ firstEngineOn: '2026-03-08T00:00:00-05:00', lastEngineOff: '2026-03-09T00:00:00-04:00' },
          },
          {
            ...{ date: '2026-03-09', engineSeconds: 60, movingSeconds: 60, idleSeconds: 0 },
            ...unscheduled(DAY, 60),
            ...{ firstEngineOn: '2026-03-09T00:00:00-04:00', lastEngineOff: '2026-03-09T00:01:00-04:00' },
          },
          {
            ...{ date: '2026-03-10', engineSeconds: 0, movingSeconds: 0, idleSeconds: 0 },
            ...unscheduled(DAY, 0),
            ...{ firstEngineOn: null, lastEngineOff: null },
          },
        ],
      });
    });

    it('sums to hours() for the same window, second for second', async () => {
      const { fleetHours, account, device } = await setup({
        segments: [
          { startedAt: NOW - 5 * 24 * HOUR - 123, endedAt: NOW - 3 * 24 * HOUR + 7, state: 'moving' },
          { startedAt: NOW - 2 * 24 * HOUR, endedAt: NOW - 2 * 24 * HOUR + 17, state: 'idle' },
          { startedAt: NOW - 999, endedAt: null, state: 'idle' },
        ],
      });
      for (const query of [
        {},
        { from: day('2026-03-01') },
        { from: day('2026-03-06'), to: day('2026-03-09') },
        { to: day('2026-03-12') },
      ]) {
        const total = await fleetHours.hours({ accountId: account.id, deviceId: device.id, ...query });
        const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, ...query });
        expect([daily!.from, daily!.to]).toEqual([total!.from, total!.to]);
        const sum = (field: 'engineSeconds' | 'movingSeconds' | 'idleSeconds') =>
          daily!.days.reduce((seconds, day) => seconds + day[field], 0);
        expect({ engineSeconds: sum('engineSeconds'), movingSeconds: sum('movingSeconds'), idleSeconds: sum('idleSeconds') }).toEqual({
          engineSeconds: total!.engineSeconds,
          movingSeconds: total!.movingSeconds,
          idleSeconds: total!.idleSeconds,
        });
        expect(total!.engineSeconds).toBeGreaterThan(0);
      }
    });

    it('gives Pacific/Apia 2011-12-30 a zero entry between two whole days (P2)', async () => {
      const jump = Date.UTC(2011, 11, 30, 10) / 1000;
      const { fleetHours, account, device } = await setup({
        timeZone: 'Pacific/Apia',
        now: 1_900_000_000,
        segments: [{ startedAt: jump - HOUR, endedAt: jump + HOUR, state: 'moving' }],
      });
      const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, from: day('2011-12-29'), to: day('2011-12-31') });
      expect(daily?.days).toEqual([
        expect.objectContaining({ date: '2011-12-29', engineSeconds: HOUR, movingSeconds: HOUR, idleSeconds: 0, daySeconds: DAY }),
        // D59: the day that does not exist lasts 0 seconds and has no engine time.
        {
          ...{ date: '2011-12-30', engineSeconds: 0, movingSeconds: 0, idleSeconds: 0 },
          ...unscheduled(0, 0),
          ...{ firstEngineOn: null, lastEngineOff: null },
        },
        expect.objectContaining({ date: '2011-12-31', engineSeconds: HOUR, movingSeconds: HOUR, idleSeconds: 0, daySeconds: DAY }),
      ]);
    });

    it('puts a shift ending late in the evening on the day it was worked, not split at UTC midnight', async () => {
      const start = Date.UTC(2026, 2, 10, 22) / 1000; // 18:00 EDT
      const { fleetHours, account, device } = await setup({ segments: [{ startedAt: start, endedAt: start + 5 * HOUR, state: 'moving' }] });
      const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, from: day('2026-03-10'), to: day('2026-03-11') });
      expect(daily?.days.map((day) => day.movingSeconds)).toEqual([5 * HOUR, 0]);
    });
  });

  describe('meter() (D3)', () => {
    it('sums every segment up to now, since the start of the first, as of now (D9 text); without a reading the hour meter is the meter (D38)', async () => {
      const first = Date.UTC(2025, 5, 1, 12) / 1000;
      const { fleetHours, account, device } = await setup({
        segments: [
          { startedAt: first, endedAt: first + HOUR, state: 'idle' },
          { startedAt: first + 10 * HOUR, endedAt: first + 12 * HOUR, state: 'moving' },
          { startedAt: NOW - 300, endedAt: null, state: 'moving' },
        ],
      });
      expect(await fleetHours.meter({ accountId: account.id, deviceId: device.id })).toEqual({
        deviceId: device.id,
        timeZone: NY,
        since: '2025-06-01T08:00:00-04:00',
        asOf: '2026-03-12T15:04:05-04:00',
        engineSeconds: 3 * HOUR + 300,
        movingSeconds: 2 * HOUR + 300,
        idleSeconds: HOUR,
        // No reading: the hour meter is the meter, uncalibrated (D38).
        hourMeterSeconds: 3 * HOUR + 300,
        hourMeterReadAt: null,
      });
    });

    it('is since null and all zeros for a device without segments, hour meter included (D38)', async () => {
      const { fleetHours, account, device } = await setup({ timeZone: 'Asia/Kathmandu' });
      expect(await fleetHours.meter({ accountId: account.id, deviceId: device.id })).toEqual({
        deviceId: device.id,
        timeZone: 'Asia/Kathmandu',
        since: null,
        asOf: '2026-03-13T00:49:05+05:45',
        engineSeconds: 0,
        movingSeconds: 0,
        idleSeconds: 0,
        hourMeterSeconds: 0,
        hourMeterReadAt: null,
      });
    });

    it("uses the store's summarizeDeviceSegments() when it has one", async () => {
      const memory = createMemoryStore();
      const summarizeDeviceSegments = vi.fn(async ({ deviceId, now }: { deviceId: number; now: number }) =>
        summarizeSegments(await memory.listSegments({ deviceId }), now),
      );
      const store: FleetHoursStore = { ...memory, summarizeDeviceSegments };
      const { fleetHours, account, device } = await setup({ store, segments: [{ startedAt: NOW - 60, endedAt: null, state: 'idle' }] });
      expect((await fleetHours.meter({ accountId: account.id, deviceId: device.id }))?.idleSeconds).toBe(60);
      expect(summarizeDeviceSegments).toHaveBeenCalledWith({ deviceId: device.id, now: NOW });
    });
  });

  describe('stores that aggregate', () => {
    it('asks sumSegmentSeconds() for the window instead of listing segments, when the store offers it; the daily series sums the segments its day fields read (P147)', async () => {
      const memory = createMemoryStore();
      const sumSegmentSeconds = vi.fn(
        async ({ deviceId, boundaries, now }: { deviceId: number; boundaries: readonly number[]; now: number }) =>
          sumSegmentsByBucket(await memory.listSegments({ deviceId }), boundaries, now),
      );
      const listSegments = vi.fn(memory.listSegments);
      const store: FleetHoursStore = { ...memory, listSegments, sumSegmentSeconds };
      const { fleetHours, account, device } = await setup({
        store,
        segments: [{ startedAt: NOW - 3 * 24 * HOUR, endedAt: NOW - 3 * 24 * HOUR + 60, state: 'moving' }],
      });
      const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, from: day('2026-03-08'), to: day('2026-03-10') });
      expect(daily?.days.map((day) => day.movingSeconds)).toEqual([0, 60, 0]);
      expect(sumSegmentSeconds).not.toHaveBeenCalled();
      await fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2026-03-08'), to: day('2026-03-10') });
      expect(sumSegmentSeconds).toHaveBeenLastCalledWith({
        deviceId: device.id,
        boundaries: [Date.UTC(2026, 2, 8, 5) / 1000, Date.UTC(2026, 2, 11, 4) / 1000],
        now: NOW,
      });
      expect(listSegments).not.toHaveBeenCalled();
    });

    it('falls back to listSegments() for the window only, when the store cannot aggregate', async () => {
      const memory = createMemoryStore();
      const listSegments = vi.fn(memory.listSegments);
      const { fleetHours, account, device } = await setup({ store: { ...memory, listSegments } });
      await fleetHours.hours({ accountId: account.id, deviceId: device.id, from: day('2026-03-08'), to: day('2026-03-10') });
      expect(listSegments).toHaveBeenCalledWith({
        deviceId: device.id,
        start: Date.UTC(2026, 2, 8, 5) / 1000,
        end: Date.UTC(2026, 2, 11, 4) / 1000,
      });
    });
  });

  describe('authenticate() and listDevices()', () => {
    const withKey = async (options: { plan?: string; expiresAt?: number | null } = {}) => {
      const context = await setup({ plan: options.plan ?? 'business' });
      const key = generateApiKey();
      const record = await context.store.createApiKey({
        accountId: context.account.id,
        fingerprint: await fingerprintApiKey(key),
        label: null,
        expiresAt: options.expiresAt ?? null,
        now: 0,
      });
      return { ...context, key, record: record! };
    };
    const code = async (fleetHours: FleetHours, header: string | undefined) => {
      const result = await fleetHours.authenticate(header);
      return result.ok ? `ok:${result.account.id}` : result.denial.code;
    };

    it('finds the key by its fingerprint and returns the account', async () => {
      const { fleetHours, key, account } = await withKey();
      expect(await code(fleetHours, `Bearer ${key}`)).toBe(`ok:${account.id}`);
    });

    it('denies a missing, unknown, revoked or expired key and a plan without API access (D11)', async () => {
      const valid = await withKey();
      expect(await code(valid.fleetHours, undefined)).toBe('missing_api_key');
      expect(await code(valid.fleetHours, 'Basic abc')).toBe('missing_api_key');
      expect(await code(valid.fleetHours, `Bearer ${generateApiKey()}`)).toBe('unknown_api_key');
      await valid.store.revokeApiKey({ keyId: valid.record.id, now: NOW });
      expect(await code(valid.fleetHours, `Bearer ${valid.key}`)).toBe('revoked_api_key');

      const expiring = await withKey({ expiresAt: NOW + 10 });
      expect(await code(expiring.fleetHours, `Bearer ${expiring.key}`)).toBe(`ok:${expiring.account.id}`);
      expiring.clock.now = (NOW + 10) * 1000;
      expect(await code(expiring.fleetHours, `Bearer ${expiring.key}`)).toBe('expired_api_key');

      const starter = await withKey({ plan: 'starter' });
      expect(await code(starter.fleetHours, `Bearer ${starter.key}`)).toBe('plan_without_api_access');
      const lenient = createFleetHours({ store: starter.store, now: () => NOW * 1000, apiPlans: ['starter'] });
      expect(await code(lenient, `Bearer ${starter.key}`)).toBe(`ok:${starter.account.id}`);
    });

    it('refuses two credentials (P22) and an ingest token (D24) without asking the store', async () => {
      const { fleetHours, key, store } = await withKey();
      const findApiKey = vi.spyOn(store, 'findApiKey');
      expect(await code(fleetHours, `Bearer ${key}, Bearer ${key}`)).toBe('multiple_credentials');
      const token = await fleetHours.authenticate('Bearer fhi_someIngestToken');
      expect(token).toMatchObject({
        ok: false,
        denial: { status: 401, code: 'unknown_api_key', message: expect.stringContaining('send an API key') },
      });
      expect(findApiKey).not.toHaveBeenCalled();
    });

    it("lists only the account's devices, by id (D19)", async () => {
      const { fleetHours, account, device, store } = await setup();
      const second = await store.createDevice({ accountId: account.id, name: 'Truck 2', imei: '3', model: 'm', timeZone: 'UTC' });
      expect((await fleetHours.listDevices({ accountId: account.id })).map((listed) => listed.id)).toEqual([device.id, second!.id]);
    });
  });

  describe('against a minute-by-minute Intl oracle, in random zones, windows and data', () => {
    const ZONES = [
      'America/New_York',
      'America/Sao_Paulo',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Apia',
      'Europe/London',
      'UTC',
      'Pacific/Chatham',
    ];
    // Instants close to each zone's offset changes, so most windows hold one.
    const utc = (year: number, month: number, day: number, hour: number) => Date.UTC(year, month - 1, day, hour) / 1000;
    const ANCHORS: Record<string, number[]> = {
      'America/New_York': [utc(2026, 3, 8, 7), utc(2026, 11, 1, 6)],
      'America/Sao_Paulo': [utc(2018, 11, 4, 3), utc(2019, 2, 17, 2)],
      'Australia/Lord_Howe': [utc(2026, 4, 4, 15), utc(2026, 10, 3, 15)],
      'Asia/Kathmandu': [utc(2026, 1, 1, 0)],
      'Pacific/Apia': [utc(2011, 12, 30, 10), utc(2012, 3, 31, 14), utc(2012, 9, 29, 14)],
      'Europe/London': [utc(2026, 3, 29, 1), utc(2026, 10, 25, 1)],
      UTC: [utc(2026, 1, 1, 0)],
      'Pacific/Chatham': [utc(2026, 4, 4, 14), utc(2026, 9, 26, 14)],
    };

    const caseArbitrary = fc.constantFrom(...ZONES).chain((timeZone) =>
      fc.record({
        timeZone: fc.constant(timeZone),
        now: fc.oneof(
          {
            arbitrary: fc
              .tuple(fc.constantFrom(...ANCHORS[timeZone]!), fc.integer({ min: -86_400, max: 7 * 86_400 }))
              .map(([anchor, offset]) => anchor + offset),
            weight: 6,
          },
          { arbitrary: fc.integer({ min: utc(2010, 1, 1, 0), max: utc(2030, 1, 1, 0) }), weight: 1 },
        ),
        nowMilliseconds: fc.integer({ min: 0, max: 999 }),
        toOffset: fc.option(fc.integer({ min: -4, max: 2 }), { nil: undefined }),
        fromBack: fc.option(fc.integer({ min: -1, max: 8 }), { nil: undefined }),
        pieces: fc.array(fc.tuple(fc.integer({ min: 0, max: 480 }), fc.integer({ min: 1, max: 900 }), fc.boolean()), {
          minLength: 5,
          maxLength: 40,
        }),
        lastOpen: fc.boolean(),
      }),
    );

    it('matches the oracle per day; the days sum to hours() exactly; engine = moving + idle everywhere (D1, D4–D9)', async () => {
      await fc.assert(
        fc.asyncProperty(caseArbitrary, async ({ timeZone, now, nowMilliseconds, toOffset, fromBack, pieces, lastOpen }) => {
          // Whole-minute segments from 12 days before now; the last one may still be running.
          let cursor = Math.floor(now / 60) * 60 - 12 * 86_400;
          const segments = pieces.map(([gapMinutes, lengthMinutes, isMoving], index): SegmentInput => {
            const startedAt = cursor + gapMinutes * 60;
            cursor = startedAt + lengthMinutes * 60;
            return { startedAt, endedAt: lastOpen && index === pieces.length - 1 ? null : cursor, state: isMoving ? 'moving' : 'idle' };
          });
          const today = intlLocalDate(now, timeZone);
          const to = toOffset === undefined ? undefined : addDays(today, toOffset);
          const from = fromBack === undefined ? undefined : addDays(to ?? today, -fromBack);

          const clockNow = now + nowMilliseconds / 1000;
          const { fleetHours, account, device } = await setup({ timeZone, segments, now: clockNow });
          // As the HTTP API asks: the query parsed once, then the service.
          const ask = <T>(read: (query: WindowQuery) => Promise<T>) =>
            Promise.resolve().then(() => read({ accountId: account.id, deviceId: device.id, ...parseWindowQuery({ from, to }) }));
          const expected = oracleWindow({ from, to, now: clockNow, timeZone });
          if (expected.refused) {
            expect((await refusal(ask(fleetHours.hours))).parameter).toBe('from');
            expect((await refusal(ask(fleetHours.daily))).parameter).toBe('from');
            return;
          }
          const total = (await ask(fleetHours.hours))!;
          const daily = (await ask(fleetHours.daily))!;
          const oracleDays = oracleDailySeconds(segments, expected, now, timeZone);

          expect(total.from).toBe(intlFormatInstant(expected.start, timeZone));
          expect(total.to).toBe(intlFormatInstant(expected.reportedTo, timeZone));
          expect([daily.from, daily.to]).toEqual([total.from, total.to]);
          expect(daily.days.map((day) => day.date)).toEqual(expected.dates);
          let moving = 0;
          let idle = 0;
          for (const day of daily.days) {
            const oracle = oracleDays.get(day.date)!;
            expect({ date: day.date, movingSeconds: day.movingSeconds, idleSeconds: day.idleSeconds }).toEqual({
              date: day.date,
              ...oracle,
            });
            expect(day.engineSeconds).toBe(day.movingSeconds + day.idleSeconds);
            moving += day.movingSeconds;
            idle += day.idleSeconds;
          }
          expect({ movingSeconds: total.movingSeconds, idleSeconds: total.idleSeconds }).toEqual({
            movingSeconds: moving,
            idleSeconds: idle,
          });
          expect(total.engineSeconds).toBe(total.movingSeconds + total.idleSeconds);
        }),
        { numRuns: 120 },
      );
    });
  });
});
