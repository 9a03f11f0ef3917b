import { localDateAt, startOfLocalDay, type Device } from '@fleet-hours/core';
import { formatCount } from '../cli/format-table.js';
import { LIVE_INTERVAL_SECONDS, type LiveSeed } from './live-vehicles.js';
import type { DemoSeed } from './seed-demo.js';

/** A local day that is not 24 hours long. */
export interface TransitionDay {
  /** `YYYY-MM-DD`. */
  readonly date: string;
  /** Its real length in seconds, e.g. 82800 for a 23-hour day. */
  readonly seconds: number;
}

/**
 * The most recent local day within `days` before `now` whose length is not 24 hours (a DST change).
 *
 * @returns The day, or `null` when the zone had none in that time.
 */
export function latestTransitionDay(timeZone: string, now: number, days = 365): TransitionDay | null {
  let date = localDateAt(now, timeZone).subtract({ days: 1 });
  let next = startOfLocalDay(date.add({ days: 1 }), timeZone);
  for (let step = 0; step < days; step += 1) {
    const start = startOfLocalDay(date, timeZone);
    if (next - start !== 86_400) return { date: date.toString(), seconds: next - start };
    next = start;
    date = date.subtract({ days: 1 });
  }
  return null;
}

/** A ready command line with what it shows. */
export interface DemoExample {
  readonly title: string;
  readonly command: string;
}

/**
 * The `curl` lines the demo prints: every endpoint, on days that show why local days matter.
 *
 * @param input The server URL, the seed and *now*.
 * @returns The examples in the order printed.
 */
export function demoExamples(input: { readonly url: string; readonly seed: DemoSeed; readonly now: number }): DemoExample[] {
  const { url, seed, now } = input;
  const curl = (key: string, path: string) => `curl -s -H "Authorization: Bearer ${key}" "${url}${path}"`;
  const byZone = (timeZone: string): Device => seed.devices.find((device) => device.timeZone === timeZone) ?? seed.devices[0]!;
  const hoursLabel = (seconds: number) => `${seconds / 3600}-hour`;
  const hoursCount = (seconds: number) => `${seconds / 3600} hours`;

  const truck = byZone('America/New_York');
  const tug = byZone('Australia/Lord_Howe');
  const bakery = byZone('Europe/Berlin');
  const examples: DemoExample[] = [
    { title: 'Every vehicle of the account', command: curl(seed.key, '/api/v1/devices') },
    {
      title: `${truck.name}: engine, moving and idle seconds over the last 7 days`,
      command: curl(seed.key, `/api/v1/devices/${truck.id}/hours`),
    },
  ];
  const newYorkDay = latestTransitionDay(truck.timeZone, now);
  if (newYorkDay) {
    const from = shiftDate(newYorkDay.date, -3);
    const to = shiftDate(newYorkDay.date, 3);
    examples.push({
      title: `${truck.name}: per local day around ${newYorkDay.date}, a ${hoursLabel(newYorkDay.seconds)} day in New York`,
      command: curl(seed.key, `/api/v1/devices/${truck.id}/hours/daily?from=${from}&to=${to}`),
    });
  }
  const lordHoweDay = latestTransitionDay(tug.timeZone, now);
  if (lordHoweDay) {
    examples.push({
      title: `${tug.name}: ${lordHoweDay.date} on Lord Howe Island lasts ${hoursCount(lordHoweDay.seconds)} (a 30-minute DST shift)`,
      command: curl(seed.key, `/api/v1/devices/${tug.id}/hours?from=${lordHoweDay.date}&to=${lordHoweDay.date}`),
    });
  }
  const bakeryToday = localDateAt(now, bakery.timeZone);
  examples.push({
    title: `${bakery.name}: night rounds split at local midnight in Berlin, last 14 days`,
    command: curl(
      seed.key,
      `/api/v1/devices/${bakery.id}/hours/daily?from=${bakeryToday.subtract({ days: 14 }).toString()}&to=${bakeryToday.toString()}`,
    ),
  });
  examples.push({
    title: `${truck.name}: the running meter since the tracker was fitted, and the machine's own hour meter`,
    command: curl(seed.key, `/api/v1/devices/${truck.id}/meter`),
  });
  examples.push({
    title: 'The vehicles due soon or overdue for service, each with all its schedules',
    command: curl(seed.key, '/api/v1/service?status=due_soon,overdue'),
  });
  examples.push({ title: 'A starter-plan key: 403 plan_without_api_access', command: curl(seed.starterKey, '/api/v1/devices') });
  return examples;
}

/**
 * The lines the demo prints about its live vehicles: a meter to read twice, a ready `curl` that
 * sends a point to the native endpoint, and an OsmAnd URL (`docs/ingestion.md`).
 *
 * @param input The server URL, the API key, the live seed and *now* (the time of the sample point).
 * @returns The examples in the order printed.
 */
export function liveExamples(input: {
  readonly url: string;
  readonly key: string;
  readonly live: LiveSeed;
  readonly now: number;
}): DemoExample[] {
  const { url, key, live, now } = input;
  const [first, second] = live.devices as [Device, Device | undefined];
  const point = JSON.stringify({
    imei: first.imei,
    time: new Date(now * 1000).toISOString().replace('.000Z', 'Z'),
    ignition: true,
    speed_kmh: 42,
  });
  const examples: DemoExample[] = [
    {
      title: `${first.name} (live): the meter counts up; run it twice a few seconds apart`,
      command: `curl -s -H "Authorization: Bearer ${key}" "${url}/api/v1/devices/${first.id}/meter"`,
    },
    {
      title: `Send ${first.name} a point yourself (native NDJSON batch)`,
      command: `curl -s -X POST -H "Authorization: Bearer ${live.ingestToken}" -H "Content-Type: application/x-ndjson" --data-binary '${point}' "${url}/ingest/v1/telemetry"`,
    },
  ];
  if (second) {
    examples.push({
      title: `${second.name} over OsmAnd (open it in a browser, or point Traccar Client at ${url}/ingest/osmand/TOKEN)`,
      command: `curl -s "${url}/ingest/osmand/${live.ingestToken}?id=${second.imei}&lat=52.52&lon=13.405&speed=0&ignition=true"`,
    });
  }
  return examples;
}

/**
 * The text the demo prints once it is serving.
 *
 * @param input The URL, seed, examples, where the data lives and the time seeding took.
 * @returns Text ending with a newline.
 */
export function formatDemoBanner(input: {
  readonly url: string;
  readonly seed: DemoSeed;
  readonly examples: readonly DemoExample[];
  readonly dataDir: string | null;
  /** The file the request log goes to, when it goes to one. */
  readonly requestLog?: string | null;
  /** The live vehicles and their examples, when the demo feeds some. */
  readonly live?: { readonly seed: LiveSeed; readonly examples: readonly DemoExample[] };
  /** The webhook endpoint `--webhook-url` added, when it did. */
  readonly webhook?: { readonly url: string; readonly secret: string } | null;
}): string {
  const { url, seed, live } = input;
  const zones = seed.devices.map((device) => device.timeZone).join(', ');
  const liveLines = live
    ? [
        `  Live      ${live.seed.devices.map((device) => `${device.name} (device ${device.id}, IMEI ${device.imei})`).join(' and ')}:`,
        `            simulated trackers reporting every ${LIVE_INTERVAL_SECONDS} s through POST /ingest/v1/telemetry`,
        `  Ingest    ${live.seed.ingestToken}   (an ingest token: it writes telemetry, it cannot read)`,
      ]
    : [];
  return [
    '',
    `Fleet Hours demo is serving at ${url}`,
    '',
    `  Account   ${seed.account.id} "${seed.account.name}" (business plan): ${seed.devices.length + (live?.seed.devices.length ?? 0)} vehicles, ${formatCount(seed.segmentCount)} engine segments over the past year`,
    `  Zones     ${zones}`,
    `  API key   ${seed.key}`,
    `  Manage    ${seed.manageKey}   (an API key with the manage scope: in the fleet view it records services and readings, and edits schedules)`,
    ...liveLines,
    '',
    `Open ${url}/ in a browser for the fleet view (enter the key above), or ${url}/docs for the API reference.`,
    '',
    'Try:',
    ...input.examples.flatMap((example) => [`  # ${example.title}`, `  ${example.command}`, '']),
    ...(live ? ['Live telemetry:', ...live.examples.flatMap((example) => [`  # ${example.title}`, `  ${example.command}`, ''])] : []),
    input.dataDir === null
      ? 'The data lives in memory and is gone when the demo stops; every run starts fresh.'
      : `The data lives in ${input.dataDir}; use it later with: fleet-hours serve --data-dir ${input.dataDir}`,
    ...(input.requestLog
      ? [`Requests are logged to ${input.requestLog} (tail -f it to watch them); only server errors are printed here.`]
      : []),
    ...(input.webhook
      ? [
          `Webhooks: every event of the account is sent to ${input.webhook.url}; verify each with the secret ${input.webhook.secret}`,
          '(failed attempts are printed here).',
        ]
      : []),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

function shiftDate(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
