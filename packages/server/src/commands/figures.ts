import type { FleetHoursStore } from '@fleet-hours/core';
import type { DailyFiguresMismatch, KyselyFleetHoursStore } from '@fleet-hours/storage-kysely';
import { CommandError } from '../cli/cli-errors.js';
import { readId } from '../cli/option-values.js';
import { optionalOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `figures rebuild [--device ID]` → `{ rebuilt: [id…] }`: recomputes the per-day figures and
 * lifetime totals (D27) of one device or all from their segments, e.g. after writing segments
 * with SQL outside Fleet Hours.
 */
export async function rebuildFiguresCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readDevice(context);
  const db = await figuresDatabase(context);
  const { rebuildDailyFigures } = await import('@fleet-hours/storage-kysely');
  const { deviceIds } = await rebuildDailyFigures(db, deviceId === undefined ? {} : { deviceId });
  if (deviceId !== undefined && deviceIds.length === 0) throw new CommandError(`No device with id ${deviceId}`);
  return {
    json: { rebuilt: deviceIds },
    text: `Rebuilt the daily figures of ${deviceIds.length} device${deviceIds.length === 1 ? '' : 's'}${deviceIds.length > 0 ? ` (${deviceIds.join(', ')})` : ''}.\n`,
  };
}

/**
 * `figures verify [--device ID]` → `{ checked: [id…], mismatches: […] }`: compares the stored
 * figures (D27) with what the segments say and changes nothing. Exit code 1 when anything differs
 * (fix it with `figures rebuild`), 0 when everything matches.
 */
export async function verifyFiguresCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readDevice(context);
  const db = await figuresDatabase(context);
  const { verifyDailyFigures } = await import('@fleet-hours/storage-kysely');
  const { deviceIds, mismatches } = await verifyDailyFigures(db, deviceId === undefined ? {} : { deviceId });
  if (deviceId !== undefined && deviceIds.length === 0) throw new CommandError(`No device with id ${deviceId}`);
  const json = { checked: deviceIds, mismatches: mismatches.map(mismatchJson) };
  if (mismatches.length === 0) {
    return { json, text: `The daily figures of ${deviceIds.length} device${deviceIds.length === 1 ? '' : 's'} match their segments.\n` };
  }
  const devices = [...new Set(mismatches.map((mismatch) => mismatch.deviceId))];
  const lines = mismatches.map((mismatch) => `  ${describeMismatch(mismatch)}`);
  const text =
    `The daily figures of ${devices.length} of ${deviceIds.length} device${deviceIds.length === 1 ? '' : 's'} do not match their segments ` +
    `(${mismatches.length} difference${mismatches.length === 1 ? '' : 's'}):\n${lines.join('\n')}\n` +
    `Fix them with: fleet-hours figures rebuild${devices.length === 1 ? ` --device ${devices[0]}` : ''}\n`;
  return { json, text, exitCode: 1 };
}

/** `--device ID`, checked (exit 2 for a malformed id); `undefined` when not given. */
export function readDevice(context: CommandContext): number | undefined {
  const text = optionalOption(context, 'device');
  return text === undefined ? undefined : readId(text, '--device');
}

/** The Kysely database behind the store: the figures (and `verify`, D36) live only in the database stores. */
export async function figuresDatabase(context: CommandContext, what = 'Daily figures are kept'): Promise<KyselyFleetHoursStore['db']> {
  const store: FleetHoursStore & Partial<Pick<KyselyFleetHoursStore, 'db'>> = await context.store();
  if (store.db === undefined) throw new CommandError(`${what} by the database stores only; this store has none`);
  return store.db;
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');

/** A mismatch as `--json` prints it: instants as ISO 8601 UTC, seconds as numbers. */
function mismatchJson(mismatch: DailyFiguresMismatch): unknown {
  if (mismatch.kind === 'totals' || mismatch.kind === 'running_total') {
    const totals = (figure: typeof mismatch.expected) => ({ moving_seconds: figure.movingSeconds, idle_seconds: figure.idleSeconds });
    const day = mismatch.kind === 'running_total' ? { day_start: iso(mismatch.dayStart) } : {};
    return {
      device_id: mismatch.deviceId,
      kind: mismatch.kind,
      ...day,
      expected: totals(mismatch.expected),
      stored: totals(mismatch.stored),
    };
  }
  if (mismatch.kind !== 'day')
    return { device_id: mismatch.deviceId, kind: mismatch.kind, expected: mismatch.expected, stored: mismatch.stored };
  const day = (figure: typeof mismatch.expected) =>
    figure && {
      day_start: iso(figure.dayStart),
      day_end: iso(figure.dayEnd),
      moving_seconds: figure.movingSeconds,
      idle_seconds: figure.idleSeconds,
    };
  return {
    device_id: mismatch.deviceId,
    kind: 'day',
    day_start: iso(mismatch.dayStart),
    expected: day(mismatch.expected),
    stored: day(mismatch.stored),
  };
}

function describeMismatch(mismatch: DailyFiguresMismatch): string {
  const device = `device ${mismatch.deviceId}`;
  const seconds = (figure: { movingSeconds: number; idleSeconds: number } | null) =>
    figure === null ? 'no row' : `moving ${figure.movingSeconds} s, idle ${figure.idleSeconds} s`;
  switch (mismatch.kind) {
    case 'day':
      return `${device}, day from ${iso(mismatch.dayStart)}: segments say ${seconds(mismatch.expected)}, stored ${seconds(mismatch.stored)}`;
    case 'totals':
      return `${device}, lifetime totals: segments say ${seconds(mismatch.expected)}, stored ${seconds(mismatch.stored)}`;
    case 'time_zone':
      return `${device}, days cut in zone "${mismatch.stored ?? 'none'}" instead of "${mismatch.expected}"`;
    case 'running_total':
      return `${device}, day from ${iso(mismatch.dayStart)}: the days before it hold ${seconds(mismatch.expected)}, its running total says ${seconds(mismatch.stored)}`;
    case 'longest_segment':
      return `${device}, longest segment ${mismatch.expected} s but "longest_segment_seconds" is ${mismatch.stored}`;
  }
}
