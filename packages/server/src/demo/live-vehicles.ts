import {
  createTelemetryWrites,
  fingerprintApiKey,
  generateIngestToken,
  type Account,
  type Device,
  type FleetHoursStore,
} from '@fleet-hours/core';
import { runSimulation, type SimulationFetch, type SimulationSummary } from '../simulate/run-simulation.js';
import { simulateVehicle } from '../simulate/vehicle-model.js';
import { demoVehicle, type DemoVehicle } from './demo-fleet.js';

/**
 * The demo's live vehicles: no imported history, only telemetry (D20), fed while the demo runs by
 * the simulator through the real ingestion endpoint, so their meters count up between two reads.
 */
export const LIVE_VEHICLES: readonly DemoVehicle[] = [
  demoVehicle(['Courier van L-1', '356307042441062', 'NY 7730-LV', 'Teltonika FMC130', 'America/New_York', 'day', 8_140]),
  demoVehicle(['Tow truck L-2', '861585040812392', 'B-FH 5150', 'Queclink GV350', 'Europe/Berlin', 'day']),
];

/** Seconds between a live vehicle's reports while its engine runs. */
export const LIVE_INTERVAL_SECONDS = 10;

/** What {@link seedLiveVehicles} created. */
export interface LiveSeed {
  readonly devices: readonly Device[];
  /** An ingest token of the account (D24), for the feed and for the reader's own curl. */
  readonly ingestToken: string;
  /** Telemetry points written as the vehicles' recent history. */
  readonly pointCount: number;
}

/**
 * Adds the {@link LIVE_VEHICLES} to the demo account with a few days of telemetry history (the
 * simulator's vehicle model, written through the core's telemetry writes, D20, D23), a reading of
 * the hour meter at the start of that history for those that have one (D38: the first one's counts
 * up live beside its meter; the second stays uncalibrated) and an ingest token.
 *
 * @param store The demo's store.
 * @param options The account, *now* (epoch seconds) and how many days of history (default 3).
 * @returns The devices, the token and how many points were written.
 */
export async function seedLiveVehicles(
  store: FleetHoursStore,
  options: { readonly account: Account; readonly now: number; readonly days?: number },
): Promise<LiveSeed> {
  const { account, now } = options;
  const days = options.days ?? 3;
  const devices: Device[] = [];
  const writes = createTelemetryWrites(store);
  let pointCount = 0;
  for (const [index, vehicle] of LIVE_VEHICLES.entries()) {
    const created = await store.createDevice({
      accountId: account.id,
      name: vehicle.name,
      imei: vehicle.imei,
      registration: vehicle.registration,
      model: vehicle.model,
      timeZone: vehicle.timeZone,
    });
    if (!created) throw new Error(`Could not create the live demo device "${vehicle.name}"`);
    // History up to a minute ago; the live feed takes over from now.
    const points = [
      ...simulateVehicle({
        seed: 1000 + index,
        vehicle: index,
        from: now - days * 86_400,
        until: now - 60,
        intervalSeconds: 60,
        timeZone: vehicle.timeZone,
        shiftStart: 'schedule',
      }),
    ].map((report) => ({ deviceId: created.id, time: report.time, ignition: report.ignition, speedKmh: report.speedKmh }));
    if (points.length > 0) await writes.telemetry({ accountId: account.id, points, now });
    pointCount += points.length;
    if (vehicle.hourMeterHours !== undefined) {
      await store.addHourMeterReading({
        deviceId: created.id,
        readAt: now - days * 86_400,
        readingSeconds: vehicle.hourMeterHours * 3600,
        now,
      });
    }
    devices.push((await store.findDevice({ accountId: account.id, deviceId: created.id })) ?? created);
  }
  const ingestToken = generateIngestToken();
  const fingerprint = await fingerprintApiKey(ingestToken);
  await store.createIngestToken({ accountId: account.id, fingerprint, label: 'demo live feed', expiresAt: null, now });
  return { devices, ingestToken, pointCount };
}

/** A running live feed: {@link LiveFeed.stop} ends it and resolves with what it sent. */
export interface LiveFeed {
  stop(): Promise<SimulationSummary>;
}

/**
 * Starts feeding the live vehicles over HTTP to the demo's own URL, through the native endpoint:
 * live timestamps, a shift starting now, no data gaps (so the meters keep counting).
 *
 * @param options The server URL, the ingest token, the devices, the clock and, for tests, a `fetch`.
 * @returns The feed, running until stopped.
 */
export function startLiveFeed(options: {
  readonly url: string;
  readonly ingestToken: string;
  readonly devices: readonly Device[];
  readonly now?: () => number;
  readonly fetch?: SimulationFetch;
}): LiveFeed {
  const stop = new AbortController();
  const running = runSimulation({
    url: options.url,
    token: options.ingestToken,
    protocol: 'native',
    devices: options.devices.map((device) => ({ name: device.name, imei: device.imei, deviceId: null })),
    seed: 2026,
    timing: { kind: 'realtime' },
    intervalSeconds: LIVE_INTERVAL_SECONDS,
    shiftStart: 'now',
    gapProbability: 0,
    concurrency: 1,
    signal: stop.signal,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    stop() {
      stop.abort();
      return running;
    },
  };
}
