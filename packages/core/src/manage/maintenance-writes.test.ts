import { describe, expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { InvalidFieldError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import type { ChangeOrigin, ChangeReport } from './change-log.js';
import { readScheduleFields, readServiceDoneFields } from './maintenance-fields.js';

const HOUR = 3600;
const NOW = 1_795_000_000; // 2026-11-18T…Z
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const KEY: ChangeOrigin = { actor: { kind: 'api_key', label: 'ops', fingerprintPrefix: '0123abcd' }, requestId: 'req-1' };

async function setUp() {
  const store = createMemoryStore();
  const changes: ChangeReport[] = [];
  const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
  const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000, changeLog: { record: async (change) => void changes.push(change) } });
  return { store, changes, manage: fleetHours.manage, accountId: account.id, deviceId: device.id };
}

/** The refusal of a promise or a call: its class and field. */
async function refusal(write: () => unknown): Promise<string> {
  try {
    await write();
  } catch (error) {
    return error instanceof InvalidFieldError ? `invalid_field ${error.field}` : String((error as { code?: string }).code);
  }
  return 'none';
}

describe('maintenance writes report their changes (D55, P76)', () => {
  it('every write names its origin, its action, the resource and the fields before and after in their API shape', async () => {
    const { changes, manage, accountId, deviceId } = await setUp();
    const reading = await manage.addHourMeterReading({
      accountId,
      deviceId,
      fields: { read_at: '2026-11-01T00:00:00Z', reading_seconds: 5 * HOUR },
      origin: CLI,
    });
    const created = await manage.createServiceSchedule({
      accountId,
      deviceId,
      fields: { name: 'Oil', interval_seconds: 100 * HOUR },
      origin: KEY,
    });
    const scheduleId = created!.schedule.id;
    await manage.updateServiceSchedule({ accountId, deviceId, scheduleId, fields: { interval_days: 90 }, origin: KEY });
    await manage.recordServiceDone({
      accountId,
      deviceId,
      scheduleId,
      fields: { done_at: '2026-11-10T00:00:00Z', hour_meter_seconds: 9 * HOUR },
      origin: CLI,
    });
    await manage.removeServiceSchedule({ accountId, deviceId, scheduleId, origin: CLI });
    await manage.removeHourMeterReading({ accountId, deviceId, readingId: reading!.reading.id, origin: KEY });

    expect(changes.map((change) => [change.action, change.resource.type, change.origin.actor.kind])).toEqual([
      ['hour_meter_reading.create', 'hour_meter_reading', 'cli'],
      ['service_schedule.create', 'service_schedule', 'api_key'],
      ['service_schedule.update', 'service_schedule', 'api_key'],
      ['hour_meter_reading.create', 'hour_meter_reading', 'cli'],
      ['service_schedule.done', 'service_schedule', 'cli'],
      ['service_schedule.delete', 'service_schedule', 'cli'],
      ['hour_meter_reading.delete', 'hour_meter_reading', 'api_key'],
    ]);
    expect(changes.every((change) => change.accountId === accountId)).toBe(true);
    expect(changes[1]).toMatchObject({
      origin: KEY,
      resource: { id: String(scheduleId) },
      before: null,
      after: { name: 'Oil', interval_days: null },
    });
    expect(changes[2]).toMatchObject({ before: { interval_days: null }, after: { interval_days: 90, due_soon_days: 9 } });
    expect(changes[4]).toMatchObject({ after: { last_done_at: '2026-11-10T00:00:00+00:00', last_done_hour_meter_seconds: 9 * HOUR } });
    expect(changes[5]).toMatchObject({ before: { name: 'Oil' }, after: null });
    expect(changes[6]).toMatchObject({ before: { reading_seconds: 5 * HOUR, source: 'manual' }, after: null });
  });

  it('a write refused, or of a device, schedule or reading not there, reports nothing; the fields are checked before the device (P71)', async () => {
    const { changes, manage, accountId, deviceId } = await setUp();
    const created = await manage.createServiceSchedule({
      accountId,
      deviceId,
      fields: { name: 'Oil', interval_seconds: 100 * HOUR },
      origin: CLI,
    });
    changes.length = 0;
    expect(
      await refusal(() =>
        manage.createServiceSchedule({ accountId, deviceId, fields: { name: ' oil', interval_seconds: 1 }, origin: CLI }),
      ),
    ).toBe('conflict');
    expect(await refusal(() => manage.createServiceSchedule({ accountId, deviceId: 999, fields: { name: 'X' }, origin: CLI }))).toBe(
      'invalid_field interval_seconds',
    );
    expect(
      await manage.createServiceSchedule({ accountId, deviceId: 999, fields: { name: 'X', interval_seconds: 1 }, origin: CLI }),
    ).toBeNull();
    expect(
      await manage.addHourMeterReading({ accountId: accountId + 1, deviceId, fields: { reading_seconds: 1 }, origin: CLI }),
    ).toBeNull();
    const scheduleId = created!.schedule.id;
    expect(
      await refusal(() => manage.updateServiceSchedule({ accountId, deviceId, scheduleId: 999, fields: { name: 'Y' }, origin: CLI })),
    ).toBe('device_not_found');
    expect(
      await refusal(() =>
        manage.updateServiceSchedule({ accountId, deviceId, scheduleId, fields: { due_soon_seconds: 101 * HOUR }, origin: CLI }),
      ),
    ).toBe('invalid_field due_soon_seconds');
    expect(
      await refusal(() =>
        manage.updateServiceSchedule({ accountId, deviceId, scheduleId, fields: { name: 'Y' }, ifMatch: '"s-0"', origin: CLI }),
      ),
    ).toBe('precondition_failed');
    expect(
      await refusal(() =>
        manage.recordServiceDone({ accountId, deviceId, scheduleId, fields: { done_at: '2030-01-01T00:00:00Z' }, origin: CLI }),
      ),
    ).toBe('invalid_field done_at');
    expect(await refusal(() => manage.removeHourMeterReading({ accountId, deviceId, readingId: 1, origin: CLI }))).toBe('device_not_found');
    expect(changes).toEqual([]);
  });
});

describe('the fields of a schedule and a service done, by their API names (D39, D50, P76)', () => {
  it('a change is checked value by value before the stored schedule is known; a new schedule needs its name and interval', () => {
    expect(readScheduleFields({ name: ' Oil ', interval_days: null, due_soon_seconds: null }, 'update', NOW)).toEqual({
      name: 'Oil',
      intervalDays: null,
      dueSoonSeconds: null,
    });
    expect(() => readScheduleFields({ interval_seconds: 0 }, 'update', NOW)).toThrow(/interval_seconds/);
    expect(() => readScheduleFields({}, 'update', NOW)).toThrow(/Nothing to change/);
    expect(readScheduleFields({ name: 'Oil', interval_seconds: 10 }, 'create', NOW)).toEqual({
      name: 'Oil',
      intervalSeconds: 10,
      intervalDays: null,
      dueSoonSeconds: null,
      dueSoonDays: null,
      lastDoneAt: NOW,
      lastDoneHourMeterSeconds: null,
    });
    expect(readServiceDoneFields(undefined, NOW)).toEqual({ doneAt: NOW, hourMeterSeconds: null });
    expect(() => readServiceDoneFields({ at: 'now' }, NOW)).toThrow(/Unknown field "at"/);
  });
});
