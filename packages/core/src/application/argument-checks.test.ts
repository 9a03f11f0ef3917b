import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { createFleetHours, type FleetHours } from './create-fleet-hours.js';
import { createMemoryRateLimitStore } from '../access/rate-limit.js';
import { createMemoryStore } from '../store/memory-store.js';
import { parseWindowQuery } from '../window/parse-window-query.js';

const fleetHours = createFleetHours({ store: createMemoryStore(), now: () => Date.UTC(2026, 11, 1) });
const date = Temporal.PlainDate.from('2026-11-01');

/** Calls a public function with arguments its types forbid, as a JavaScript caller can. */
const call = (read: (input: never) => Promise<unknown>, input: unknown) => read(input as never);

describe('createFleetHours(): the public functions check their arguments at run time', () => {
  it('hours() names the parameter and points to parseWindowQuery when a date is given as text', async () => {
    await expect(call(fleetHours.hours, { accountId: 1, deviceId: 7, from: '2026-11-01' })).rejects.toBeInstanceOf(TypeError);
    await expect(call(fleetHours.hours, { accountId: 1, deviceId: 7, from: '2026-11-01' })).rejects.toThrow(
      new TypeError('hours(): from must be a Temporal.PlainDate (use parseWindowQuery({ from: "2026-11-01" })), got "2026-11-01"'),
    );
    await expect(call(fleetHours.hours, { accountId: 1, deviceId: 7, to: new Date(Date.UTC(2026, 10, 1)) })).rejects.toThrow(
      new TypeError(
        'hours(): to must be a Temporal.PlainDate (use parseWindowQuery({ to: "2026-11-01" })), got a Date "2026-11-01T00:00:00.000Z"',
      ),
    );
    await expect(
      call(fleetHours.hours, { accountId: 1, deviceId: 7, from: Temporal.PlainDateTime.from('2026-11-01T00:00') }),
    ).rejects.toThrow(
      'hours(): from must be a Temporal.PlainDate (use parseWindowQuery({ from: "2026-11-01" })), got a Temporal.PlainDateTime "2026-11-01T00:00:00"',
    );
  });

  it('hours() and daily() take ids as positive integers, and one object', async () => {
    for (const read of [fleetHours.hours, fleetHours.daily]) {
      const name = read === fleetHours.hours ? 'hours()' : 'daily()';
      await expect(call(read, { accountId: 1, deviceId: '7' })).rejects.toThrow(
        new TypeError(`${name}: deviceId must be a positive integer, got "7"`),
      );
      await expect(call(read, { accountId: 0, deviceId: 7 })).rejects.toThrow(
        new TypeError(`${name}: accountId must be a positive integer, got number "0"`),
      );
      await expect(call(read, { deviceId: 7 })).rejects.toThrow(
        new TypeError(`${name}: accountId must be a positive integer, got undefined`),
      );
      await expect(call(read, { accountId: 1, deviceId: 1.5 })).rejects.toThrow(
        `${name}: deviceId must be a positive integer, got number "1.5"`,
      );
      await expect(call(read, 7)).rejects.toThrow(
        new TypeError(`${name}: pass one object { accountId, deviceId, from, to }, got number "7"`),
      );
      await expect(call(read, { accountId: 1, deviceId: 7, from: 20261101 })).rejects.toThrow(
        `${name}: from must be a Temporal.PlainDate (use parseWindowQuery({ from: "2026-11-01" })), got number "20261101"`,
      );
    }
  });

  it('events.check() and events.checkRequested() take whole epoch seconds and ids, not milliseconds or text (D40)', async () => {
    const seconds = 'whole epoch seconds of the years 0001 to 9999 (not milliseconds: Math.floor(Date.now() / 1000))';
    await expect(call(fleetHours.events.check, { now: Date.UTC(2026, 11, 1) })).rejects.toThrow(
      new TypeError(`events.check(): now must be ${seconds}, got number "1796083200000"`),
    );
    await expect(call(fleetHours.events.check, { now: 1_796_083_200.5 })).rejects.toThrow(
      new TypeError(`events.check(): now must be ${seconds}, got number "1796083200.5"`),
    );
    await expect(call(fleetHours.events.check, { accountId: '1', deviceIds: [7] })).rejects.toThrow(
      new TypeError('events.check(): accountId must be a positive integer, got "1"'),
    );
    await expect(call(fleetHours.events.check, { accountId: 1, deviceIds: 7 })).rejects.toThrow(
      new TypeError('events.check(): deviceIds must be an array of positive integers, got number "7"'),
    );
    await expect(call(fleetHours.events.checkRequested, { now: '1767225600' })).rejects.toThrow(
      new TypeError(`events.checkRequested(): now must be ${seconds}, got "1767225600"`),
    );
    await expect(fleetHours.events.check()).resolves.toBe(0);
  });

  it('meter() and listDevices() take ids as positive integers', async () => {
    await expect(call(fleetHours.meter, { accountId: 1, deviceId: null })).rejects.toThrow(
      new TypeError('meter(): deviceId must be a positive integer, got null'),
    );
    await expect(call(fleetHours.meter, undefined)).rejects.toThrow(
      new TypeError('meter(): pass one object { accountId, deviceId }, got undefined'),
    );
    await expect(call(fleetHours.listDevices, { accountId: '1' })).rejects.toThrow(
      new TypeError('listDevices(): accountId must be a positive integer, got "1"'),
    );
    await expect(call(fleetHours.listDevices, 1)).rejects.toThrow(
      new TypeError('listDevices(): pass one object { accountId, tag }, got number "1"'),
    );
    // D61: a tag is a string, as parseTagParameter gives it.
    await expect(call(fleetHours.listDevices, { accountId: 1, tag: ['north'] })).rejects.toThrow(
      /listDevices\(\): tag must be a tag, a string/,
    );
    await expect(call(fleetHours.fleet.meter, { accountId: 1, tag: 7 })).rejects.toThrow(/fleet\.meter\(\): tag must be a tag, a string/);
  });

  it('the fleet reads check the account, the page and the dates', async () => {
    const reads: [string, (input: never) => Promise<unknown>][] = [
      ['fleet.hours()', fleetHours.fleet.hours],
      ['fleet.daily()', fleetHours.fleet.daily],
      ['fleet.meter()', fleetHours.fleet.meter],
    ];
    for (const [name, read] of reads) {
      await expect(call(read, { accountId: -1 })).rejects.toThrow(
        new TypeError(`${name}: accountId must be a positive integer, got number "-1"`),
      );
      await expect(call(read, { accountId: 1, limit: '50' })).rejects.toThrow(
        new TypeError(`${name}: limit must be a number of devices per page (use parsePageQuery({ limit: "50" })), got "50"`),
      );
      await expect(call(read, { accountId: 1, cursor: 42 })).rejects.toThrow(
        new TypeError(`${name}: cursor must be the nextCursor of a previous page, a string, got number "42"`),
      );
    }
    await expect(call(fleetHours.fleet.hours, { accountId: 1, from: '2026-11-01' })).rejects.toThrow(
      new TypeError('fleet.hours(): from must be a Temporal.PlainDate (use parseWindowQuery({ from: "2026-11-01" })), got "2026-11-01"'),
    );
    await expect(call(fleetHours.fleet.daily, { accountId: 1, to: { year: 2026, month: 11, day: 1 } })).rejects.toThrow(
      new TypeError('fleet.daily(): to must be a Temporal.PlainDate (use parseWindowQuery({ to: "2026-11-01" })), got an object'),
    );
  });

  it('service() takes ids, and fleet.service() the page and an array of statuses (D39)', async () => {
    await expect(call(fleetHours.service, { accountId: 1, deviceId: '7' })).rejects.toThrow(
      new TypeError('service(): deviceId must be a positive integer, got "7"'),
    );
    await expect(call(fleetHours.fleet.service, { accountId: 1, cursor: 42 })).rejects.toThrow(
      new TypeError('fleet.service(): cursor must be the nextCursor of a previous page, a string, got number "42"'),
    );
    for (const statuses of ['overdue', ['late'], [null]]) {
      await expect(call(fleetHours.fleet.service, { accountId: 1, statuses })).rejects.toThrow(
        /^fleet\.service\(\): statuses must be an array of statuses \(ok, due_soon, overdue; use parseServiceStatuses\("due_soon,overdue"\)\), got /,
      );
    }
  });

  it('authenticate() and authenticateAndCount() check the header value and the credential kind', async () => {
    const authenticate = fleetHours.authenticate as (authorization: unknown, credential?: unknown) => Promise<unknown>;
    await expect(authenticate({ Authorization: 'Bearer fh_x' })).rejects.toThrow(
      new TypeError(
        'authenticate(): authorization must be the Authorization header value, a string such as "Bearer fh_…" (or null or undefined when absent), got an object',
      ),
    );
    await expect(authenticate('Bearer fh_x', 'apiKey')).rejects.toThrow(
      new TypeError('authenticate(): credential must be "api_key" or "ingest_token", got "apiKey"'),
    );
    const counter = { keyPrefix: 'k', keySuffix: '', windowStart: 0, windowSeconds: 60, limit: 10 };
    await expect(call(fleetHours.authenticateAndCount, { authorization: 'Bearer fh_x', credential: 'api_key', counter })).rejects.toThrow(
      new TypeError('authenticateAndCount(): counters must be an object, got undefined'),
    );
  });

  it('createFleetHours() needs a store and a clock', () => {
    expect(() => createFleetHours(undefined as never)).toThrow(
      new TypeError('createFleetHours(): pass one object { store, now }, got undefined'),
    );
    expect(() => createFleetHours({ store: createMemoryStore(), now: Date.now() } as never)).toThrow(
      /^createFleetHours\(\): now must be a function returning epoch milliseconds \(pass Date\.now\), got number "\d+"$/,
    );
  });

  it('accepts what parseWindowQuery and parsePageQuery give, and absent optional fields', async () => {
    const service: FleetHours = fleetHours;
    expect(await service.hours({ accountId: 1, deviceId: 7, ...parseWindowQuery({ from: '2026-11-01', to: '2026-11-02' }) })).toBeNull();
    expect(await service.daily({ accountId: 1, deviceId: 7, from: date, to: undefined })).toBeNull();
    expect(await service.meter({ accountId: 1, deviceId: 7 })).toBeNull();
    expect(await service.fleet.hours({ accountId: 1, limit: undefined, cursor: undefined, from: undefined })).toEqual({
      items: [],
      nextCursor: null,
    });
    expect((await service.authenticate(undefined)).ok).toBe(false);
    const counted = await service.authenticateAndCount({
      authorization: null,
      credential: 'ingest_token',
      counters: createMemoryRateLimitStore(),
      counter: { keyPrefix: 'k', keySuffix: '', windowStart: 0, windowSeconds: 60, limit: 10 },
    });
    expect(counted.access.ok).toBe(false);
  });
});
