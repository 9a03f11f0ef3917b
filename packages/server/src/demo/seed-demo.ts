import {
  createTelemetryWrites,
  fingerprintApiKey,
  generateApiKey,
  type Account,
  type Device,
  type FleetHoursStore,
  type SegmentInput,
} from '@fleet-hours/core';
import { DEMO_VEHICLES, demoVehicle, generateDemoSegments, type DemoVehicle } from './demo-fleet.js';
import { seedDemoService, type DemoServiceSeed } from './demo-service.js';

/** What {@link seedDemo} created. */
export interface DemoSeed {
  /** The business account, with API access. */
  readonly account: Account;
  /** A working key of {@link DemoSeed.account}: it reads. */
  readonly key: string;
  /** A key of {@link DemoSeed.account} with the `manage` scope: it also changes the fleet (the fleet view's actions). */
  readonly manageKey: string;
  readonly devices: readonly Device[];
  /** A starter-plan account: its key answers 403 (D12). */
  readonly starterAccount: Account;
  readonly starterKey: string;
  /** Engine segments written, over every device. */
  readonly segmentCount: number;
  /** The hour-meter readings and service schedules of the fleet (D38, D39). */
  readonly service: DemoServiceSeed;
}

const STARTER_VEHICLE = demoVehicle(['Delivery scooter', '356307042441047', 'HH-CB 12', 'Teltonika TFT100', 'Europe/Berlin', 'day']);

/**
 * Seeds an empty store with the demo fleet: a business account "Demo Logistics" with the
 * {@link DEMO_VEHICLES} and a year of their shifts (one import batch per vehicle), their hour-meter
 * readings and service schedules (`seedDemoService`: some due soon, one overdue), an API key for
 * it, and a starter-plan account "Corner Café" with one vehicle and a key that answers 403.
 *
 * @param store An empty store.
 * @param options `now`: epoch seconds; `days`: how far back (default 365).
 * @returns The accounts, keys and devices.
 */
export async function seedDemo(store: FleetHoursStore, options: { readonly now: number; readonly days?: number }): Promise<DemoSeed> {
  const { now } = options;
  const account = await store.createAccount({ name: 'Demo Logistics', plan: 'business', now });
  const starterAccount = await store.createAccount({ name: 'Corner Café', plan: 'starter', now });

  const writes = createTelemetryWrites(store);
  let segmentCount = 0;
  const fleet: { device: Device; vehicle: DemoVehicle; segments: readonly SegmentInput[] }[] = [];
  const addVehicle = async (owner: Account, vehicle: DemoVehicle, seed: number, days: number): Promise<Device> => {
    const created = await store.createDevice({
      accountId: owner.id,
      name: vehicle.name,
      imei: vehicle.imei,
      registration: vehicle.registration,
      model: vehicle.model,
      timeZone: vehicle.timeZone,
    });
    if (!created) throw new Error(`Could not create the demo device "${vehicle.name}"`);
    const segments = generateDemoSegments({ vehicle, seed, now, days });
    await writes.importSegments({ deviceId: created.id, segments, reportedAt: now });
    segmentCount += segments.length;
    const device = (await store.findDevice({ accountId: owner.id, deviceId: created.id })) ?? created;
    fleet.push({ device, vehicle, segments });
    return device;
  };

  const devices: Device[] = [];
  for (const [index, vehicle] of DEMO_VEHICLES.entries()) devices.push(await addVehicle(account, vehicle, index + 1, options.days ?? 365));
  await addVehicle(starterAccount, STARTER_VEHICLE, 99, 30);
  const service = await seedDemoService(store, { vehicles: fleet, now });

  const key = await issueKey(store, account.id, 'demo', now);
  const manageKey = await issueKey(store, account.id, 'demo (manage)', now, 'manage');
  const starterKey = await issueKey(store, starterAccount.id, 'demo (starter plan)', now);
  return { account, key, manageKey, devices, starterAccount, starterKey, segmentCount, service };
}

async function issueKey(store: FleetHoursStore, accountId: number, label: string, now: number, scope?: 'manage'): Promise<string> {
  const key = generateApiKey();
  await store.createApiKey({
    accountId,
    fingerprint: await fingerprintApiKey(key),
    label,
    expiresAt: null,
    now,
    ...(scope ? { scope } : {}),
  });
  return key;
}
