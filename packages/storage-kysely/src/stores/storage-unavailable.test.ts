/**
 * D18: an unreachable database is a `StorageUnavailableError` (→ 503), never a hang or a crash,
 * and the same store works again once the database is back, without being re-created.
 */
import { StorageUnavailableError, type SegmentInput } from '@fleet-hours/core';
import { sql } from 'kysely';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createTestSchema, DATABASE_URL, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { eventually } from '../testing/fixture.js';
import { guard, isLostRace, isUnavailable, toStorageError } from './storage-error.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import { createPostgresDatabase } from '../dialect/create-postgres-database.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';
import { openStore } from './open-store.js';

const T0 = 1_767_225_600;
const SEGMENTS: SegmentInput[] = [{ startedAt: T0, endedAt: T0 + 60, state: 'idle' }];

/** Every kind of call the API and the CLI make, each of which must reject as unavailable. */
const everyCall = (store: KyselyFleetHoursStore) => [
  store.findApiKey({ fingerprint: 'a'.repeat(64) }),
  store.listDevices({ accountId: 1 }),
  store.findDevice({ accountId: 1, deviceId: 1 }),
  store.sumSegmentSeconds({ deviceId: 1, boundaries: [T0, T0 + 60], now: T0 }),
  store.summarizeDeviceSegments({ deviceId: 1, now: T0 }),
  store.importSegments({ deviceId: 1, segments: SEGMENTS }),
  store.consume({ key: 'key:1:/hours', windowStart: T0, windowSeconds: 60, limit: 30 }),
  // D58: the work calendars' reads and writes.
  store.findWorkCalendar({ accountId: 1, deviceId: 1 }),
  store.putWorkCalendar({ accountId: 1, deviceId: null, calendar: null }),
  store.ping(),
];

describe('an unreachable PostgreSQL server', () => {
  it('a refused connection rejects every call with StorageUnavailableError', async () => {
    const db = createPostgresDatabase({ connectionString: 'postgres://postgres@127.0.0.1:1/test', connectTimeout: 2 });
    try {
      const store = createKyselyStore(db);
      for (const outcome of await Promise.allSettled(everyCall(store))) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StorageUnavailableError);
        expect(((outcome as PromiseRejectedResult).reason as Error).message).toBe('Storage is unavailable (ECONNREFUSED)');
      }
      await expect(migrateToLatest(db)).rejects.toThrow(StorageUnavailableError);
    } finally {
      await db.destroy();
    }
  });

  it('a server that accepts but never answers fails after connectTimeout, as unavailable', async () => {
    const accepted = new Set<Socket>();
    const silent = await listen(createServer((socket) => void accepted.add(socket)));
    const db = createPostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port(silent)}/test`, connectTimeout: 1 });
    try {
      await expect(createKyselyStore(db).listDevices({ accountId: 1 })).rejects.toThrow(StorageUnavailableError);
    } finally {
      await db.destroy();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('openStore() rejects with StorageUnavailableError, saying why', async () => {
    const refusal = await openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/test' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StorageUnavailableError);
    expect((refusal as Error).message).toBe('Cannot migrate: the database is unavailable (ECONNREFUSED)');
  });
});

describe('a closed PGlite', () => {
  it('rejects every call with StorageUnavailableError', async () => {
    const db = await createPGliteDatabase();
    await migrateToLatest(db);
    const store = createKyselyStore(db);
    expect(await store.listDevices({ accountId: 1 })).toEqual([]);
    await db.destroy();
    for (const outcome of await Promise.allSettled(everyCall(store))) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StorageUnavailableError);
    }
  });
});

describeWithPostgres('recovery on the PostgreSQL server', () => {
  let server: TestPostgres;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await server?.drop();
  });

  const seededStore = async (connectionString: string, applicationName: string) => {
    server ??= await createTestSchema();
    // closeTimeout: postgres.js may wait for a connection broken mid-query until the timeout.
    const db = createPostgresDatabase({
      connectionString,
      schema: server.name,
      max: 3,
      connectTimeout: 2,
      closeTimeout: 0.2,
      applicationName,
    });
    cleanups.push(() => db.destroy());
    await migrateToLatest(db);
    return createKyselyStore(db);
  };

  it('a network outage is StorageUnavailableError, and the same store works again when the server is reachable again', async () => {
    const upstream = new URL(DATABASE_URL!);
    let proxy = await startProxy(upstream.hostname, Number(upstream.port || 5432));
    cleanups.push(() => proxy.stop());
    const viaProxy = new URL(DATABASE_URL!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const store = await seededStore(viaProxy.toString(), 'fleet-hours-outage-test');
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });

    await proxy.stop();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(store.findAccount({ accountId: account.id })).rejects.toThrow(StorageUnavailableError);
      await expect(store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 30 })).rejects.toThrow(StorageUnavailableError);
    }

    proxy = await startProxy(upstream.hostname, Number(upstream.port || 5432), proxy.port);
    expect(await eventually(() => store.findAccount({ accountId: account.id }))).toEqual(account);
    expect(await store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 30 })).toEqual({ count: 1, allowed: true });
  });

  it('connections terminated by the server (pg_terminate_backend) are replaced on the next calls', async () => {
    const applicationName = `fleet-hours-terminate-${process.pid}`;
    const store = await seededStore(DATABASE_URL!, applicationName);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await Promise.all([1, 2, 3].map(() => store.findAccount({ accountId: account.id }))); // open the whole pool

    const { rows } = await sql<{ terminated: boolean }>`
      select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = ${applicationName}`.execute(adminDb());
    expect(rows.length).toBeGreaterThan(0);

    // Each call either succeeds on a fresh connection or fails as unavailable; none hangs or fails otherwise.
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const outcome = await store.findAccount({ accountId: account.id }).then(
        (found) => found,
        (error: unknown) => error,
      );
      if (!(outcome instanceof StorageUnavailableError)) expect(outcome).toEqual(account);
    }
    expect(await store.findAccount({ accountId: account.id })).toEqual(account);
  });

  let admin: ReturnType<typeof createPostgresDatabase> | undefined;
  const adminDb = () => {
    admin ??= createPostgresDatabase({ connectionString: DATABASE_URL!, max: 1 });
    return admin;
  };
  afterAll(async () => {
    await admin?.destroy();
  });
});

describe('isUnavailable()', () => {
  it('recognises connection failures by code, SQLSTATE, cause and inner errors', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    // 57014 and DEADLINE_EXCEEDED: a call past its deadline (D28), cancelled by the server or given up by the client.
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'CONNECTION_CLOSED',
      'CONNECT_TIMEOUT',
      'PGLITE_CLOSED',
      '57P01',
      '08006',
      '53300',
      '57014',
      'DEADLINE_EXCEEDED',
    ]) {
      expect(isUnavailable(coded(code))).toBe(true);
    }
    expect(isUnavailable(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toBe(true);
    expect(isUnavailable(new AggregateError([coded('ECONNREFUSED')], 'all addresses failed'))).toBe(true);
    expect(isUnavailable(new Error('driver has already been destroyed'))).toBe(true);
  });

  it('leaves every other error alone: constraint violations, SQL errors, domain errors', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const code of ['23505', '42P01', '22008', '40001']) expect(isUnavailable(coded(code))).toBe(false);
    const range = new RangeError('Row 2: ended_at must be after started_at');
    expect(toStorageError(range)).toBe(range);
    expect(isUnavailable(null)).toBe(false);
  });
});

/** A TCP proxy on 127.0.0.1 to the test server: stopping it is a network outage. */
async function startProxy(host: string, targetPort: number, listenPort = 0): Promise<{ port: number; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await listen(server, listenPort);
  let stopped = false;
  return {
    port: port(server),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function listen(server: Server, listenPort = 0): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => resolve());
  });
  return server;
}

function port(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Not listening on TCP');
  return address.port;
}

describe('guard(): a lost race (D35)', () => {
  const lost = (code: string) => Object.assign(new Error('could not serialize access due to concurrent update'), { code });

  it('D35: an operation that lost a race (40001, 40P01) runs again and answers what its next run gives', async () => {
    let runs = 0;
    const answer = await guard(async () => {
      runs += 1;
      if (runs <= 2) throw lost(runs === 1 ? '40001' : '40P01');
      return 'written';
    });
    expect([answer, runs]).toEqual(['written', 3]);
    expect(isLostRace(new Error('wrapped', { cause: lost('40P01') }))).toBe(true);
    expect(isLostRace(lost('23505'))).toBe(false);
  });

  it('D35: one that keeps losing answers StorageUnavailableError (503 with Retry-After) within the deadline, never the raw error', async () => {
    vi.useFakeTimers();
    try {
      let runs = 0;
      const settled = guard(async () => {
        runs += 1;
        throw lost('40001');
      }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(5_200);
      const error = await settled;
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as Error).message).toBe('Storage is busy with concurrent writes of the same device (40001)');
      expect(runs).toBeGreaterThan(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it('any other error is not run again', async () => {
    let runs = 0;
    const error = await guard(async () => {
      runs += 1;
      throw lost('23505');
    }).catch((caught: unknown) => caught);
    expect([runs, (error as { code: string }).code]).toEqual([1, '23505']);
  });
});
