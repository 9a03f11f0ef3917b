/**
 * Mounting the Fleet Hours API inside an existing Hono application, next to your own routes, with
 * your own store. Requests go through `app.request()`, so no port is opened.
 *
 * Run: node --import tsx examples/mount-in-hono.ts
 */
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, parseInstant } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { Hono } from 'hono';

const store = createMemoryStore();
const account = await store.createAccount({ name: 'Harbour Haulage', plan: 'business', now: 0 });
const apiKey = generateApiKey();
await store.createApiKey({
  accountId: account.id,
  fingerprint: await fingerprintApiKey(apiKey),
  label: 'example',
  expiresAt: null,
  now: 0,
});
const device = await store.createDevice({
  accountId: account.id,
  name: 'Excavator 2',
  imei: '356307042441014',
  model: 'FMC130',
  timeZone: 'Asia/Kathmandu',
});
await store.importSegments({
  deviceId: device!.id,
  segments: [
    { startedAt: parseInstant('2026-05-04T07:00:00+05:45'), endedAt: parseInstant('2026-05-04T09:30:00+05:45'), state: 'moving' },
    { startedAt: parseInstant('2026-05-04T09:30:00+05:45'), endedAt: parseInstant('2026-05-04T10:00:00+05:45'), state: 'idle' },
  ],
});

const now = () => Date.parse('2026-05-10T00:00:00Z');
const fleetHoursApi = createFleetHoursApp({ fleetHours: createFleetHours({ store, now }), now, logger: () => {} });

// Your application, with routes of its own; the Fleet Hours routes live under /api/v1.
const app = new Hono();
app.get('/health', (c) => c.json({ ok: true }));
app.route('/', fleetHoursApi);

const headers = { Authorization: `Bearer ${apiKey}` };
console.log(`GET /health -> ${JSON.stringify(await (await app.request('/health')).json())}`);
const devices = await app.request('/api/v1/devices', { headers });
console.log(`GET /api/v1/devices -> ${devices.status} ${JSON.stringify(await devices.json())}`);
const hours = await app.request(`/api/v1/devices/${device!.id}/hours?from=2026-05-04&to=2026-05-04`, { headers });
console.log(
  `GET /hours -> ${hours.status} limit=${hours.headers.get('X-RateLimit-Limit')} remaining=${hours.headers.get('X-RateLimit-Remaining')} ${JSON.stringify(await hours.json())}`,
);
const missing = await app.request('/api/v1/devices/999/meter', { headers });
console.log(`GET /api/v1/devices/999/meter -> ${missing.status} ${JSON.stringify(await missing.json())}`);
