/**
 * D35 and D36 across a crash: a real `fleet-hours serve` process (on the PostgreSQL server of
 * DATABASE_URL when it is set, else on an embedded data directory) is killed with SIGKILL in the
 * middle of concurrent ingestion — clients posting native NDJSON batches, Traccar forwards and
 * OsmAnd positions to a few devices at once, each device written by two clients whose points
 * interleave in time. After a restart, every point whose request was answered 2xx is stored, and
 * `fleet-hours verify` finds every derived datum in agreement with its source (exit 0).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPGliteDatabase } from '@fleet-hours/storage-kysely';
import { sql } from 'kysely';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCli, runCliJson, startServe, type CliServer, type TestDatabase } from '../support/cli.js';

const adminUrl = process.env.DATABASE_URL;
const KMH_PER_KNOT = 1.852;
const CLIENTS = 6;

/** A point a client sent, by device and time. */
interface SentPoint {
  readonly device: number;
  readonly time: number;
  readonly ignition: boolean;
}

type Protocol = 'native' | 'traccar' | 'osmand';

describe(`D36 a serve process killed with SIGKILL during concurrent ingestion (${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-kill-'));
  const dataDir = join(work, 'data');
  let database: TestDatabase | null = null;
  let server: CliServer | null = null;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('D36: every point answered 2xx is stored after the restart, and fleet-hours verify exits 0', async () => {
    database = adminUrl ? await createTestDatabase(adminUrl) : null;
    const args = database ? ['--database-url', database.url] : ['--data-dir', dataDir];
    const cliJson = <T>(argv: readonly string[]) => runCliJson<T>([...argv, ...args], { cwd: work });
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const devices: { id: number; imei: string }[] = [];
    for (const imei of ['356307042441013', '356307042441021', '356307042441039']) {
      const created = await cliJson<{ id: number }>([
        'devices',
        'create',
        '--account',
        String(account.id),
        '--name',
        `Truck ${imei.slice(-2)}`,
        '--imei',
        imei,
        '--model',
        'FMB920',
        '--timezone',
        'Europe/Berlin',
      ]);
      devices.push({ id: created.id, imei });
    }
    const { token } = await cliJson<{ token: string }>(['ingest-tokens', 'create', '--account', String(account.id)]);
    server = await startServe([...args, '--rate-limit-ingest', '1000000'], { cwd: work });
    let url = server.url;

    // Each device is written by two clients of different protocols; a client's seconds are its own.
    const plan: readonly [Protocol, number][] = [
      ['native', 0],
      ['traccar', 0],
      ['native', 1],
      ['osmand', 1],
      ['traccar', 2],
      ['osmand', 2],
    ];
    const base = Math.floor(Date.now() / 1000) - 3 * 86_400;
    const acknowledged: SentPoint[] = [];
    const statuses = new Map<number, number>();
    let stopped = false;
    let inFlight = 0;
    const request = (protocol: Protocol, points: readonly SentPoint[]): Promise<Response> => {
      const knots = (time: number) => String(Math.round((((time * 7) % 50) / KMH_PER_KNOT) * 10_000) / 10_000);
      const iso = (time: number) => new Date(time * 1000).toISOString();
      const signal = AbortSignal.timeout(15_000);
      if (protocol === 'native') {
        const body = points
          .map((point) =>
            JSON.stringify({
              device_id: devices[point.device]!.id,
              time: iso(point.time),
              ignition: point.ignition,
              speed_kmh: (point.time * 7) % 50,
            }),
          )
          .join('\n');
        return fetch(`${url}/ingest/v1/telemetry`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
          body,
          signal,
        });
      }
      const [point] = points as [SentPoint];
      const imei = devices[point.device]!.imei;
      if (protocol === 'traccar') {
        const body = JSON.stringify({
          position: {
            deviceTime: iso(point.time),
            fixTime: iso(point.time),
            speed: Number(knots(point.time)),
            attributes: { ignition: point.ignition },
          },
          device: { uniqueId: imei },
        });
        return fetch(`${url}/ingest/traccar`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body,
          signal,
        });
      }
      const query = new URLSearchParams({
        id: imei,
        timestamp: String(point.time),
        speed: knots(point.time),
        ignition: String(point.ignition),
      });
      return fetch(`${url}/ingest/osmand/${token}?${query}`, { signal });
    };
    const client = async (index: number) => {
      const [protocol, device] = plan[index]!;
      for (let sequence = 0; !stopped; sequence += 1) {
        // Batches of 20 (native) or one position; the clients' seconds interleave, and each batch is sent newest first.
        const size = protocol === 'native' ? 20 : 1;
        const points = Array.from({ length: size }, (_, offset) => {
          const time = base + ((sequence * size + offset) * CLIENTS + index) * 11;
          return { device, time, ignition: (sequence * size + offset) % 13 !== 0 };
        }).reverse();
        inFlight += 1;
        try {
          const response = await request(protocol, points);
          inFlight -= 1;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.ok) acknowledged.push(...points);
          await response.arrayBuffer().catch(() => undefined);
        } catch {
          return; // the server is gone: the request's fate is unknown, so it is not counted
        }
      }
    };
    const clients = plan.map((_, index) => client(index));

    // Kill it while every client has a request in flight, once a few hundred points are stored.
    const deadline = Date.now() + 15_000;
    while (acknowledged.length < 400 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const inFlightAtKill = inFlight;
    const killed = await server.stop('SIGKILL');
    stopped = true;
    server = null;
    await Promise.all(clients);
    expect(killed.signal).toBe('SIGKILL');
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThanOrEqual(400);
    // A lost race is never a 500 (D35): every answer was 200, or a 503 that wrote nothing.
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);

    // The restarted server serves again (the embedded directory's lock of the killed process is taken over).
    server = await startServe(args, { cwd: work });
    url = server.url;
    const after = await request('native', [{ device: 0, time: base - 600, ignition: true }]);
    expect(after.status).toBe(200);
    acknowledged.push({ device: 0, time: base - 600, ignition: true });
    if (!database) {
      await server.stop(); // the embedded database takes one process at a time (P18)
      server = null;
    }

    const verify = await runCli(['verify', ...args], { cwd: work });
    expect(verify).toMatchObject({ code: 0, stderr: '', stdout: 'All derived data of 3 devices agrees with its sources.\n' });

    const stored = await storedPoints(database, dataDir);
    const missing = acknowledged.filter((point) => stored.get(`${devices[point.device]!.id}/${point.time}`) !== point.ignition);
    expect(missing).toEqual([]);
  }, 90_000);
});

/** Every stored point's ignition by `device_id/time`, read with SQL once no server holds an embedded directory. */
async function storedPoints(database: TestDatabase | null, dataDir: string): Promise<Map<string, boolean>> {
  const query = `select device_id, date_part('epoch', "time") as time, ignition from telemetry_points`;
  let rows: { device_id: number; time: number | string; ignition: boolean }[];
  if (database) {
    const client = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      rows = await client.unsafe(query);
    } finally {
      await client.end();
    }
  } else {
    const db = await createPGliteDatabase({ dataDir });
    try {
      rows = (await sql.raw<{ device_id: number; time: number; ignition: boolean }>(query).execute(db)).rows;
    } finally {
      await db.destroy();
    }
  }
  return new Map(rows.map((row) => [`${row.device_id}/${Number(row.time)}`, row.ignition]));
}
