/**
 * P58 in the storage contract, for a store that offers `listServicePage` (and so
 * `rememberServiceMemos`): a service page read in one call holds what the plain methods return;
 * what is remembered comes back only at the device's memo version, which every change a value
 * depends on raises and a telemetry write after the last report leaves alone; `unsettledOnly`
 * leaves out exactly the devices remembered ok; and `fleet.service()` over the store answers what
 * it answers without remembering anything, whatever writes come, serially or side by side.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { createFleetHours, type FleetHours } from '../application/create-fleet-hours.js';
import type { FleetHoursStore, RememberedStatuses, ServicePageDevice } from '../store/storage-port.js';
import type { Device, DeviceTelemetryPoint, ServiceStatus } from '../types.js';
import { SegmentOverlapError, TelemetryOverlapError } from '../errors/errors.js';
import type { StorageCapability } from './storage-capabilities.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-03-02T06:00:00Z. */
const BASE = 1_772_431_200;

/** What the P58 block needs from the contract suite around it. */
export interface ServiceMemoContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
  /** How many runs a property test takes of the `numRuns` it asks for (default all). */
  readonly runs?: (numRuns: number) => number;
}

/** The P58 block of the storage contract. */
export function describeServiceMemoContract(context: ServiceMemoContext): void {
  _describeOneCall(context);
  _describeRemembered(context);
  _describeVersion(context);
  _describeNeverReported(context);
  _describeUnsettled(context);
  _describeFilter(context);
  _describeAgainstRawPath(context);
}

/** The store with `listServicePage` hidden: the core then reads and remembers nothing (the raw path). */
function _rawPath(store: FleetHoursStore): FleetHoursStore {
  return new Proxy(store, {
    get: (target, property, receiver) => (property === 'listServicePage' ? undefined : Reflect.get(target, property, receiver)),
  });
}

/** Points every minute from `start` for `minutes`, ignition on, moving every other ten minutes. */
function _drive(deviceId: number, start: number, minutes: number): DeviceTelemetryPoint[] {
  return Array.from({ length: minutes }, (_, index) => ({
    deviceId,
    time: start + index * 60,
    ignition: true,
    speedKmh: Math.floor(index / 10) % 2 === 0 ? 30 : 0,
  }));
}

async function _seedDevice(store: FleetHoursStore, accountId: number, name: string, timeZone = 'Europe/Berlin'): Promise<Device> {
  return (await store.createDevice({ accountId, name, imei: `p58-${accountId}-${name}`, model: 'm', timeZone }))!;
}

/** The page entry of one device (read alone). */
async function _entry(store: FleetHoursStore, device: Device, now: number): Promise<ServicePageDevice> {
  const { devices } = await store.listServicePage!({
    accountId: device.accountId,
    afterId: device.id - 1,
    limit: 1,
    now,
    unsettledOnly: false,
  });
  expect(devices.map((entry) => entry.device.id)).toEqual([device.id]);
  return devices[0]!;
}

/** Remembers, at the device's current version, engine seconds before each of its readings and last services, and a bound. */
async function _rememberEverything(
  store: FleetHoursStore,
  device: Device,
  now: number,
  okUntil: number | null = now + DAY,
): Promise<ServicePageDevice> {
  const entry = await _entry(store, device, now);
  const instants = [
    ...new Set([...entry.readings.map((reading) => reading.readAt), ...entry.schedules.map((schedule) => schedule.lastDoneAt)]),
  ];
  await store.rememberServiceMemos!({
    devices: [
      {
        deviceId: device.id,
        memoVersion: entry.memoVersion,
        okUntil,
        engineBefore: instants.map((instant, index) => ({ instant, seconds: { movingSeconds: 100 + index, idleSeconds: 7 } })),
      },
    ],
  });
  const remembered = await _entry(store, device, now);
  expect({
    version: remembered.memoVersion,
    okUntil: remembered.remembered?.okUntil,
    instants: remembered.remembered?.engineBefore.size,
  }).toEqual({
    version: entry.memoVersion,
    okUntil,
    instants: instants.length,
  });
  return remembered;
}

function _describeOneCall({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58: listServicePage() gives each device of a keyset page as listDevices, its engine seconds up to now as summarizeSegments, its readings and schedules as the list methods, and the highest device id of the account',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const other = await store().createAccount({ name: 'Other', plan: 'business', now: BASE });
      const devices: Device[] = [];
      for (const [index, zone] of ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu'].entries()) {
        const device = await _seedDevice(store(), account.id, `loader ${index}`, zone);
        await store().importSegments({
          deviceId: device.id,
          segments: [
            { startedAt: BASE - DAY + index * 600, endedAt: BASE - DAY + 4 * HOUR, state: 'moving' },
            { startedAt: BASE - 2 * HOUR, endedAt: null, state: 'idle' },
          ],
        });
        if (index < 2) {
          await store().addHourMeterReading({ deviceId: device.id, readAt: BASE - 2 * DAY, readingSeconds: 900 * HOUR, now: BASE });
          await store().addHourMeterReading({ deviceId: device.id, readAt: BASE - DAY / 2, readingSeconds: 904 * HOUR, now: BASE });
          await store().createServiceSchedule({
            deviceId: device.id,
            name: 'Oil',
            intervalSeconds: 250 * HOUR,
            intervalDays: 180,
            lastDoneAt: BASE - DAY,
            now: BASE,
          });
          await store().createServiceSchedule({
            deviceId: device.id,
            name: 'Filter',
            intervalSeconds: 500 * HOUR,
            dueSoonSeconds: HOUR,
            lastDoneAt: BASE - 3 * DAY,
            lastDoneHourMeterSeconds: 880 * HOUR,
            now: BASE,
          });
        }
        devices.push(device);
      }
      await _seedDevice(store(), other.id, 'elsewhere');
      const now = BASE + HOUR;
      const expected = async (device: Device) => {
        const summary = store().summarizeDeviceSegments
          ? await store().summarizeDeviceSegments!({ deviceId: device.id, now })
          : (await store().summarizeDeviceSegmentsMany!({ deviceIds: [device.id], now }))[0]!;
        return {
          device: await store().findDevice({ accountId: account.id, deviceId: device.id }),
          engineSeconds: { movingSeconds: summary.movingSeconds, idleSeconds: summary.idleSeconds },
          readings: await store().listHourMeterReadings({ deviceIds: [device.id] }),
          schedules: await store().listServiceSchedules({ deviceIds: [device.id] }),
          remembered: null,
        };
      };
      const page = (afterId: number | undefined, limit: number) =>
        store().listServicePage!({
          accountId: account.id,
          ...(afterId === undefined ? {} : { afterId }),
          limit,
          now,
          unsettledOnly: false,
        });
      const first = await page(undefined, 2);
      expect(first.lastDeviceId).toBe(devices[2]!.id);
      expect(first.devices.map(({ memoVersion: _version, ...rest }) => rest)).toEqual([
        await expected(devices[0]!),
        await expected(devices[1]!),
      ]);
      for (const entry of first.devices) expect(Number.isSafeInteger(entry.memoVersion)).toBe(true);
      const second = await page(devices[1]!.id, 2);
      expect(second.devices.map(({ memoVersion: _version, ...rest }) => rest)).toEqual([await expected(devices[2]!)]);
      expect((await page(devices[2]!.id, 5)).devices).toEqual([]);
      expect((await page(Number.MAX_SAFE_INTEGER, 5)).devices).toEqual([]);
      const none = await store().createAccount({ name: 'Empty', plan: 'business', now: BASE });
      expect(await store().listServicePage!({ accountId: none.id, limit: 5, now, unsettledOnly: true })).toEqual({
        devices: [],
        lastDeviceId: null,
      });
      // A device without schedules can never match a filter without `ok`: left out.
      const unsettled = await store().listServicePage!({ accountId: account.id, limit: 5, now, unsettledOnly: true });
      expect(unsettled.devices.map((entry) => entry.device.id)).toEqual([devices[0]!.id, devices[1]!.id]);
      expect(unsettled.lastDeviceId).toBe(devices[2]!.id);
    },
  );
}

function _describeRemembered({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58: what is remembered comes back at the version it was remembered at, replaced by the next memo; a memo of another version is dropped',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const device = await _seedDevice(store(), account.id, 'dozer');
      await store().addHourMeterReading({ deviceId: device.id, readAt: BASE - DAY, readingSeconds: 10 * HOUR, now: BASE });
      await store().createServiceSchedule({
        deviceId: device.id,
        name: 'Oil',
        intervalSeconds: 250 * HOUR,
        lastDoneAt: BASE - 2 * DAY,
        now: BASE,
      });
      const now = BASE + HOUR;
      const entry = await _entry(store(), device, now);
      expect(entry.remembered).toBeNull();
      const seconds = { movingSeconds: 3600, idleSeconds: 60 };
      const memo = (
        memoVersion: number,
        okUntil: number | null,
        engineBefore: { instant: number; seconds: typeof seconds }[],
        statuses?: RememberedStatuses,
      ) =>
        store().rememberServiceMemos!({
          devices: [{ deviceId: device.id, memoVersion, okUntil, engineBefore, ...(statuses ? { statuses } : {}) }],
        });
      for (const version of [entry.memoVersion - 1, entry.memoVersion + 1])
        await memo(version, now + DAY, [{ instant: BASE - DAY, seconds }]);
      expect((await _entry(store(), device, now)).remembered).toBeNull();

      await memo(entry.memoVersion, null, [
        { instant: BASE - DAY, seconds },
        { instant: BASE - 2 * DAY, seconds: { movingSeconds: 0, idleSeconds: 0 } },
      ]);
      const remembered = await _entry(store(), device, now);
      expect({ version: remembered.memoVersion, remembered: remembered.remembered }).toEqual({
        version: entry.memoVersion,
        remembered: {
          okUntil: null,
          engineBefore: new Map([
            [BASE - DAY, seconds],
            [BASE - 2 * DAY, { movingSeconds: 0, idleSeconds: 0 }],
          ]),
          statuses: null,
        },
      });
      // Remembered again: the new memo replaces the old, whole; P66's statuses come back as given, `until` null for good.
      for (const statuses of [
        { statuses: ['due_soon', 'overdue'] as const, until: null },
        { statuses: [] as const, until: now + 2 * HOUR },
        { statuses: ['ok'] as const, until: now + 3 * HOUR },
      ]) {
        await memo(entry.memoVersion, now + 5 * HOUR, [], statuses);
        expect((await _entry(store(), device, now)).remembered).toEqual({ okUntil: now + 5 * HOUR, engineBefore: new Map(), statuses });
      }
      await memo(entry.memoVersion, now + 5 * HOUR, []);
      expect((await _entry(store(), device, now)).remembered).toEqual({ okUntil: now + 5 * HOUR, engineBefore: new Map(), statuses: null });
    },
  );
}

function _describeVersion({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58: every change a remembered value depends on raises the memo version (late telemetry, an import before the last report, readings, schedules, a new zone) and drops what was remembered; telemetry after the last report, a duplicate point or a new name leave both',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const device = await _seedDevice(store(), account.id, 'grader');
      const write = (points: DeviceTelemetryPoint[]) => store().writeTelemetry({ accountId: account.id, points, now: BASE + DAY });
      await write(_drive(device.id, BASE, 60)); // the last report at BASE + 59 min
      const reading = (await store().addHourMeterReading({
        deviceId: device.id,
        readAt: BASE + 30 * 60,
        readingSeconds: 50 * HOUR,
        now: BASE + HOUR,
      }))!;
      const schedule = (await store().createServiceSchedule({
        deviceId: device.id,
        name: 'Oil',
        intervalSeconds: 250 * HOUR,
        lastDoneAt: BASE + 10 * 60,
        now: BASE + HOUR,
      }))!;
      const now = BASE + 2 * HOUR;

      const kept: [string, () => Promise<unknown>][] = [
        ['telemetry after the last report', () => write(_drive(device.id, BASE + 60 * 60, 30))],
        ['a point stored again as it is', () => write(_drive(device.id, BASE + 60 * 60, 1))],
        ['a new name', () => store().updateDevice({ deviceId: device.id, changes: { name: 'grader 2' } })],
      ];
      const raised: [string, () => Promise<unknown>][] = [
        [
          'a late point before the last report',
          () => write([{ deviceId: device.id, time: BASE + 20 * 60 + 30, ignition: false, speedKmh: 0 }]),
        ],
        [
          'an import before the last report',
          () =>
            store().importSegments({
              deviceId: device.id,
              segments: [{ startedAt: BASE - DAY, endedAt: BASE - DAY + HOUR, state: 'moving' }],
            }),
        ],
        [
          'a reading added',
          () => store().addHourMeterReading({ deviceId: device.id, readAt: BASE + 40 * 60, readingSeconds: 51 * HOUR, now }),
        ],
        [
          'a reading replaced',
          () => store().addHourMeterReading({ deviceId: device.id, readAt: BASE + 40 * 60, readingSeconds: 52 * HOUR, now }),
        ],
        ['a reading removed', () => store().removeHourMeterReading({ deviceId: device.id, readingId: reading.id })],
        ['a schedule changed', () => store().updateServiceSchedule({ scheduleId: schedule.id, changes: { intervalSeconds: 300 * HOUR } })],
        ['a service done', () => store().updateServiceSchedule({ scheduleId: schedule.id, changes: { lastDoneAt: BASE + 50 * 60 } })],
        [
          'a schedule created',
          () => store().createServiceSchedule({ deviceId: device.id, name: 'Filter', intervalSeconds: HOUR, lastDoneAt: BASE, now }),
        ],
        ['a schedule removed', () => store().removeServiceSchedule({ scheduleId: schedule.id })],
        ['a new zone', () => store().updateDevice({ deviceId: device.id, changes: { timeZone: 'Asia/Tokyo' } })],
      ];
      const outcomes: Record<string, string> = {};
      for (const [name, change] of [...kept, ...raised]) {
        const before = await _rememberEverything(store(), device, now);
        await change();
        const after = await _entry(store(), device, now);
        const same = after.memoVersion === before.memoVersion && after.remembered !== null && after.remembered.engineBefore.size > 0;
        const dropped = after.memoVersion > before.memoVersion && after.remembered === null;
        outcomes[name] = same ? 'kept' : dropped ? 'raised' : `neither (version ${before.memoVersion} → ${after.memoVersion})`;
      }
      expect(outcomes).toEqual(Object.fromEntries([...kept.map(([name]) => [name, 'kept']), ...raised.map(([name]) => [name, 'raised'])]));
    },
  );
}

function _describeNeverReported({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58: nothing is remembered of a device that never reported: a first point that makes no segment, then one that adds engine time just after it, leave the page exact',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const device = await _seedDevice(store(), account.id, 'new');
      await store().createServiceSchedule({ deviceId: device.id, name: 'Grease', intervalSeconds: HOUR, lastDoneAt: BASE, now: BASE });
      await store().addHourMeterReading({ deviceId: device.id, readAt: BASE + 1, readingSeconds: 0, now: BASE + 2 });
      const now = BASE + HOUR;
      const memo = createFleetHours({ store: store(), now: () => now * 1000 });
      const raw = createFleetHours({ store: _rawPath(store()), now: () => now * 1000 });
      await memo.fleet.service({ accountId: account.id });
      expect((await _entry(store(), device, now)).remembered).toBeNull();
      const point = (ignition: boolean) => ({ deviceId: device.id, time: BASE, ignition, speedKmh: ignition ? 30 : 0 });
      // Changes no segment (the version stays), and makes BASE the last report.
      await store().writeTelemetry({ accountId: account.id, points: [point(false)], now });
      await memo.fleet.service({ accountId: account.id });
      // Engine time from BASE on: after the last report, so the version stays; the reading at BASE + 1 now follows a second of it.
      await store().writeTelemetry({ accountId: account.id, points: [point(true)], now });
      expect((await memo.fleet.service({ accountId: account.id })).items).toEqual(
        (await raw.fleet.service({ accountId: account.id })).items,
      );
    },
  );
}

function _describeUnsettled({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58: with unsettledOnly, a device is left out exactly when it has no schedule, or is remembered ok until after now at its version',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const now = BASE + HOUR;
      const cases = [
        'ok past now',
        'bound passed',
        'not known ok',
        'nothing remembered',
        'remembered before a change',
        'no schedules',
      ] as const;
      const devices = new Map<(typeof cases)[number], Device>();
      for (const name of cases) {
        const device = await _seedDevice(store(), account.id, name);
        devices.set(name, device);
        if (name === 'no schedules') continue;
        await store().createServiceSchedule({
          deviceId: device.id,
          name: 'Oil',
          intervalSeconds: 250 * HOUR,
          lastDoneAt: BASE - DAY,
          now: BASE,
        });
        if (name === 'ok past now') await _rememberEverything(store(), device, now, now + 1);
        if (name === 'bound passed') await _rememberEverything(store(), device, now, now);
        if (name === 'not known ok') await _rememberEverything(store(), device, now, null);
        if (name === 'remembered before a change') {
          await _rememberEverything(store(), device, now, now + DAY);
          await store().createServiceSchedule({
            deviceId: device.id,
            name: 'Grease',
            intervalSeconds: 50 * HOUR,
            lastDoneAt: BASE - DAY,
            now: BASE,
          });
        }
      }
      const listed = await store().listServicePage!({ accountId: account.id, limit: 10, now, unsettledOnly: true });
      expect(listed.devices.map((entry) => entry.device.name)).toEqual([
        'bound passed',
        'not known ok',
        'nothing remembered',
        'remembered before a change',
      ]);
      expect(listed.lastDeviceId).toBe(devices.get('no schedules')!.id);
      // Without the filter, every device; and a limit counts listed devices only.
      expect((await store().listServicePage!({ accountId: account.id, limit: 10, now, unsettledOnly: false })).devices).toHaveLength(
        cases.length,
      );
      const first = await store().listServicePage!({ accountId: account.id, limit: 1, now, unsettledOnly: true });
      expect(first.devices.map((entry) => entry.device.name)).toEqual(['bound passed']);
    },
  );
}

function _describeFilter({ store, itWith }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P66, D49: with a filter, a device is left out exactly when it has no schedule, or is remembered at its version to have none of the statuses until after now; the listing stops after the matches-th device remembered to have one',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const now = BASE + HOUR;
      const remembered = {
        'ok past now': { statuses: ['ok'], until: now + 1 },
        'overdue for good': { statuses: ['ok', 'overdue'], until: null },
        'due soon, bound passed': { statuses: ['due_soon'], until: now },
        'due soon past now': { statuses: ['due_soon'], until: now + DAY },
        'not known': null,
        'nothing remembered': undefined,
        'overdue before a change': { statuses: ['overdue'], until: null },
        'no schedules': undefined,
        'overdue again': { statuses: ['overdue'], until: now + DAY },
      } as const;
      for (const [name, statuses] of Object.entries(remembered)) {
        const device = await _seedDevice(store(), account.id, name);
        if (name === 'no schedules') continue;
        await store().createServiceSchedule({
          deviceId: device.id,
          name: 'Oil',
          intervalSeconds: 250 * HOUR,
          lastDoneAt: BASE - DAY,
          now: BASE,
        });
        if (statuses === undefined) continue;
        const entry = await _entry(store(), device, now);
        await store().rememberServiceMemos!({
          devices: [{ deviceId: device.id, memoVersion: entry.memoVersion, okUntil: null, engineBefore: [], statuses }],
        });
        expect((await _entry(store(), device, now)).remembered?.statuses).toEqual(statuses);
        if (name === 'overdue before a change')
          await store().addHourMeterReading({ deviceId: device.id, readAt: BASE - DAY, readingSeconds: HOUR, now: BASE });
      }
      const names = async (statuses: readonly ServiceStatus[], matches: number, limit = 20) =>
        (
          await store().listServicePage!({ accountId: account.id, limit, now, unsettledOnly: false, filter: { statuses, matches } })
        ).devices.map((entry) => entry.device.name);
      const unknown = ['due soon, bound passed', 'not known', 'nothing remembered', 'overdue before a change'];
      expect(await names(['overdue'], 5)).toEqual(['overdue for good', ...unknown, 'overdue again']);
      expect(await names(['ok'], 5)).toEqual(['ok past now', 'overdue for good', ...unknown]);
      expect(await names(['due_soon', 'overdue'], 5)).toEqual([
        'overdue for good',
        'due soon, bound passed',
        'due soon past now',
        ...unknown.slice(1),
        'overdue again',
      ]);
      // Up to the matches-th remembered match, with every device before it that may match; a limit counts listed devices.
      expect(await names(['overdue'], 1)).toEqual(['overdue for good']);
      expect(await names(['due_soon'], 1)).toEqual(['due soon, bound passed', 'due soon past now']);
      expect(await names(['ok'], 2)).toEqual(['ok past now', 'overdue for good']);
      expect(await names(['overdue'], 5, 2)).toEqual(['overdue for good', 'due soon, bound passed']);
    },
  );
}

/** One step of a random history: a write of some kind, or a page read that remembers. */
type _Step =
  | { readonly kind: 'drive'; readonly device: number; readonly start: number; readonly minutes: number }
  | { readonly kind: 'stop'; readonly device: number; readonly at: number }
  | { readonly kind: 'import'; readonly device: number; readonly start: number; readonly minutes: number; readonly open: boolean }
  | { readonly kind: 'reading'; readonly device: number; readonly at: number; readonly hours: number }
  | { readonly kind: 'unread'; readonly device: number }
  | { readonly kind: 'done'; readonly device: number; readonly at: number }
  | { readonly kind: 'interval'; readonly device: number; readonly hours: number }
  | { readonly kind: 'zone'; readonly device: number; readonly zone: string }
  | { readonly kind: 'read'; readonly statuses: readonly ServiceStatus[] | undefined };

const DEVICES = 3;
const stepArbitrary: fc.Arbitrary<_Step> = fc.oneof(
  fc.record({
    kind: fc.constant('drive' as const),
    device: fc.nat(DEVICES - 1),
    start: fc.integer({ min: 0, max: 20 * HOUR }),
    minutes: fc.integer({ min: 1, max: 60 }),
  }),
  fc.record({ kind: fc.constant('stop' as const), device: fc.nat(DEVICES - 1), at: fc.integer({ min: 0, max: 20 * HOUR }) }),
  fc.record({
    kind: fc.constant('import' as const),
    device: fc.nat(DEVICES - 1),
    start: fc.integer({ min: 0, max: 20 * HOUR }),
    minutes: fc.integer({ min: 1, max: 60 }),
    open: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('reading' as const),
    device: fc.nat(DEVICES - 1),
    // Mostly before the first report (10 h): what is remembered of a reading is what a late write must not leave stale.
    at: fc.integer({ min: 0, max: 12 * HOUR }),
    hours: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({ kind: fc.constant('unread' as const), device: fc.nat(DEVICES - 1) }),
  fc.record({ kind: fc.constant('done' as const), device: fc.nat(DEVICES - 1), at: fc.integer({ min: 0, max: 20 * HOUR }) }),
  fc.record({ kind: fc.constant('interval' as const), device: fc.nat(DEVICES - 1), hours: fc.integer({ min: 1, max: 12 }) }),
  fc.record({
    kind: fc.constant('zone' as const),
    device: fc.nat(DEVICES - 1),
    zone: fc.constantFrom('UTC', 'Pacific/Kiritimati', 'America/Los_Angeles'),
  }),
  fc.record({
    kind: fc.constant('read' as const),
    statuses: fc.constantFrom<readonly ServiceStatus[] | undefined>(['due_soon', 'overdue'], ['overdue'], ['ok'], undefined),
  }),
);

/** The account of one random history: its devices, each with an oil and a grease schedule, and the readings added so far. */
interface _History {
  readonly store: FleetHoursStore;
  readonly accountId: number;
  readonly devices: readonly Device[];
  /** Per device: the oil schedule's id, then the grease schedule's. */
  readonly schedules: readonly (readonly [number, number])[];
  readonly readings: Map<number, number[]>;
  readonly memo: FleetHours;
  readonly now: () => number;
}

async function _newHistory(store: FleetHoursStore, round: number, now: () => number): Promise<_History> {
  const account = await store.createAccount({ name: `P58 ${round}`, plan: 'business', now: BASE });
  const devices: Device[] = [];
  const schedules: (readonly [number, number])[] = [];
  for (let index = 0; index < DEVICES; index += 1) {
    const device = await _seedDevice(store, account.id, `${round}-${index}`, 'UTC');
    devices.push(device);
    const schedule = async (name: string, hours: number, days: number | null) =>
      (await store.createServiceSchedule({
        deviceId: device.id,
        name,
        intervalSeconds: hours * HOUR,
        intervalDays: days,
        lastDoneAt: BASE,
        now: BASE,
      }))!.id;
    schedules.push([await schedule('Oil', 3 + index, 1), await schedule('Grease', 1, null)]);
    // A report to start from: a device that never reported has nothing remembered, and a step before it is a late write.
    await store.writeTelemetry({ accountId: account.id, points: _drive(device.id, BASE + 10 * HOUR, 30), now: now() });
  }
  const memo = createFleetHours({ store, now: () => now() * 1000 });
  return { store, accountId: account.id, devices, schedules, readings: new Map(), memo, now };
}

/** A write refused for overlapping the other source (D23) writes nothing: part of the history too. */
async function _unlessOverlap(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof SegmentOverlapError || error instanceof TelemetryOverlapError)) throw error;
  }
}

/** Runs one step of a history. */
async function _runStep(history: _History, step: _Step): Promise<void> {
  const { store, accountId, readings } = history;
  const now = history.now();
  if (step.kind === 'read') {
    await history.memo.fleet.service({ accountId, limit: 2, ...(step.statuses ? { statuses: step.statuses } : {}) });
    return;
  }
  const device = history.devices[step.device]!;
  const [oil, grease] = history.schedules[step.device]!;
  switch (step.kind) {
    case 'drive':
      return _unlessOverlap(() => store.writeTelemetry({ accountId, points: _drive(device.id, BASE + step.start, step.minutes), now }));
    case 'stop':
      return _unlessOverlap(() =>
        store.writeTelemetry({ accountId, points: [{ deviceId: device.id, time: BASE + step.at, ignition: false, speedKmh: 0 }], now }),
      );
    case 'import': {
      const startedAt = BASE + step.start;
      const segment = { startedAt, endedAt: step.open ? null : startedAt + step.minutes * 60, state: 'moving' as const };
      return _unlessOverlap(() =>
        store.importSegments({ deviceId: device.id, segments: [segment], reportedAt: Math.min(now, startedAt + step.minutes * 60) }),
      );
    }
    case 'reading': {
      const added = await store.addHourMeterReading({
        deviceId: device.id,
        readAt: BASE + step.at,
        readingSeconds: step.hours * HOUR,
        now,
      });
      readings.set(device.id, [...(readings.get(device.id) ?? []), added!.id]);
      return;
    }
    case 'unread': {
      const [first, ...rest] = readings.get(device.id) ?? [];
      if (first !== undefined) await store.removeHourMeterReading({ deviceId: device.id, readingId: first });
      readings.set(device.id, rest);
      return;
    }
    case 'done':
      await store.updateServiceSchedule({ scheduleId: oil, changes: { lastDoneAt: BASE + step.at } });
      return;
    case 'interval':
      await store.updateServiceSchedule({ scheduleId: grease, changes: { intervalSeconds: step.hours * HOUR } });
      return;
    case 'zone':
      await store.updateDevice({ deviceId: device.id, changes: { timeZone: step.zone } });
      return;
  }
}

/**
 * Every page of the history's account, walked with each filter, is the same through `memo` and
 * `raw`, and is what walking it without the filter gives, filtered (D49: a filtered walk reads at
 * most two device pages a page, whatever it skips).
 */
async function _expectSamePages(history: _History, raw: FleetHours): Promise<void> {
  const pages = async (fleetHours: FleetHours, statuses: readonly ServiceStatus[] | undefined, limit: number) => {
    const items = [];
    let cursor: string | undefined;
    do {
      const page = await fleetHours.fleet.service({
        accountId: history.accountId,
        limit,
        ...(statuses ? { statuses } : {}),
        ...(cursor ? { cursor } : {}),
      });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return items;
  };
  const every = await pages(raw, undefined, 2);
  const expected = (statuses: readonly ServiceStatus[] | undefined) =>
    every.filter((item) => !statuses || item.schedules.some((schedule) => statuses.includes(schedule.status)));
  // Pages of one device read their second device page often; the raw path (no memos) walks a filter too.
  const walks = [
    ['memo', ['due_soon', 'overdue'], 2],
    ['memo', ['overdue'], 1],
    ['memo', ['ok'], 2],
    ['memo', undefined, 2],
    ['raw', ['due_soon', 'overdue'], 1],
  ] as const;
  for (const [path, statuses, limit] of walks) {
    const items = await pages(path === 'memo' ? history.memo : raw, statuses, limit);
    expect({ path, statuses, items }).toEqual({ path, statuses, items: expected(statuses) });
  }
}

function _describeAgainstRawPath({ store, itWith, runs = (numRuns) => numRuns }: ServiceMemoContext): void {
  itWith(
    'listServicePage',
    'P58, D49: fleet.service() answers what it answers without remembering, and a filtered walk what the unfiltered walk gives filtered, after any history of writes and reads, run one after another or side by side (random histories, the raw path as the oracle)',
    async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(stepArbitrary, { minLength: 6, maxLength: 18 }), fc.boolean(), async (steps, sideBySide) => {
          round += 1;
          // The clock moves on with the steps: bounds remembered at one step are checked at later ones.
          let now = BASE + 21 * HOUR;
          const history = await _newHistory(store(), round, () => now);
          const { memo } = history;
          const raw = createFleetHours({ store: _rawPath(store()), now: () => now * 1000 });
          const run = (step: _Step) => _runStep(history, step);
          const agree = () => _expectSamePages(history, raw);
          await memo.fleet.service({ accountId: history.accountId, statuses: ['due_soon', 'overdue'] });
          if (sideBySide) {
            // Writes and remembering reads side by side: nothing remembered from a state a write changed may survive it.
            await Promise.all(steps.map(run));
            now += 5 * 60;
            await agree();
          } else {
            for (const step of steps) {
              await run(step);
              now += 5 * 60;
              await agree();
            }
          }
        }),
        { numRuns: runs(16) },
      );
    },
  );
}
