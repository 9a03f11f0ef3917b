import {
  BeyondRetentionError,
  FleetHoursError,
  formatInstant,
  InvalidTelemetryPointError,
  isFleetHoursError,
  UnknownDeviceError,
  type DeviceTelemetryPoint,
  type TelemetryPoint,
  type FleetHours,
  type TelemetryWriteResult,
} from '@fleet-hours/core';
import type { Context } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import type { IngestLimits } from './ingest-limits.js';
import { readLimitedBody } from '../request-body/read-limited-body.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from '../routes/account-id.js';

/**
 * The body of an ingestion request within its route's limits (size and deadline), read from Node's
 * own request stream when the app runs under `serve`.
 */
export function readIngestBody(c: Context<FleetHoursEnv>, limits: IngestLimits): Promise<string> {
  return readLimitedBody(c.req.raw, { maxBytes: limits.maxBodyBytes, timeoutMs: limits.bodyTimeoutMs }, c.env?.incoming);
}

/** What every ingestion route is made with (`createFleetHoursApp` passes the same to each). */
export interface IngestRouteOptions {
  readonly fleetHours: FleetHours;
  readonly limits: IngestLimits;
  readonly now: () => number;
  readonly onIngest?: OnIngest;
  /** D43: points older than this many days before now are refused (409 `beyond_retention`); 0 or unset keeps every point. */
  readonly retentionDays?: number;
}

/** The 200 body of every ingestion route that stored (or found already stored) its points. */
export interface IngestAnswer {
  readonly accepted: number;
  readonly duplicates: number;
  readonly devices: readonly { readonly device_id: number; readonly last_reported_at: string | null }[];
}

/** The 200 body of a position that carries no ignition (Traccar, OsmAnd): answered, not stored, so that it is not sent again. */
export interface IgnoredAnswer {
  readonly accepted: 0;
  readonly ignored: 1;
  readonly reason: string;
}

/** What one ingestion request did, as `createFleetHoursApp`'s `onIngest` hook receives it. */
export interface IngestOutcome {
  /** Points new or changed (D21). */
  readonly accepted: number;
  /** Points already stored as sent (D21). */
  readonly duplicates: number;
  /** Positions answered but not stored: a Traccar or OsmAnd position without ignition. */
  readonly ignored: number;
  /** The account written to, and the devices the write named (absent when nothing was stored): what a check of events looks at (D40). */
  readonly accountId?: number;
  readonly deviceIds?: readonly number[];
}

/** The hook of one app, if any: told of every ingestion request that was answered 200. */
export type OnIngest = ((outcome: IngestOutcome) => void) | undefined;

/**
 * Tells the hook what a request did, once it is committed (or ignored). A hook that throws never
 * fails a request whose points are already stored: its error is dropped, as the access log's is.
 */
export function reportIngest(onIngest: OnIngest, outcome: IngestOutcome): void {
  if (onIngest === undefined) return;
  try {
    onIngest(outcome);
  } catch {
    // Counting (metrics) must never turn a stored batch into a failed request, which would be retried.
  }
}

/** {@link reportIngest} of a stored write: its counts, its account and the devices it named. */
export function reportWritten(
  onIngest: OnIngest,
  accountId: number,
  answer: { readonly accepted: number; readonly duplicates: number; readonly devices: readonly { readonly device_id: number }[] },
): void {
  reportIngest(onIngest, {
    accepted: answer.accepted,
    duplicates: answer.duplicates,
    ignored: 0,
    accountId,
    deviceIds: answer.devices.map((device) => device.device_id),
  });
}

/**
 * Writes the one position of a forward (Traccar, OsmAnd) once it is read, with the others that
 * arrive meanwhile, and answers it: 200 with its share of the write.
 */
export async function answerPosition(
  c: Context<FleetHoursEnv>,
  options: IngestRouteOptions,
  position: { readonly imei: string; readonly point: TelemetryPoint; readonly now: number; readonly deviceField: string },
): Promise<Response> {
  const answer = await writePoints({
    fleetHours: options.fleetHours,
    accountId: accountId(c),
    points: [{ imei: position.imei, ...position.point }],
    now: position.now,
    positionOf: null,
    retentionDays: options.retentionDays,
    deviceField: position.deviceField,
  });
  reportWritten(options.onIngest, accountId(c), answer);
  return jsonResponse(c, answer);
}

/**
 * Writes points of the token's account through the core's writes (`fleetHours.writes`) — one
 * transaction, committed before this resolves, so a 2xx is only sent for durable points; a request
 * of one position shares its transaction with the positions that arrive meanwhile (P34) — and
 * builds the 200 body: the counts and each named device's `last_reported_at` as a D9 timestamp in
 * its zone. The refusals are named by the client's own positions: an unknown device is 422
 * `unknown_device` (D25, the same for a missing and a foreign device), a point too far ahead
 * 400 `invalid_body` (D26); an overlap with imported segments is the store's 409 `conflict`
 * naming the device and instant (D23); a point older than the retention horizon is 409
 * `beyond_retention` naming the point and the horizon: this server's own (D43), or the one the
 * database recorded when it dropped points (D45), both decided by the core's writes.
 */
export async function writePoints(input: {
  readonly fleetHours: FleetHours;
  readonly accountId: number;
  readonly points: readonly DeviceTelemetryPoint[];
  /** Epoch seconds. */
  readonly now: number;
  /** Names the point at a batch position (`line 3`, `index 2`), or `null` for a request of one position. */
  readonly positionOf: ((index: number) => string) | null;
  /** How the client named the device, for a request of one position: `device.uniqueId`. */
  readonly deviceField?: string;
  /** D43: days of telemetry the server keeps; 0 or `undefined`: every point. */
  readonly retentionDays?: number | undefined;
}): Promise<IngestAnswer> {
  const { fleetHours, accountId, points, now, positionOf, retentionDays } = input;
  const where = (index: number) => (positionOf === null ? '' : `${positionOf(index)}: `);
  let result: TelemetryWriteResult;
  try {
    const [single] = points;
    // One position (Traccar, OsmAnd): written with the others that arrive meanwhile.
    if (positionOf === null && points.length === 1 && single!.imei !== undefined)
      result = await fleetHours.writes.position({ accountId, point: { ...single!, imei: single!.imei }, now, retentionDays });
    else result = await fleetHours.writes.telemetry({ accountId, points, now, retentionDays });
  } catch (error) {
    if (
      error instanceof UnknownDeviceError ||
      (isFleetHoursError(error) && error.code === 'unknown_device' && typeof (error as { index?: unknown }).index === 'number')
    ) {
      const index = (error as UnknownDeviceError).index;
      const point = points[index];
      const named =
        input.deviceField !== undefined && point?.imei !== undefined
          ? `${input.deviceField} "${point.imei}" is not an active device of this account`
          : error.message;
      throw new FleetHoursError('unknown_device', { message: `${where(index)}${named}` });
    }
    if (error instanceof InvalidTelemetryPointError) {
      throw new FleetHoursError('invalid_body', { message: `${where(error.index ?? 0)}${error.message}` });
    }
    // D43 (this server's setting) or D45 (the horizon recorded in the data): named in the API's instant format.
    if (error instanceof BeyondRetentionError) {
      const why = error.keptDays === undefined ? 'points before it were dropped' : `telemetry is kept ${error.keptDays} days`;
      throw new FleetHoursError('beyond_retention', {
        message: `${where(error.index)}time ${formatInstant(error.time, 'UTC')} is older than the retention horizon ${formatInstant(error.horizon, 'UTC')} (${why}): nothing was written`,
      });
    }
    throw error;
  }
  const devices = result.devices.map(({ deviceId, lastReportedAt, timeZone }) => ({
    device_id: deviceId,
    last_reported_at: lastReportedAt === null ? null : formatInstant(lastReportedAt, timeZone),
  }));
  return { accepted: result.accepted, duplicates: result.duplicates, devices };
}
