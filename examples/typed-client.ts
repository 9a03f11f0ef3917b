/**
 * The typed client: every call checked against the API's OpenAPI document, fleet pages walked
 * without handling cursors, a device created with a manage key. The client sends its requests
 * to an app in this process through its `fetch` option, so no port is opened; against a running
 * server, give its URL as `baseUrl` and leave `fetch` out.
 *
 * Run: node --import tsx examples/typed-client.ts
 */
import { createFleetHoursClient } from '@fleet-hours/client';
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, parseInstant } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';

const store = createMemoryStore();
const account = await store.createAccount({ name: 'Harbour Haulage', plan: 'business', now: 0 });
const manageKey = generateApiKey();
await store.createApiKey({
  accountId: account.id,
  fingerprint: await fingerprintApiKey(manageKey),
  label: 'example',
  expiresAt: null,
  now: 0,
  scope: 'manage',
});
// Three vehicles in Lisbon, each moving two hours on 4 May, then idle 10, 20 and 30 minutes.
for (const [at, name] of ['Truck 1', 'Truck 2', 'Truck 3'].entries()) {
  const device = await store.createDevice({
    accountId: account.id,
    name,
    imei: `35630704244101${at}`,
    model: 'FMB920',
    timeZone: 'Europe/Lisbon',
  });
  await store.importSegments({
    deviceId: device!.id,
    segments: [
      { startedAt: parseInstant('2026-05-04T08:00:00+01:00'), endedAt: parseInstant('2026-05-04T10:00:00+01:00'), state: 'moving' },
      { startedAt: parseInstant('2026-05-04T10:00:00+01:00'), endedAt: parseInstant(`2026-05-04T10:${at + 1}0:00+01:00`), state: 'idle' },
    ],
  });
}

const now = () => Date.parse('2026-05-10T00:00:00Z');
const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now }), now, logger: () => {} });
const fleet = createFleetHoursClient({
  baseUrl: 'http://fleet.internal',
  apiKey: manageKey,
  fetch: async (request) => {
    const response = await app.request(request);
    const key = request.headers.has('Idempotency-Key') ? ' (with an Idempotency-Key)' : '';
    console.log(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}${key} -> ${response.status}`);
    return response;
  },
});

// A typed call: the path, its parameters and the answer are those of the document.
const { data: hours } = await fleet.GET('/api/v1/devices/{id}/hours', {
  params: { path: { id: 1 }, query: { from: '2026-05-04', to: '2026-05-04' } },
});
console.log(`hours: ${JSON.stringify(hours)}`);

// Every vehicle, two a page: the walk asks for the next page while there is one.
for await (const total of fleet.items('/api/v1/hours', { params: { query: { from: '2026-05-04', to: '2026-05-04', limit: 2 } } })) {
  console.log(
    `device ${total.device_id}: engine ${total.engine_seconds} s = moving ${total.moving_seconds} s + idle ${total.idle_seconds} s`,
  );
}

// A write: a POST carries an Idempotency-Key the client makes, so that a retry never creates two devices.
const created = await fleet.POST('/api/v1/devices', {
  body: { name: 'Loader 4', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Lisbon' },
});
console.log(`created: ${JSON.stringify(created.data)}`);
