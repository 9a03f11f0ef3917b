import { Temporal } from 'temporal-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { fingerprintApiKey, generateApiKey, generateIngestToken } from '../access/api-key.js';
import { createFleetHours } from './create-fleet-hours.js';
import { InvalidParameterError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import { createMemoryRateLimitStore, type CredentialCounter, type RateLimitStore } from '../access/rate-limit.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { SegmentInput } from '../types.js';

const HOUR = 3600;
/** 2026-03-12T19:04:05Z. */
const NOW = Date.UTC(2026, 2, 12, 19, 4, 5) / 1000;
const day = (text: string) => Temporal.PlainDate.from(text);

/**
 * The memory store with the two device-with-figures capabilities as their contract states them
 * (the memory store has neither: many tests wrap its `findDevice`).
 */
function withJoinedReads(memory: FleetHoursStore): FleetHoursStore {
  return {
    ...memory,
    async findDeviceWithSums({ accountId, deviceId, timeZone, boundaries, now }) {
      const device = await memory.findDevice({ accountId, deviceId });
      if (!device) return null;
      if (device.timeZone !== timeZone) return { device, buckets: null };
      return { device, buckets: sumSegmentsByBucket(await memory.listSegments({ deviceId }), boundaries, now) };
    },
    async findDeviceWithSummary({ accountId, deviceId, now }) {
      const device = await memory.findDevice({ accountId, deviceId });
      return device && { device, summary: summarizeSegments(await memory.listSegments({ deviceId }), now) };
    },
  };
}

/** A store with the joined reads whose calls are counted, and a service without them for reference. */
async function setup(timeZone = 'America/New_York', segments: readonly SegmentInput[] = []) {
  const memory = createMemoryStore();
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(withJoinedReads(memory)).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name);
        return (method as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as FleetHoursStore;
  const account = await memory.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await memory.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const device = (await memory.createDevice({ accountId: account.id, name: 'Truck 1', imei: '1', model: 'FMB920', timeZone }))!;
  await memory.importSegments({ deviceId: device.id, segments });
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const reference = createFleetHours({ store: memory, now: () => NOW * 1000 });
  return { memory, store, calls, account, other, device, fleetHours, reference };
}

const SEGMENTS: readonly SegmentInput[] = [
  { startedAt: NOW - 50 * HOUR, endedAt: NOW - 47 * HOUR, state: 'moving' },
  { startedAt: NOW - 30 * HOUR, endedAt: NOW - 29 * HOUR, state: 'idle' },
  { startedAt: NOW - 2 * HOUR, endedAt: null, state: 'moving' },
];

describe('createFleetHours(): one store call for the device and its figures (issue 11)', () => {
  it('asks findDevice() and the figures the first time, then the device with its figures in one call, with the same answers', async () => {
    const { calls, account, device, fleetHours, reference } = await setup('America/New_York', SEGMENTS);
    const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-08'), to: day('2026-03-12') };
    const expected = await reference.daily(query);
    expect(await fleetHours.daily(query)).toEqual(expected);
    // D59 (P147): the daily series is the device with its window's segments and calendar, one call once the zone is known.
    expect(calls).toEqual(['findDevice', 'findDeviceWithDays']);
    calls.length = 0;
    expect(await fleetHours.daily(query)).toEqual(expected);
    expect(await fleetHours.hours(query)).toEqual(await reference.hours(query));
    expect(calls).toEqual(['findDeviceWithDays', 'findDeviceWithSums']);
  });

  it('answers in the new zone when the device\u2019s zone changed between two requests', async () => {
    const { memory, calls, account, device, fleetHours, reference } = await setup('America/New_York', SEGMENTS);
    const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-07'), to: day('2026-03-12') };
    await fleetHours.daily(query);
    await memory.updateDevice({ deviceId: device.id, changes: { timeZone: 'Asia/Kathmandu' } });
    calls.length = 0;
    const daily = await fleetHours.daily(query);
    expect(daily).toEqual(await reference.daily(query));
    expect(daily?.timeZone).toBe('Asia/Kathmandu');
    expect(daily?.from).toBe('2026-03-07T00:00:00+05:45');
    // The guess was refused (the device alone), then its days in the right zone.
    expect(calls).toEqual(['findDeviceWithDays', 'findDeviceWithDays']);
    calls.length = 0;
    expect(await fleetHours.hours(query)).toEqual(await reference.hours(query));
    expect(calls).toEqual(['findDeviceWithSums']);
  });

  it('a device gone or of another account is still null (404), and a window refused in the remembered zone is decided after the device is read (D11, D7)', async () => {
    const { memory, account, other, device, fleetHours } = await setup('Pacific/Kiritimati', SEGMENTS);
    await fleetHours.hours({ accountId: account.id, deviceId: device.id });
    expect(await fleetHours.hours({ accountId: other.id, deviceId: device.id })).toBeNull();
    // Tomorrow in Kiritimati (UTC+14) is 2026-03-14: 2026-03-13 is today there, and after today in UTC.
    const from = day('2026-03-13');
    expect((await fleetHours.hours({ accountId: account.id, deviceId: device.id, from }))?.timeZone).toBe('Pacific/Kiritimati');
    await memory.updateDevice({ deviceId: device.id, changes: { timeZone: 'UTC' } });
    await expect(fleetHours.hours({ accountId: account.id, deviceId: device.id, from })).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(fleetHours.hours({ accountId: other.id, deviceId: device.id, from: day('2026-03-20') })).resolves.toBeNull();
    // The same for the daily series read in one call (P147).
    await expect(fleetHours.daily({ accountId: account.id, deviceId: device.id, from })).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(fleetHours.daily({ accountId: other.id, deviceId: device.id, from: day('2026-03-20') })).resolves.toBeNull();
  });

  it('P147: a store without findDeviceWithDays answers the same daily series, from the device, its segments and its calendar', async () => {
    const { memory, account, device, reference } = await setup('Europe/Berlin', SEGMENTS);
    await memory.putWorkCalendar({
      accountId: account.id,
      deviceId: null,
      calendar: {
        weekly: { mon: [], tue: [['18:00', '20:00']], wed: [['08:00', '20:00']], thu: [['00:00', '19:00']], fri: [], sat: [], sun: [] },
        exceptions: [],
      },
    });
    const without = createFleetHours({ store: { ...memory, findDeviceWithDays: undefined }, now: () => NOW * 1000 });
    const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-09'), to: day('2026-03-12') };
    const daily = await reference.daily(query);
    expect(await without.daily(query)).toEqual(daily);
    expect(daily?.days.some((one) => one.engineInScheduleSeconds > 0 && one.engineOutsideScheduleSeconds > 0)).toBe(true);
  });

  it('meter() reads the device and its figures in one call, its hour-meter readings beside it (D38)', async () => {
    const { calls, account, device, fleetHours, reference } = await setup('Europe/Berlin', SEGMENTS);
    expect(await fleetHours.meter({ accountId: account.id, deviceId: device.id })).toEqual(
      await reference.meter({ accountId: account.id, deviceId: device.id }),
    );
    // Both asked at once: one round trip. Without a reading the hour meter is the meter, no sum is asked.
    expect(calls).toEqual(['findDeviceWithSummary', 'listHourMeterReadings']);
    expect(await fleetHours.meter({ accountId: account.id + 1, deviceId: device.id })).toBeNull();
  });

  it('meter() of a device with a reading asks one sum more: the engine seconds since the reading (D38)', async () => {
    const { memory, calls, account, device, fleetHours, reference } = await setup('Europe/Berlin', SEGMENTS);
    await memory.addHourMeterReading({ deviceId: device.id, readAt: NOW - 40 * HOUR, readingSeconds: 1000 * HOUR, now: NOW });
    const meter = await fleetHours.meter({ accountId: account.id, deviceId: device.id });
    expect(meter).toEqual(await reference.meter({ accountId: account.id, deviceId: device.id }));
    // Since the reading: the idle hour 30 h ago and the open segment's 2 h.
    expect(meter?.hourMeterSeconds).toBe(1003 * HOUR);
    expect(calls).toEqual(['findDeviceWithSummary', 'listHourMeterReadings', 'sumSegmentSecondsMany']);
  });

  it('learns the zones from a devices list, so that the first read is one call', async () => {
    const { calls, account, device, fleetHours, reference } = await setup('Australia/Lord_Howe', SEGMENTS);
    await fleetHours.listDevices({ accountId: account.id });
    calls.length = 0;
    const query = { accountId: account.id, deviceId: device.id, from: day('2026-03-01') };
    expect(await fleetHours.daily(query)).toEqual(await reference.daily(query));
    expect(calls).toEqual(['findDeviceWithDays']);
  });

  it('remembers at most zoneCacheSize zones: 0 remembers none', async () => {
    const { store, calls, account, device } = await setup('UTC', SEGMENTS);
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000, zoneCacheSize: 0 });
    await fleetHours.hours({ accountId: account.id, deviceId: device.id });
    await fleetHours.hours({ accountId: account.id, deviceId: device.id });
    expect(calls).toEqual(['findDevice', 'listSegments', 'findDevice', 'listSegments']);
  });
});

describe('createFleetHours().authenticateAndCount()', () => {
  const counter: CredentialCounter = { keyPrefix: 'key:', keySuffix: ':/x', windowStart: 0, windowSeconds: 60, limit: 5 };

  it('asks the counters for the key and its count when they can, and evaluates the key as authenticate() does', async () => {
    const { memory, account } = await setup();
    const secret = generateApiKey();
    const apiKey = (await memory.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(secret),
      label: null,
      expiresAt: null,
      now: 0,
    }))!;
    const findApiKeyAndConsume = vi.fn(async ({ fingerprint }: { fingerprint: string }) => ({
      lookup: await memory.findApiKey({ fingerprint }),
      count: { count: 1, allowed: true },
    }));
    const counters: RateLimitStore = { ...createMemoryRateLimitStore(), findApiKeyAndConsume };
    const fleetHours = createFleetHours({ store: memory, now: () => NOW * 1000 });
    const counted = await fleetHours.authenticateAndCount({ authorization: `Bearer ${secret}`, credential: 'api_key', counters, counter });
    expect(counted).toEqual({ access: await fleetHours.authenticate(`Bearer ${secret}`), count: { count: 1, allowed: true } });
    expect(counted.access.credential?.id).toBe(apiKey.id);
    expect(findApiKeyAndConsume).toHaveBeenCalledWith({ fingerprint: await fingerprintApiKey(secret), counter });
    // Nothing presented: nothing asked, nothing counted.
    expect(await fleetHours.authenticateAndCount({ authorization: undefined, credential: 'api_key', counters, counter })).toEqual({
      access: await fleetHours.authenticate(undefined),
      count: null,
    });
    expect(findApiKeyAndConsume).toHaveBeenCalledTimes(1);
  });

  it('asks the counters for an ingest token and its count when they can (D24), and evaluates it as authenticate() does', async () => {
    const { memory, account } = await setup();
    const secret = generateIngestToken();
    const token = (await memory.createIngestToken({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(secret),
      label: null,
      expiresAt: null,
      now: 0,
    }))!;
    const findIngestTokenAndConsume = vi.fn(async ({ fingerprint }: { fingerprint: string }) => ({
      lookup: await memory.findIngestToken({ fingerprint }),
      count: { count: 2, allowed: true },
    }));
    const findApiKeyAndConsume = vi.fn();
    const counters: RateLimitStore = { ...createMemoryRateLimitStore(), findApiKeyAndConsume, findIngestTokenAndConsume };
    const fleetHours = createFleetHours({ store: memory, now: () => NOW * 1000 });
    const tokenCounter = { ...counter, keyPrefix: 'token:', keySuffix: ':/ingest' };
    const counted = await fleetHours.authenticateAndCount({
      authorization: `Bearer ${secret}`,
      credential: 'ingest_token',
      counters,
      counter: tokenCounter,
    });
    expect(counted).toEqual({
      access: await fleetHours.authenticate(`Bearer ${secret}`, 'ingest_token'),
      count: { count: 2, allowed: true },
    });
    expect(counted.access.credential?.id).toBe(token.id);
    expect(findIngestTokenAndConsume).toHaveBeenCalledWith({ fingerprint: await fingerprintApiKey(secret), counter: tokenCounter });
    // An API key on an ingestion route is refused by its prefix: nothing asked, nothing counted.
    expect(
      (
        await fleetHours.authenticateAndCount({
          authorization: `Bearer ${generateApiKey()}`,
          credential: 'ingest_token',
          counters,
          counter: tokenCounter,
        })
      ).count,
    ).toBeNull();
    expect(findIngestTokenAndConsume).toHaveBeenCalledTimes(1);
    expect(findApiKeyAndConsume).not.toHaveBeenCalled();
  });

  it('counts nothing with counters that cannot, and never asks one kind\u2019s capability for the other kind', async () => {
    const { memory } = await setup();
    const fleetHours = createFleetHours({ store: memory, now: () => NOW * 1000 });
    const plain = createMemoryRateLimitStore();
    expect(
      (await fleetHours.authenticateAndCount({ authorization: 'Bearer fh_unknown', credential: 'api_key', counters: plain, counter }))
        .count,
    ).toBeNull();
    expect(
      (await fleetHours.authenticateAndCount({ authorization: 'Bearer fhi_unknown', credential: 'ingest_token', counters: plain, counter }))
        .count,
    ).toBeNull();
    const findApiKeyAndConsume = vi.fn();
    const findIngestTokenAndConsume = vi.fn();
    expect(
      (
        await fleetHours.authenticateAndCount({
          authorization: 'Bearer fhi_unknown',
          credential: 'ingest_token',
          counters: { ...plain, findApiKeyAndConsume },
          counter,
        })
      ).count,
    ).toBeNull();
    expect(
      (
        await fleetHours.authenticateAndCount({
          authorization: 'Bearer fh_unknown',
          credential: 'api_key',
          counters: { ...plain, findIngestTokenAndConsume },
          counter,
        })
      ).count,
    ).toBeNull();
    expect(findApiKeyAndConsume).not.toHaveBeenCalled();
    expect(findIngestTokenAndConsume).not.toHaveBeenCalled();
  });

  it('fingerprints a presented credential with the fingerprint option when given', async () => {
    const { memory, account } = await setup();
    const secret = generateApiKey();
    await memory.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(secret),
      label: null,
      expiresAt: null,
      now: 0,
    });
    const fingerprint = vi.fn((text: string) => fingerprintApiKey(text));
    const fleetHours = createFleetHours({ store: memory, now: () => NOW * 1000, fingerprint });
    expect((await fleetHours.authenticate(`Bearer ${secret}`)).ok).toBe(true);
    expect(fingerprint).toHaveBeenCalledWith(secret);
    // A fingerprint that differs from fingerprintApiKey finds no stored key.
    const wrong = createFleetHours({ store: memory, now: () => NOW * 1000, fingerprint: () => '0'.repeat(64) });
    expect((await wrong.authenticate(`Bearer ${secret}`)).ok).toBe(false);
  });
});
