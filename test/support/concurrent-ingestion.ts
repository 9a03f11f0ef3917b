/**
 * Concurrent ingestion as an operator runs it (D35): several clients send shuffled points of the
 * same few devices at once over HTTP — native batches of 1–500 points, Traccar forwards and OsmAnd
 * reports mixed, about one request in ten sent again — and the state they leave is compared with a
 * serial delivery of the requests that were answered 2xx, to devices of their own. Shared by
 * `test/concurrent-ingestion.test.ts` and the soak (`npm run soak`).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  createFleetHours,
  fingerprintApiKey,
  generateApiKey,
  telemetryToSegments,
  generateIngestToken,
  type FleetHoursStore,
  type RateLimitStore,
} from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';

/** A deterministic random source from a seed, so that a failing round can be run again. */
export { mulberry32 as randomFrom } from '@fleet-hours/server';

/** 2026-03-29T06:00:00Z: the data of the last six hours runs across London's spring-forward night. */
export const NOW = 1_774_764_000;
const ZONES = ['Europe/London', 'America/New_York', 'Asia/Kathmandu'] as const;

/** One ingestion request, for device number `device` of a set (the same request goes to either set). */
export type IngestRequest =
  | {
      readonly kind: 'native';
      readonly points: readonly { readonly device: number; readonly time: number; readonly ignition: boolean; readonly speedKmh: number }[];
    }
  | {
      readonly kind: 'traccar' | 'osmand';
      readonly device: number;
      readonly time: number;
      readonly ignition: boolean;
      readonly knots: number;
    };

/**
 * The requests of a round: points of `devices` devices over the last six hours, one every few
 * seconds with ignition and speed changing, split into native batches of 1–500 and single
 * positions, shuffled, about one in ten sent again.
 */
export function planRequests(random: () => number, options: { readonly devices: number; readonly points: number }): IngestRequest[] {
  const speed = () => [0, 2, 4.99, 5, 12, 60][Math.floor(random() * 6)]!;
  const points = Array.from({ length: options.points }, () => ({
    device: Math.floor(random() * options.devices),
    time: NOW - 6 * 3_600 + Math.floor(random() * 6 * 3_600),
    ignition: random() < 0.8,
    speedKmh: speed(),
  }));
  const requests: IngestRequest[] = [];
  for (let index = 0; index < points.length; ) {
    const roll = random();
    if (roll < 0.08) {
      const size = 1 + Math.floor(random() ** 3 * 500);
      requests.push({ kind: 'native', points: points.slice(index, index + size) });
      index += size;
    } else {
      const { device, time, ignition } = points[index]!;
      // Knots as a tracker sends them; whatever they make in km/h is stored alike on both sides.
      requests.push({ kind: roll < 0.54 ? 'traccar' : 'osmand', device, time, ignition, knots: Math.round(speed() * 10) / 10 });
      index += 1;
    }
  }
  const resent = requests.filter(() => random() < 0.1);
  const all = [...requests, ...resent];
  for (let index = all.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [all[index], all[other]] = [all[other]!, all[index]!];
  }
  return all;
}

/** An app over `store` with an account, an ingest token and an API key, and generous limits. */
export async function ingestionApp(store: FleetHoursStore & RateLimitStore) {
  const account = await store.createAccount({ name: 'Fleet', plan: 'business', now: NOW - 86_400 });
  const token = generateIngestToken();
  await store.createIngestToken({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(token),
    label: null,
    expiresAt: null,
    now: NOW - 86_400,
  });
  const key = generateApiKey();
  await store.createApiKey({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(key),
    label: null,
    expiresAt: null,
    now: NOW - 86_400,
  });
  const now = () => NOW * 1000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now }),
    rateLimitStore: store,
    rateLimits: { ingest: 1_000_000, hours: 1_000_000, daily: 1_000_000, meter: 1_000_000 },
    now,
    logger: () => {},
  });
  let imeis = 0;
  const run = String(process.pid).padStart(7, '0').slice(-7);
  /** `count` new devices, one per zone in turn. */
  const newDevices = async (count: number) =>
    Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const imei = `35${run}${String(++imeis).padStart(6, '0')}`;
        return (await store.createDevice({
          accountId: account.id,
          name: `Truck ${imei}`,
          imei,
          model: 'FMB920',
          timeZone: ZONES[index % ZONES.length]!,
        }))!;
      }),
    );

  /** Sends one request for the devices `devices`; its status. */
  const send = async (request: IngestRequest, devices: readonly { readonly imei: string }[]): Promise<number> => {
    const auth = { Authorization: `Bearer ${token}` };
    if (request.kind === 'native') {
      const body = request.points
        .map(({ device, time, ignition, speedKmh }) =>
          JSON.stringify({ imei: devices[device]!.imei, time: new Date(time * 1000).toISOString(), ignition, speed_kmh: speedKmh }),
        )
        .join('\n');
      return (
        await app.request('/ingest/v1/telemetry', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/x-ndjson' }, body })
      ).status;
    }
    const imei = devices[request.device]!.imei;
    if (request.kind === 'traccar') {
      const time = new Date(request.time * 1000).toISOString().replace('Z', '+00:00');
      const body = JSON.stringify({
        position: { deviceTime: time, fixTime: time, speed: request.knots, attributes: { ignition: request.ignition } },
        device: { uniqueId: imei },
      });
      return (await app.request('/ingest/traccar', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body }))
        .status;
    }
    const query = new URLSearchParams({
      id: imei,
      timestamp: String(request.time),
      speed: String(request.knots),
      ignition: String(request.ignition),
    });
    return (await app.request(`/ingest/osmand/${token}?${query}`)).status;
  };

  /** What the read API says of a device, and its points and segments. */
  const stateOf = async (deviceId: number) => {
    const read = async (path: string) => {
      const response = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
      const body = (await response.json()) as Record<string, unknown>;
      delete body['device_id'];
      return { status: response.status, body };
    };
    return {
      points: await store.listTelemetryPoints({ deviceId }),
      segments: (await store.listSegments({ deviceId })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
      hours: await read(`/api/v1/devices/${deviceId}/hours?from=2026-03-27&to=2026-03-29`),
      daily: await read(`/api/v1/devices/${deviceId}/hours/daily?from=2026-03-27&to=2026-03-29`),
      meter: await read(`/api/v1/devices/${deviceId}/meter`),
      lastReportedAt: (await store.findDevice({ accountId: account.id, deviceId }))!.lastReportedAt,
    };
  };

  return { app, account, store, newDevices, send, stateOf };
}

/** What a round did: statuses by count, and the devices of each side. */
export interface RoundOutcome {
  readonly requests: number;
  readonly statuses: ReadonlyMap<number, number>;
  readonly concurrent: readonly { readonly id: number; readonly imei: string }[];
  readonly serial: readonly { readonly id: number; readonly imei: string }[];
}

/**
 * One round: `requests` sent by `clients` concurrent clients to new devices, then the requests that
 * were answered 2xx sent one after another to another set of new devices.
 */
export async function runRound(
  ingestion: Awaited<ReturnType<typeof ingestionApp>>,
  requests: readonly IngestRequest[],
  options: { readonly devices: number; readonly clients: number },
): Promise<RoundOutcome> {
  const concurrent = await ingestion.newDevices(options.devices);
  const statuses = new Array<number>(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (next < requests.length) {
        const index = next++;
        statuses[index] = await ingestion.send(requests[index]!, concurrent);
      }
    }),
  );
  const serial = await ingestion.newDevices(options.devices);
  for (const [index, request] of requests.entries())
    if (statuses[index]! >= 200 && statuses[index]! < 300) await ingestion.send(request, serial);
  const counted = new Map<number, number>();
  for (const status of statuses) counted.set(status, (counted.get(status) ?? 0) + 1);
  return { requests: requests.length, statuses: counted, concurrent, serial };
}

/** What {@link checkRound} found: each difference in words (none: the round was exact), and how much it compared. */
export interface RoundCheck {
  readonly problems: readonly string[];
  readonly points: number;
  readonly segments: number;
  readonly days: number;
}

/**
 * Compares what a round left (D35): only 200, or 503 for a write that could not finish within its
 * deadline (it writes nothing); each device's segments are its points' (D2); and each device's
 * points, segments, read API answers and `last_reported_at` equal those of the serial delivery.
 */
export async function checkRound(ingestion: Awaited<ReturnType<typeof ingestionApp>>, round: RoundOutcome): Promise<RoundCheck> {
  const problems: string[] = [];
  for (const [status, count] of round.statuses) if (status !== 200 && status !== 503) problems.push(`${count} answered ${status}`);
  let points = 0;
  let segments = 0;
  let days = 0;
  for (const [index, device] of round.concurrent.entries()) {
    const state = await ingestion.stateOf(device.id);
    points += state.points.length;
    segments += state.segments.length;
    days += ((state.daily.body['data'] as unknown[] | undefined) ?? []).length;
    if (!isDeepStrictEqual(state.segments, telemetryToSegments(state.points)))
      problems.push(`device ${device.id}: segments differ from its points'`);
    if (!isDeepStrictEqual(state, await ingestion.stateOf(round.serial[index]!.id))) {
      problems.push(`device ${device.id}: state differs from the serial delivery`);
    }
  }
  return { problems, points, segments, days };
}
