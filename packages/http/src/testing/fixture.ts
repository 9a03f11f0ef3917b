/**
 * Test fixture (not part of the package): a memory store seeded with accounts, keys, devices and
 * segments, a hand-driven clock shared by the core and the app, and a captured access log.
 */
import {
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  generateApiKey,
  type FleetHoursStore,
  type RateLimits,
  type RateLimitStore,
  type SegmentInput,
  type SendWebhookEvent,
} from '@fleet-hours/core';
import type { ChangeLog } from '@fleet-hours/core';
import type { Context } from 'hono';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import type { AccessLogEntry } from '../middleware/access-log/index.js';

/** Epoch seconds of a UTC wall time, written out by hand in tests (the oracle for DST cases). */
export const utc = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number =>
  Date.UTC(year, month - 1, day, hour, minute, second) / 1000;

/** The fixture's starting instant: 15 s into a minute, so the first window resets in 45 s. */
export const START_MS = utc(2026, 12, 1, 12, 0, 15) * 1000;

/** Makes every store method reject while `failure` is set: a database outage on demand (D18). */
export function failingStore(store: FleetHoursStore): {
  store: FleetHoursStore;
  fail(make: (() => Error) | null, methods?: readonly string[]): void;
} {
  let failure: (() => Error) | null = null;
  let only: readonly string[] | undefined;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (failure && (!only || only.includes(String(property)))) throw failure();
        return (value as (...callArgs: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: wrapped,
    fail(make, methods) {
      failure = make;
      only = methods;
    },
  };
}

export interface FixtureOptions {
  readonly rateLimits?: Partial<RateLimits>;
  readonly rateLimitStore?: RateLimitStore;
  /** Wraps the seeded store (e.g. to inject failures) before the service is built on it, and the store of each of its units (P102). */
  readonly wrapStore?: (store: FleetHoursStore) => FleetHoursStore;
  readonly clientAddress?: (c: Context) => string;
  /** D43: `createFleetHoursApp`'s `telemetryRetentionDays`. */
  readonly telemetryRetentionDays?: number;
  /** P83: `createFleetHoursApp`'s `sendWebhookEvent`. */
  readonly sendWebhookEvent?: SendWebhookEvent;
  /** D55: where the service writes its changes down (`createFleetHours`' `changeLog`). */
  readonly changeLog?: ChangeLog;
}

/** Seeds the store and builds the app over it. */
export async function createFixture(options: FixtureOptions = {}) {
  const seeded = createMemoryStore();
  const clock = {
    nowMs: START_MS,
    advance(ms: number) {
      this.nowMs += ms;
    },
  };
  const now = () => clock.nowMs;
  const nowSeconds = START_MS / 1000;

  const issueKey = async (accountId: number, extra: { expiresAt?: number; revoke?: boolean; scope?: 'manage' } = {}) => {
    const key = generateApiKey();
    const record = await seeded.createApiKey({
      accountId,
      fingerprint: await fingerprintApiKey(key),
      label: null,
      expiresAt: extra.expiresAt ?? null,
      now: nowSeconds - 86_400,
      ...(extra.scope ? { scope: extra.scope } : {}),
    });
    if (!record) throw new Error('account missing');
    if (extra.revoke) await seeded.revokeApiKey({ keyId: record.id, now: nowSeconds - 3600 });
    return { key, id: record.id };
  };

  const acme = await seeded.createAccount({ name: 'Acme Haulage', plan: 'business', now: 0 });
  const other = await seeded.createAccount({ name: 'Other Fleet', plan: 'business', now: 0 });
  const starter = await seeded.createAccount({ name: 'Small Co', plan: 'starter', now: 0 });

  const keys = {
    acme: await issueKey(acme.id),
    acmeSecond: await issueKey(acme.id),
    other: await issueKey(other.id),
    starter: await issueKey(starter.id),
    revoked: await issueKey(acme.id, { revoke: true }),
    expired: await issueKey(acme.id, { expiresAt: nowSeconds - 60 }),
    starterRevoked: await issueKey(starter.id, { revoke: true }),
    starterExpired: await issueKey(starter.id, { expiresAt: nowSeconds - 60 }),
    // D51: keys that may also change the fleet.
    acmeManage: await issueKey(acme.id, { scope: 'manage' }),
    otherManage: await issueKey(other.id, { scope: 'manage' }),
    starterManage: await issueKey(starter.id, { scope: 'manage' }),
  };

  const newDevice = async (accountId: number, name: string, timeZone: string, registration: string | null = null) => {
    const device = await seeded.createDevice({
      accountId,
      name,
      imei: `35${String(accountId).padStart(4, '0')}${name.length}00000000`,
      model: 'FMB920',
      registration,
      timeZone,
    });
    if (!device) throw new Error('account missing');
    return device;
  };
  const newYork = await newDevice(acme.id, 'Truck NY', 'America/New_York', 'NY-1234');
  const kathmandu = await newDevice(acme.id, 'Truck KTM', 'Asia/Kathmandu');
  const idle = await newDevice(acme.id, 'Spare', 'Europe/Berlin');
  const foreign = await newDevice(other.id, 'Their truck', 'America/New_York');

  const day = (startedAt: number, endedAt: number, idleFirst = 3600): SegmentInput[] => [
    { startedAt, endedAt: startedAt + idleFirst, state: 'idle' },
    { startedAt: startedAt + idleFirst, endedAt, state: 'moving' },
  ];
  // New York: whole local days around both 2026 DST changes, and one evening shift.
  await seeded.importSegments({
    deviceId: newYork.id,
    segments: [
      ...day(utc(2026, 3, 7, 5), utc(2026, 3, 8, 5)), // Sat 7 March: 24 h (EST)
      ...day(utc(2026, 3, 8, 5), utc(2026, 3, 9, 4)), // Sun 8 March: 23 h (EST → EDT)
      ...day(utc(2026, 3, 9, 4), utc(2026, 3, 10, 4)), // Mon 9 March: 24 h (EDT)
      ...day(utc(2026, 10, 31, 4), utc(2026, 11, 1, 4)), // Sat 31 Oct: 24 h (EDT)
      ...day(utc(2026, 11, 1, 4), utc(2026, 11, 2, 5)), // Sun 1 Nov: 25 h (EDT → EST)
      ...day(utc(2026, 11, 2, 5), utc(2026, 11, 3, 5)), // Mon 2 Nov: 24 h (EST)
      // Mon 15 June 20:00–23:30 EDT: after UTC midnight, but worked on the 15th.
      { startedAt: utc(2026, 6, 16, 0), endedAt: utc(2026, 6, 16, 3, 30), state: 'moving' },
      // Within the default window (the 7 days before the fixture's now).
      { startedAt: utc(2026, 11, 28, 14), endedAt: utc(2026, 11, 28, 16), state: 'moving' },
    ],
    reportedAt: utc(2026, 11, 30, 22, 15, 7),
  });
  // Kathmandu (+05:45): local 10 June 00:00–02:00, and 11 June 01:45–03:45, which is still 10 June in UTC.
  await seeded.importSegments({
    deviceId: kathmandu.id,
    segments: [
      { startedAt: utc(2026, 6, 9, 18, 15), endedAt: utc(2026, 6, 9, 20, 15), state: 'moving' },
      { startedAt: utc(2026, 6, 10, 20), endedAt: utc(2026, 6, 10, 21), state: 'idle' },
      { startedAt: utc(2026, 6, 10, 21), endedAt: utc(2026, 6, 10, 22), state: 'moving' },
    ],
  });
  await seeded.importSegments({
    deviceId: foreign.id,
    segments: [{ startedAt: utc(2026, 3, 8, 12), endedAt: utc(2026, 3, 8, 13), state: 'moving' }],
  });

  const store = options.wrapStore ? _wrapWithUnits(seeded, options.wrapStore) : seeded;
  const logs: AccessLogEntry[] = [];
  const fleetHours = createFleetHours({ store, now, ...(options.changeLog ? { changeLog: options.changeLog } : {}) });
  const app = createFleetHoursApp({
    fleetHours,
    now,
    logger: (entry) => logs.push(entry),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.rateLimitStore ? { rateLimitStore: options.rateLimitStore } : {}),
    ...(options.clientAddress ? { clientAddress: options.clientAddress } : {}),
    ...(options.telemetryRetentionDays === undefined ? {} : { telemetryRetentionDays: options.telemetryRetentionDays }),
    ...(options.sendWebhookEvent ? { sendWebhookEvent: options.sendWebhookEvent } : {}),
  });

  /** Sends a request with a key (or none). */
  const request = (path: string, key?: string | null, init: RequestInit = {}) =>
    app.request(path, {
      ...init,
      headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(init.headers as Record<string, string> | undefined) },
    });

  return {
    app,
    store: seeded,
    fleetHours,
    clock,
    now,
    logs,
    keys,
    accounts: { acme, other, starter },
    devices: { newYork, kathmandu, idle, foreign },
    request,
  };
}

export type Fixture = Awaited<ReturnType<typeof createFixture>>;

/**
 * The store wrapped by `wrap`, and so is the store of each of its units (P102): a write of `manage`
 * runs on the store its unit gives, which a wrapper of the outer store alone would not reach.
 */
function _wrapWithUnits(store: FleetHoursStore, wrap: (store: FleetHoursStore) => FleetHoursStore): FleetHoursStore {
  const { atomically } = store;
  const wrapped = wrap(store);
  // Set on the wrapper itself, which may keep the store's methods as its prototype.
  if (atomically && wrapped !== store) wrapped.atomically = (work) => atomically((unit) => work(_wrapWithUnits(unit, wrap)));
  return wrapped;
}
