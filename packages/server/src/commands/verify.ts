import type { BucketSeconds } from '@fleet-hours/core';
import type { DeviceVerification, StoreDifference, VerifyStoreResult } from '@fleet-hours/storage-kysely';
import { CommandError } from '../cli/cli-errors.js';
import { figuresDatabase, readDevice } from './figures.js';
import type { CommandContext, CommandResult } from './command-context.js';

/**
 * `verify [--device ID] [--repair]` (D36): checks every derived datum of every device (or one)
 * against its source with `verifyStore` — telemetry segments against the points, figures, totals
 * and the longest segment against the segments, `last_reported_at` against the newest point or
 * imported instant. Exit 0 when all agree, 1 with a report naming each device, what differs and by
 * how many seconds. With `--repair`, rebuilds what differs (each device under its row lock, while
 * servers keep running), reports what it repaired, verifies again, and exits 0 when that is clean.
 *
 * `--json`: `{ checked, consistent, devices }` (the devices that differ, each with its
 * `differences` and `omitted`), and with `--repair` also `repaired` (the same shape: what was
 * found and rebuilt); `devices` is then what still differs after the repair.
 */
export async function verifyCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readDevice(context);
  const repair = context.options.repair === true;
  const db = await figuresDatabase(context, 'Verification');
  const { verifyStore } = await import('@fleet-hours/storage-kysely');
  const scope = deviceId === undefined ? {} : { deviceId };
  const first = await verifyStore(db, { ...scope, repair });
  if (deviceId !== undefined && first.checked === 0) throw new CommandError(`No device with id ${deviceId}`);
  // After a repair, verify again: the exit code says whether the repair made the store clean.
  const final: VerifyStoreResult =
    repair && first.devices.length > 0 ? await verifyStore(db, scope) : repair ? { checked: first.checked, devices: [] } : first;
  const consistent = final.devices.length === 0;
  const json = {
    checked: final.checked,
    consistent,
    ...(repair ? { repaired: first.devices.map(deviceJson) } : {}),
    devices: final.devices.map(deviceJson),
  };
  const lines: string[] = [];
  if (repair && first.devices.length > 0)
    lines.push(...reportLines(`Repaired ${plural(first.devices.length, 'device')} of ${first.checked}`, first.devices));
  if (consistent) lines.push(`All derived data of ${plural(final.checked, 'device')} agrees with its sources.`);
  else {
    const still = repair ? ' still' : '';
    lines.push(
      ...reportLines(`${final.devices.length} of ${plural(final.checked, 'device')}${still} differ from their sources`, final.devices),
    );
    if (!repair)
      lines.push(`Repair with: fleet-hours verify --repair${final.devices.length === 1 ? ` --device ${final.devices[0]!.deviceId}` : ''}`);
  }
  return { json, text: `${lines.join('\n')}\n`, exitCode: consistent ? 0 : 1 };
}

function reportLines(heading: string, devices: readonly DeviceVerification[]): string[] {
  const count = devices.reduce((sum, device) => sum + device.differences.length + device.omitted, 0);
  const lines = [`${heading} (${plural(count, 'difference')}):`];
  for (const device of devices) {
    for (const difference of device.differences) lines.push(`  device ${device.deviceId}, ${describe(difference)}`);
    if (device.omitted > 0) lines.push(`  device ${device.deviceId}, ${plural(device.omitted, 'more difference')} not listed`);
  }
  return lines;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');

const seconds = (figure: BucketSeconds | null) =>
  figure === null ? 'no row' : `moving ${figure.movingSeconds} s, idle ${figure.idleSeconds} s`;

/** `+N s` / `-N s`: how much the stored side holds beyond (or short of) its source. */
const signed = (value: number) => `${value >= 0 ? '+' : '-'}${Math.abs(value)} s`;

function bucketGap(expected: BucketSeconds | null, stored: BucketSeconds | null): string {
  const engine = (figure: BucketSeconds | null) => (figure === null ? 0 : figure.movingSeconds + figure.idleSeconds);
  return `stored ${signed(engine(stored) - engine(expected))}`;
}

/** One difference as a line of text: what differs and by how many seconds. */
function describe(difference: StoreDifference): string {
  switch (difference.kind) {
    case 'telemetry_segments':
      return (
        `telemetry segments ${iso(difference.start)} to ${iso(difference.end)}: points say ${seconds(difference.expected)}, ` +
        `stored ${seconds(difference.stored)} (${bucketGap(difference.expected, difference.stored)})`
      );
    case 'day':
      return `day from ${iso(difference.dayStart)}: segments say ${seconds(difference.expected)}, stored ${seconds(difference.stored)} (${bucketGap(difference.expected, difference.stored)})`;
    case 'totals':
      return `lifetime totals: segments say ${seconds(difference.expected)}, stored ${seconds(difference.stored)} (${bucketGap(difference.expected, difference.stored)})`;
    case 'time_zone':
      return `days cut in zone "${difference.stored ?? 'none'}" instead of "${difference.expected}"`;
    case 'running_total':
      return `day from ${iso(difference.dayStart)}: the days before it hold ${seconds(difference.expected)}, its running total says ${seconds(difference.stored)} (${bucketGap(difference.expected, difference.stored)})`;
    case 'longest_segment':
      return `longest segment ${difference.expected} s but longest_segment_seconds is ${difference.stored} (${signed(difference.stored - difference.expected)})`;
    case 'last_reported_at': {
      const want = difference.expected === null ? 'none' : iso(difference.expected);
      const have = difference.stored === null ? 'none' : iso(difference.stored);
      const gap = difference.expected !== null && difference.stored !== null ? ` (${signed(difference.stored - difference.expected)})` : '';
      return `last_reported_at ${have}, newest point or imported instant ${want}${gap}`;
    }
  }
}

function deviceJson(device: DeviceVerification): unknown {
  return { device_id: device.deviceId, differences: device.differences.map(differenceJson), omitted: device.omitted };
}

const bucketJson = (figure: BucketSeconds | null) => figure && { moving_seconds: figure.movingSeconds, idle_seconds: figure.idleSeconds };

/** Stored minus expected, per state: how many seconds the stored side holds beyond its source. */
function bucketDifference(expected: BucketSeconds | null, stored: BucketSeconds | null) {
  return {
    moving_seconds: (stored?.movingSeconds ?? 0) - (expected?.movingSeconds ?? 0),
    idle_seconds: (stored?.idleSeconds ?? 0) - (expected?.idleSeconds ?? 0),
  };
}

/** A difference as `--json` prints it: instants as ISO 8601 UTC, seconds as numbers, `difference` = stored − expected. */
function differenceJson(difference: StoreDifference): unknown {
  switch (difference.kind) {
    case 'telemetry_segments':
    case 'totals': {
      const range = difference.kind === 'totals' ? {} : { start: iso(difference.start), end: iso(difference.end) };
      return {
        kind: difference.kind,
        ...range,
        expected: bucketJson(difference.expected),
        stored: bucketJson(difference.stored),
        difference: bucketDifference(difference.expected, difference.stored),
      };
    }
    case 'day': {
      const day = (figure: typeof difference.expected) =>
        figure && { day_start: iso(figure.dayStart), day_end: iso(figure.dayEnd), ...bucketJson(figure) };
      return {
        kind: 'day',
        day_start: iso(difference.dayStart),
        expected: day(difference.expected),
        stored: day(difference.stored),
        difference: bucketDifference(difference.expected, difference.stored),
      };
    }
    case 'running_total':
      return {
        kind: difference.kind,
        day_start: iso(difference.dayStart),
        expected: bucketJson(difference.expected),
        stored: bucketJson(difference.stored),
        difference: bucketDifference(difference.expected, difference.stored),
      };
    case 'time_zone':
      return { kind: difference.kind, expected: difference.expected, stored: difference.stored };
    case 'longest_segment':
      return {
        kind: difference.kind,
        expected: difference.expected,
        stored: difference.stored,
        difference_seconds: difference.stored - difference.expected,
      };
    case 'last_reported_at': {
      const gap = difference.expected !== null && difference.stored !== null ? difference.stored - difference.expected : null;
      const at = (instant: number | null) => (instant === null ? null : iso(instant));
      return { kind: difference.kind, expected: at(difference.expected), stored: at(difference.stored), difference_seconds: gap };
    }
  }
}
