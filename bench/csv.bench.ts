/**
 * The fleet daily export as CSV (D62, P117): 1,000 devices × 365 days over a memory store, through
 * one app (`app.request()`, no socket; limits out of the way). `Accept: text/csv` on
 * `/api/v1/hours/daily` streams every page in one answer; the bench reads it chunk by chunk and drops
 * each chunk, as a client writing to a file does, sampling the process's RSS at every chunk. Then
 * the same export read whole (`response.text()`), which is what building the file in memory costs.
 * The RSS of the seeded store is the baseline of both.
 *
 * The JS heap is sampled after a collection at each chunk (run with `node --expose-gc` for that; `npm run
 * bench` does not pass it, and the heap figure then includes garbage not yet collected).
 *
 * Prints figures; asserts nothing. Run: `npm run bench -- csv`. `CSV_BENCH_DEVICES` changes the fleet.
 */
import { performance } from 'node:perf_hooks';
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, type SegmentInput } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';

const DEVICES = Number(process.env.CSV_BENCH_DEVICES ?? 1000);
const DAYS = 365;
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'America/Los_Angeles', 'Australia/Sydney'];
const YEAR_START = Date.UTC(2025, 2, 1) / 1000;
const NOW = YEAR_START + DAYS * 86_400 + 3600;
const MIB = 1024 * 1024;

const store = createMemoryStore();
const account = await store.createAccount({ name: 'Export', plan: 'business', now: 0 });
const key = generateApiKey();
await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: 0 });
for (let index = 0; index < DEVICES; index += 1) {
  const device = (await store.createDevice({
    accountId: account.id,
    name: `Unit ${index}`,
    imei: `35${String(index).padStart(8, '0')}`,
    model: 'm',
    timeZone: ZONES[index % ZONES.length]!,
  }))!;
  // One shift a day: an hour idle, then five moving.
  const segments: SegmentInput[] = [];
  for (let day = 0; day < DAYS; day += 1) {
    const start = YEAR_START + day * 86_400 + 6 * 3600 + (index % 7) * 600;
    segments.push(
      { startedAt: start, endedAt: start + 3600, state: 'idle' },
      { startedAt: start + 3600, endedAt: start + 6 * 3600, state: 'moving' },
    );
  }
  await store.importSegments({ deviceId: device.id, segments });
}
const now = () => NOW * 1000;
const app = createFleetHoursApp({
  fleetHours: createFleetHours({ store, now }),
  now,
  logger: () => {},
  rateLimits: { fleetDaily: 1_000_000 },
});
const path = '/api/v1/hours/daily?from=2025-03-01&to=2026-02-28';
const request = () => app.request(path, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/csv' } });
const collect = () => (globalThis as { gc?: () => void }).gc?.();

async function streamed() {
  collect();
  const baseline = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = baseline;
  let heapPeak = heapBefore;
  let bytes = 0;
  let chunks = 0;
  const started = performance.now();
  const reader = (await request()).body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    chunks += 1;
    // Live memory, not garbage waiting for a collection: collected before each sample (with --expose-gc).
    collect();
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed);
  }
  return { ms: performance.now() - started, baseline, peak, bytes, chunks, heapBefore, heapPeak };
}

async function whole() {
  collect();
  const baseline = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const text = await (await request()).text();
  collect();
  const usage = process.memoryUsage();
  const peak = Math.max(baseline, usage.rss);
  const heapPeak = usage.heapUsed;
  return {
    ms: performance.now() - started,
    baseline,
    peak,
    heapBefore,
    heapPeak,
    bytes: Buffer.byteLength(text),
    rows: text.split('\r\n').length - 2,
  };
}

const first = await streamed();
const second = await streamed();
const buffered = await whole();
const mib = (value: number) => `${(value / MIB).toFixed(1)} MiB`;
console.log(`Fleet daily CSV export, ${DEVICES} devices × ${DAYS + 1} local dates (memory store, app.request()):`);
for (const [label, run] of [
  ['streamed, run 1', first],
  ['streamed, run 2', second],
] as const)
  console.log(
    `  ${label}: ${mib(run.bytes)} in ${run.chunks} chunks, ${(run.ms / 1000).toFixed(2)} s; RSS ${mib(run.baseline)} before, peak ${mib(run.peak)} (+${mib(run.peak - run.baseline)}); JS heap live at most +${mib(run.heapPeak - run.heapBefore)}`,
  );
console.log(
  `  read whole (response.text()): ${buffered.rows} rows, ${mib(buffered.bytes)}, ${(buffered.ms / 1000).toFixed(2)} s; RSS ${mib(buffered.baseline)} before, ${mib(buffered.peak)} after (+${mib(buffered.peak - buffered.baseline)}); JS heap live +${mib(buffered.heapPeak - buffered.heapBefore)}`,
);
