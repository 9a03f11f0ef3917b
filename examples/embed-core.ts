/**
 * Embedding the hours logic in your own backend, with no HTTP and no database: the core and its
 * in-memory store. Raw telemetry becomes engine segments (D2), then totals, a daily series across a
 * DST change, and the meter come out exact to the second.
 *
 * Run: node --import tsx examples/embed-core.ts
 */
import {
  createFleetHours,
  createMemoryStore,
  parseInstant,
  parseWindowQuery,
  telemetryToSegments,
  type TelemetryPoint,
} from '@fleet-hours/core';

const store = createMemoryStore();
const account = await store.createAccount({ name: 'Harbour Haulage', plan: 'business', now: parseInstant('2026-01-01T00:00:00Z') });
const truck = await store.createDevice({
  accountId: account.id,
  name: 'Truck 7',
  imei: '356307042441013',
  model: 'FMB920',
  timeZone: 'America/New_York',
});
if (!truck) throw new Error('The account was just created, so the device must be too');

// One report a minute: a night shift on the night the clocks go back (2026-11-01 is a 25-hour day).
const points: TelemetryPoint[] = [];
const shiftStart = parseInstant('2026-10-31T22:00:00-04:00');
for (let minute = 0; minute <= 8 * 60; minute += 1) {
  points.push({ time: shiftStart + minute * 60, ignition: minute < 8 * 60, speedKmh: minute % 60 < 45 ? 62 : 0 });
}
const summary = await store.importSegments({ deviceId: truck.id, segments: telemetryToSegments(points) });
console.log(`imported: ${JSON.stringify(summary)}`);

// A fixed clock keeps the output stable; a real backend passes Date.now.
const fleetHours = createFleetHours({ store, now: () => Date.parse('2026-11-10T12:00:00Z') });

// Dates are parsed once, at the edge (D7): a bad one throws InvalidParameterError naming it.
const window = parseWindowQuery({ from: '2026-10-31', to: '2026-11-01' });
const total = await fleetHours.hours({ accountId: account.id, deviceId: truck.id, ...window });
console.log(`total: ${JSON.stringify(total)}`);

const daily = await fleetHours.daily({ accountId: account.id, deviceId: truck.id, ...window });
for (const day of daily?.days ?? []) {
  console.log(`day ${day.date}: engine ${day.engineSeconds} s = moving ${day.movingSeconds} s + idle ${day.idleSeconds} s`);
}

const meter = await fleetHours.meter({ accountId: account.id, deviceId: truck.id });
console.log(`meter: ${JSON.stringify(meter)}`);
