import { createMemoryRateLimitStore, createMemoryStore, fingerprintApiKey, generateApiKey, generateIngestToken } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { CommandError } from '../cli/cli-errors.js';
import type { OpenedDatabase } from '../database/open-database.js';
import { createServerMetrics } from './server-metrics.js';
import { startServer } from './start-server.js';

const T0 = 1_767_225_600;

async function seededDatabase(): Promise<OpenedDatabase & { key: string; deviceId: number; accountId: number }> {
  const store = createMemoryStore();
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const device = (await store.createDevice({
    accountId: account.id,
    name: 'Truck 1',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: 'Europe/Berlin',
  }))!;
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
  return {
    target: { kind: 'pglite-memory' },
    store,
    rateLimitStore: createMemoryRateLimitStore(),
    close: async () => {},
    key,
    deviceId: device.id,
    accountId: account.id,
  };
}

/** The value of one sample line of the Prometheus text, or undefined when there is none. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{${labels}}`) || (labels === '' && each.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Prometheus metrics of the reference server (D30)', () => {
  it('counts requests and their latency by route template and status on a port of their own, never on the API port', async () => {
    const database = await seededDatabase();
    const server = await startServer({ database, port: 0, metricsPort: 0, log: () => {} });
    try {
      expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const auth = { Authorization: `Bearer ${database.key}` };
      for (let request = 0; request < 3; request += 1)
        await fetch(`${server.url}/api/v1/devices/${database.deviceId}/meter`, { headers: auth });
      await fetch(`${server.url}/api/v1/devices/999/meter`, { headers: auth });
      await fetch(`${server.url}/api/v1/devices`);
      await fetch(`${server.url}/healthz`);

      const scraped = await fetch(server.metricsUrl!);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('Content-Type')).toContain('text/plain');
      const text = await scraped.text();
      const meter = 'method="GET",route="/api/v1/devices/{id}/meter"';
      expect(sample(text, 'fleet_hours_http_requests_total', `${meter},status="200"`)).toBe(3);
      expect(sample(text, 'fleet_hours_http_requests_total', `${meter},status="404"`)).toBe(1);
      expect(sample(text, 'fleet_hours_http_requests_total', 'method="GET",route="/api/v1/devices",status="401"')).toBe(1);
      expect(sample(text, 'fleet_hours_http_requests_total', 'method="GET",route="/healthz",status="200"')).toBe(1);
      expect(sample(text, 'fleet_hours_http_request_duration_seconds_count', `${meter},status="200"`)).toBe(3);
      // No raw device id ever becomes a label.
      expect(text).not.toContain('/devices/999');
      expect(sample(text, 'fleet_hours_http_requests_in_flight', '')).toBe(0);
      expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="accepted"')).toBe(0);
      expect(text).toContain('process_cpu_user_seconds_total');

      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      expect((await fetch(server.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await server.close();
    }
    await expect(fetch(server.metricsUrl!)).rejects.toThrow();
  });

  it('counts requests in flight while the app works on them, and ingested points by outcome', async () => {
    const metrics = createServerMetrics();
    const first = metrics.requestStarted();
    const second = metrics.requestStarted();
    second();
    second();
    metrics.recordIngest({ accepted: 9_998, duplicates: 2 });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'fleet_hours_http_requests_in_flight', '')).toBe(1);
    expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="accepted"')).toBe(9_998);
    expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="duplicate"')).toBe(2);
    first();
    expect(sample(await metrics.registry.metrics(), 'fleet_hours_http_requests_in_flight', '')).toBe(0);
  });

  it("counts the points ingestion writes by outcome, through the app's onIngest: accepted, duplicate and ignored (D21, D30)", async () => {
    const database = await seededDatabase();
    const token = generateIngestToken();
    await database.store.createIngestToken({
      accountId: database.accountId,
      fingerprint: await fingerprintApiKey(token),
      label: null,
      expiresAt: null,
      now: T0,
    });
    const server = await startServer({ database, port: 0, metricsPort: 0, log: () => {}, now: () => (T0 + 3600) * 1000 });
    try {
      const auth = { Authorization: `Bearer ${token}` };
      const batch = JSON.stringify([
        { device_id: database.deviceId, time: T0 + 60, ignition: true, speed_kmh: 0 },
        { device_id: database.deviceId, time: T0 + 120, ignition: true, speed_kmh: 20 },
      ]);
      for (let send = 0; send < 2; send += 1) {
        const response = await fetch(`${server.url}/ingest/v1/telemetry`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: batch,
        });
        expect(response.status).toBe(200);
      }
      const ignored = await fetch(`${server.url}/ingest/osmand/${token}?id=350000000000001&speed=0&timestamp=${T0 + 180}`);
      expect(await ignored.json()).toMatchObject({ accepted: 0, ignored: 1 });

      const text = await (await fetch(server.metricsUrl!)).text();
      expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="accepted"')).toBe(2);
      expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="duplicate"')).toBe(2);
      expect(sample(text, 'fleet_hours_ingest_points_total', 'outcome="ignored"')).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('refuses a metrics port in use, naming --metrics-port, and leaves nothing listening', async () => {
    const first = await startServer({ database: await seededDatabase(), port: 0, metricsPort: 0, log: () => {} });
    try {
      const port = Number(new URL(first.metricsUrl!).port);
      const second = startServer({ database: await seededDatabase(), port: 0, metricsPort: port, log: () => {} });
      await expect(second).rejects.toBeInstanceOf(CommandError);
      await expect(second).rejects.toMatchObject({
        message: `Cannot listen on 127.0.0.1:${port}: the port is in use (choose another with --metrics-port)`,
      });
    } finally {
      await first.close();
    }
  });

  it('D41: counts webhook attempts by outcome, and reads the backlog of the outbox at each scrape', async () => {
    const metrics = createServerMetrics();
    let backlog = { pending: 0, oldestRaisedAt: null as number | null };
    metrics.watchWebhookBacklog(
      async () => backlog,
      () => (T0 + 90) * 1000,
    );
    const scrape = () => metrics.registry.metrics();
    expect(sample(await scrape(), 'fleet_hours_webhook_attempts_total', 'outcome="delivered"')).toBe(0);
    expect(sample(await scrape(), 'fleet_hours_webhook_oldest_pending_seconds', '')).toBe(0);
    metrics.recordWebhookAttempt('delivered');
    metrics.recordWebhookAttempt('retry');
    metrics.recordWebhookAttempt('retry');
    backlog = { pending: 3, oldestRaisedAt: T0 };
    const text = await scrape();
    expect(
      ['delivered', 'retry', 'failed'].map((outcome) => sample(text, 'fleet_hours_webhook_attempts_total', `outcome="${outcome}"`)),
    ).toEqual([1, 2, 0]);
    expect(sample(text, 'fleet_hours_webhook_pending', '')).toBe(3);
    expect(sample(text, 'fleet_hours_webhook_oldest_pending_seconds', '')).toBe(90);
  });
});
