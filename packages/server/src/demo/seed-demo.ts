import { fingerprintApiKey, generateApiKey, type Account, type Device, type FleetHoursStore } from '@fleet-hours/core';
import { DEMO_VEHICLES, generateDemoSegments, type DemoVehicle } from './demo-fleet.js';

/** What {@link seedDemo} created. */
export interface DemoSeed {
  /** The business account, with API access. */
  readonly account: Account;
  /** A working key of {@link DemoSeed.account}. */
  readonly key: string;
  readonly devices: readonly Device[];
  /** A starter-plan account: its key answers 403 (D12). */
  readonly starterAccount: Account;
  readonly starterKey: string;
  /** Engine segments written, over every device. */
  readonly segmentCount: number;
}

const STARTER_VEHICLE: DemoVehicle = {
  name: 'Delivery scooter',
  imei: '356307042441047',
  registration: 'HH-CB 12',
  model: 'Teltonika TFT100',
  timeZone: 'Europe/Berlin',
  pattern: 'day',
};

/**
 * Seeds an empty store with the demo fleet: a business account "Demo Logistics" with the
 * {@link DEMO_VEHICLES} and a year of their shifts (one import batch per vehicle), an API key for
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

  let segmentCount = 0;
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
    await store.importSegments({ deviceId: created.id, segments, reportedAt: now });
    segmentCount += segments.length;
    return (await store.findDevice({ accountId: owner.id, deviceId: created.id })) ?? created;
  };

  const devices: Device[] = [];
  for (const [index, vehicle] of DEMO_VEHICLES.entries()) devices.push(await addVehicle(account, vehicle, index + 1, options.days ?? 365));
  await addVehicle(starterAccount, STARTER_VEHICLE, 99, 30);

  const key = await issueKey(store, account.id, 'demo', now);
  const starterKey = await issueKey(store, starterAccount.id, 'demo (starter plan)', now);
  return { account, key, devices, starterAccount, starterKey, segmentCount };
}

async function issueKey(store: FleetHoursStore, accountId: number, label: string, now: number): Promise<string> {
  const key = generateApiKey();
  await store.createApiKey({ accountId, fingerprint: await fingerprintApiKey(key), label, expiresAt: null, now });
  return key;
}
