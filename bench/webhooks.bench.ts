/**
 * Events and webhooks (D40, D41) on a PostgreSQL server (DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/test; skipped when it does not answer), in a fresh database:
 *
 *   1. Ingestion with an endpoint subscribed to every event vs none: single Traccar forwards
 *      (`POST /ingest/traccar`) of 200 devices at concurrency 16 to the reference server
 *      (`startServer` with webhooks on, as `fleet-hours serve` runs it), each device with a service
 *      schedule, so every write is followed by its check of events; positions/s of each, and the
 *      ratio (goal ≥ 0.9).
 *   2. Delivery throughput: 5,000 events in the outbox sent by one sender (`startWebhookSender`,
 *      default concurrency 32) to one endpoint of a local receiver: events/s (goal ≥ 500/s); with
 *      the share of 4 requests per endpoint (D47), then with a share of 32 (as before D47).
 *   3. Write to 2xx: events raised at 100 a second for 10 s with the sender running as in `serve`
 *      (looking every 250 ms when idle, and woken when its server raised events): p50 and p99 from
 *      the raise to the receiver's 2xx (goal p99 ≤ 1 s).
 *   4. A hanging endpoint beside a quick one (D47): 1,000 events queued for an endpoint that never
 *      answers, then another account's events raised at 10 a second for 20 s (past the hanging
 *      requests' 15 s timeout and their retries) with the sender running as in `serve`: p50 and
 *      p99 from the raise to the quick receiver's 2xx (goal p99 ≤ 2 s), and the requests the
 *      hanging endpoint got; once with the share of 4, once with a share as large as the sender's
 *      concurrency (as before D47).
 *
 * Run: `npm run bench -- webhooks` (builds first; imports the packages' dist). Prints figures;
 * asserts nothing. The load runs in this process, beside the server: the ratio of part 1 compares
 * two runs made the same way. The receiver runs in a child process.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { stealMeter, stealNote } from './_support.js';

const TRACCAR_DEVICES = 200;
const CONCURRENCY = 16;
const MEASURE_MS = 8_000;
const THROUGHPUT_EVENTS = 5_000;
const RATE = 100;
const RATE_SECONDS = 10;
const HANGING_EVENTS = 1_000;
const FAIR_RATE = 10;
const FAIR_SECONDS = 20;

const shown = (value: number) => value.toLocaleString('en-US');
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const admin = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
try {
  await admin`select 1`;
} catch {
  console.log(`webhooks: PostgreSQL server not reachable at ${adminUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
  await admin.end({ timeout: 1 });
  process.exit(0);
}
const { fingerprintApiKey, generateIngestToken, webhookBody } = await import('@fleet-hours/core');
const { startServer, startWebhookSender } = await import('@fleet-hours/server');
const { createKyselyStore, createPostgresDatabase, migrateToLatest } = await import('@fleet-hours/storage-kysely');

/**
 * A receiver answering 204 to everything, in a child process of its own (so the figures measure
 * the sender, not the receiver sharing its event loop); it reports when each id arrived, on a
 * clock shared by both processes (`performance.timeOrigin + performance.now()`).
 */
const RECEIVER = `
  const { createServer } = require('node:http');
  const arrived = [];
  const held = [];
  const server = createServer({ keepAliveTimeout: 30000 }, (incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      arrived.push([String(incoming.headers['webhook-id']), performance.timeOrigin + performance.now()]);
      if (process.env.HANG === '1') held.push(response);
      else response.writeHead(204).end();
    });
  });
  setInterval(() => { if (arrived.length > 0) process.send(arrived.splice(0)); }, 5).unref();
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

const clock = () => performance.timeOrigin + performance.now();

/** A receiver in a child process: answering 204 at once, or (`hang`) never answering. */
async function receiver(hang = false) {
  const arrived = new Map<string, number>();
  let requests = 0;
  const child = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, HANG: hang ? '1' : '0' },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (message: { port: number } | [string, number][]) => {
      if (Array.isArray(message)) {
        requests += message.length;
        for (const [id, at] of message) arrived.set(id, at);
      } else resolve(message.port);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/in`,
    arrived,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

async function freshDatabase(name: string) {
  const databaseName = `fh_bench_webhooks_${name}_${process.pid}`;
  await admin.unsafe(`create database ${databaseName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  const db = createPostgresDatabase({ connectionString: url.href, max: 10 });
  await migrateToLatest(db);
  return {
    url: url.href,
    db,
    store: createKyselyStore(db),
    drop: async () => {
      await db.destroy();
      await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    },
  };
}

/** Part 1: Traccar positions/s to a server with webhooks on, with or without an endpoint. */
async function ingestion(withEndpoint: boolean, receiverUrl: string): Promise<number> {
  const database = await freshDatabase(withEndpoint ? 'subscribed' : 'none');
  try {
    const { store } = database;
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
    const token = generateIngestToken();
    await store.createIngestToken({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(token),
      label: null,
      expiresAt: null,
      now,
    });
    const imeis = Array.from({ length: TRACCAR_DEVICES }, (_, index) => String(200_000_000_000_000 + index));
    for (const imei of imeis) {
      const device = (await store.createDevice({ accountId: account.id, name: `Truck ${imei}`, imei, model: 'FMB920', timeZone: 'UTC' }))!;
      await store.createServiceSchedule({
        deviceId: device.id,
        name: 'Oil',
        intervalSeconds: 250 * 3600,
        intervalDays: 180,
        lastDoneAt: now - 86_400,
        now,
      });
    }
    if (withEndpoint) {
      const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
      await store.createWebhookEndpoint({
        accountId: account.id,
        url: receiverUrl,
        eventTypes: ['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting'],
        secret,
        now,
      });
    }
    const unlimited = 1_000_000_000;
    const server = await startServer({
      database: { kind: 'postgres', url: database.url },
      port: 0,
      rateLimits: { ingest: unlimited, unauthenticated: unlimited },
      log: () => {},
      logEvent: () => {},
      webhooks: { allowPrivateAddresses: true },
    });
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const clock = imeis.map(() => now - 3 * 86_400);
    let cursor = 0;
    let positions = 0;
    let measuring = false;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const device = cursor++ % imeis.length;
        clock[device]! += 10;
        const body = JSON.stringify({
          position: { deviceTime: new Date(clock[device]! * 1000).toISOString(), speed: 20, attributes: { ignition: true } },
          device: { uniqueId: imeis[device] },
        });
        const status = await new Promise<number>((resolve, reject) => {
          const outgoing = request(
            `${server.url}/ingest/traccar`,
            { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
            (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode ?? 0));
            },
          );
          outgoing.on('error', reject);
          outgoing.end(body);
        });
        if (status === 200 && measuring) positions += 1;
      }
    };
    const loops = Array.from({ length: CONCURRENCY }, loop);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    measuring = false;
    const ms = performance.now() - started;
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    await server.close();
    return Math.round((positions / ms) * 1000);
  } finally {
    await database.drop();
  }
}

/** The events of parts 2 and 3, for one account. */
const eventsOf = (accountId: number, prefix: string, count: number, raisedAt: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: `evt_${prefix}_${index}`,
    accountId,
    type: 'device.silent' as const,
    deviceId: index,
    body: webhookBody({ type: 'device.silent', raisedAt, data: { device_id: index, device_name: `Truck ${index}` } }),
    raisedAt,
  }));

async function delivery(receiverState: Awaited<ReturnType<typeof receiver>>, perEndpoint: number) {
  const database = await freshDatabase(`delivery${perEndpoint}`);
  try {
    const { store } = database;
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
    await store.createWebhookEndpoint({
      accountId: account.id,
      url: receiverState.url,
      eventTypes: ['device.silent'],
      secret: `whsec_${Buffer.alloc(32, 4).toString('base64')}`,
      now,
    });
    const events = eventsOf(account.id, `throughput${perEndpoint}`, THROUGHPUT_EVENTS, now);
    for (let first = 0; first < events.length; first += 500) await store.raiseEvents({ events: events.slice(first, first + 500), now });
    const started = performance.now();
    const sender = startWebhookSender({ store, allowPrivateAddresses: true, pollIntervalMs: 250, perEndpoint });
    while (events.some((event) => !receiverState.arrived.has(event.id))) await new Promise((resolve) => setTimeout(resolve, 20));
    const throughput = Math.round((THROUGHPUT_EVENTS / (performance.now() - started)) * 1000);

    // Part 3: 100 events a second, the sender running as in serve.
    const raisedAt = new Map<string, number>();
    const paced = eventsOf(account.id, `paced${perEndpoint}`, RATE * RATE_SECONDS, now);
    const pacedStart = performance.now();
    for (const [index, event] of paced.entries()) {
      const due = pacedStart + (index * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      raisedAt.set(event.id, clock());
      await store.raiseEvents({ events: [event], now: Math.floor(Date.now() / 1000) });
      // As serve does after the check that follows a write raises events.
      sender.wake();
    }
    while (paced.some((event) => !receiverState.arrived.has(event.id))) await new Promise((resolve) => setTimeout(resolve, 20));
    await sender.close();
    const latencies = paced.map((event) => receiverState.arrived.get(event.id)! - raisedAt.get(event.id)!).sort((a, b) => a - b);
    return { throughput, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
  } finally {
    await database.drop();
  }
}

/** Part 4: another account's events while 1,000 wait for a hanging endpoint (D47). */
async function fairness(quick: Awaited<ReturnType<typeof receiver>>, perEndpoint: number) {
  const database = await freshDatabase(`fair${perEndpoint}`);
  const hanging = await receiver(true);
  try {
    const { store } = database;
    const now = Math.floor(Date.now() / 1000);
    const endpointOf = async (name: string, url: string) => {
      const account = await store.createAccount({ name, plan: 'business', now });
      const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
      await store.createWebhookEndpoint({ accountId: account.id, url, eventTypes: ['device.silent'], secret, now });
      return account.id;
    };
    const hangingAccount = await endpointOf('Hanging', hanging.url);
    const quickAccount = await endpointOf('Quick', quick.url);
    const queued = eventsOf(hangingAccount, `hanging${perEndpoint}`, HANGING_EVENTS, now);
    for (let first = 0; first < queued.length; first += 500) await store.raiseEvents({ events: queued.slice(first, first + 500), now });
    // As serve runs it: default concurrency (32) and timeout (15 s), looking every 250 ms when idle.
    const sender = startWebhookSender({ store, allowPrivateAddresses: true, pollIntervalMs: 250, perEndpoint });
    while (hanging.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const raisedAt = new Map<string, number>();
    const paced = eventsOf(quickAccount, `quick${perEndpoint}`, FAIR_RATE * FAIR_SECONDS, now);
    const pacedStart = performance.now();
    for (const [index, event] of paced.entries()) {
      const wait = pacedStart + (index * 1000) / FAIR_RATE - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      raisedAt.set(event.id, clock());
      await store.raiseEvents({ events: [event], now: Math.floor(Date.now() / 1000) });
      sender.wake();
    }
    // Whatever has not arrived 10 s after the last raise counts as not delivered.
    const deadline = performance.now() + 10_000;
    while (paced.some((event) => !quick.arrived.has(event.id)) && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const hangingRequests = hanging.requests();
    await hanging.close();
    await sender.close();
    const latencies = paced
      .map((event) => (quick.arrived.get(event.id) ?? Number.POSITIVE_INFINITY) - raisedAt.get(event.id)!)
      .sort((a, b) => a - b);
    const missing = latencies.filter((latency) => !Number.isFinite(latency)).length;
    return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), missing, hangingRequests };
  } finally {
    await hanging.close();
    await database.drop();
  }
}

const receiverState = await receiver();
try {
  console.log(
    `webhooks: PostgreSQL ${(await admin`select current_setting('server_version') as v`)[0]!.v}, server, sender and load in this process, the receiver in a child process`,
  );
  const steal1 = stealMeter();
  const none = await ingestion(false, receiverState.url);
  const subscribed = await ingestion(true, receiverState.url);
  console.log(
    `  ingestion, Traccar forwards of ${TRACCAR_DEVICES} devices at concurrency ${CONCURRENCY}, each with a schedule: ` +
      `no endpoint ${shown(none)} positions/s, an endpoint subscribed to every event ${shown(subscribed)} positions/s, ratio ${(subscribed / none).toFixed(2)} (goal ≥ 0.9)${stealNote(steal1)}`,
  );
  // Parts 2 and 3 with the share of 4 (D47: one endpoint gets 4 requests at once), then with a
  // share as large as the concurrency, the sender's speed before D47, measured in the same minutes.
  for (const perEndpoint of [4, 32]) {
    const steal2 = stealMeter();
    const { throughput, p50, p99 } = await delivery(receiverState, perEndpoint);
    console.log(
      `  delivery of ${shown(THROUGHPUT_EVENTS)} events to one local receiver, one sender at concurrency 32, ${perEndpoint} requests per endpoint: ${shown(throughput)} events/s (goal ≥ 500/s)${stealNote(steal2)}`,
    );
    console.log(
      `  raise to 2xx at ${RATE} events/s for ${RATE_SECONDS} s, ${perEndpoint} requests per endpoint: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (goal p99 ≤ 1,000 ms)`,
    );
  }
  for (const perEndpoint of [4, 32]) {
    const steal = stealMeter();
    const fair = await fairness(receiverState, perEndpoint);
    const shown99 = Number.isFinite(fair.p99) ? `${fair.p99.toFixed(0)} ms` : 'not delivered';
    console.log(
      `  ${shown(HANGING_EVENTS)} events queued for a hanging endpoint, another account's raised at ${FAIR_RATE}/s for ${FAIR_SECONDS} s, ` +
        `${perEndpoint} requests per endpoint: its raise to 2xx p50 ${Number.isFinite(fair.p50) ? fair.p50.toFixed(0) : '∞'} ms, p99 ${shown99}` +
        `${fair.missing > 0 ? ` (${fair.missing} of ${FAIR_RATE * FAIR_SECONDS} not delivered 10 s after the last raise)` : ''}; ` +
        `the hanging endpoint got ${fair.hangingRequests} requests (goal p99 ≤ 2,000 ms with 4)${stealNote(steal)}`,
    );
  }
} finally {
  await receiverState.close();
  await admin.end({ timeout: 1 });
}
