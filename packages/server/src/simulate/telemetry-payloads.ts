import type { TelemetryPoint } from '@fleet-hours/core';
import type { VehicleReport } from './vehicle-model.js';

/** How a simulated vehicle is known to the server: by its tracker id (D25) or its device id. */
export interface SimulatedDevice {
  /** Display name, sent by Traccar as `device.name`. */
  readonly name: string;
  /** The tracker id: the device's `imei`. Needed by the Traccar and OsmAnd protocols. */
  readonly imei: string | null;
  /** The device id; the native protocol sends it instead of `imei` when given. */
  readonly deviceId: number | null;
}

/** km/h per knot: Traccar and OsmAnd send speeds in knots (`docs/ingestion.md`). */
export const KMH_PER_KNOT = 1.852;

/**
 * The speed a report sends in knots, to four decimals, as trackers do.
 *
 * @param speedKmh Speed in km/h.
 * @returns Knots.
 */
export function knotsOf(speedKmh: number): number {
  return Math.round((speedKmh / KMH_PER_KNOT) * 10_000) / 10_000;
}

/**
 * One line of a native batch (`POST /ingest/v1/telemetry`, `application/x-ndjson`):
 * `{ device_id | imei, time, ignition, speed_kmh }`, the time as ISO 8601 UTC.
 *
 * @param report The report.
 * @param device Its device: `device_id` when it has one, else `imei`.
 * @returns The JSON text of the line, without the newline.
 * @throws {TypeError} When the device has neither.
 */
export function nativeTelemetryLine(report: Pick<VehicleReport, 'time' | 'ignition' | 'speedKmh'>, device: SimulatedDevice): string {
  const identity = device.deviceId !== null ? { device_id: device.deviceId } : device.imei !== null ? { imei: device.imei } : null;
  if (identity === null) throw new TypeError(`Device "${device.name}" has neither a device id nor an IMEI`);
  return JSON.stringify({ ...identity, time: _isoSeconds(report.time), ignition: report.ignition, speed_kmh: report.speedKmh });
}

/**
 * The body Traccar's JSON position forwarding posts to `POST /ingest/traccar`: one position and its
 * device, with the many fields a real Traccar server sends (only `deviceTime`, `fixTime`, `speed`
 * in knots, `attributes.ignition` and `device.uniqueId` matter to Fleet Hours; the rest is
 * ignored). Times look like Traccar's: `2026-11-23T15:15:42.000+00:00`.
 *
 * @param report The report.
 * @param device Its device; `imei` is `device.uniqueId`.
 * @param ids Traccar's own row ids of the position and the device.
 * @returns The JSON-ready object.
 * @throws {TypeError} When the device has no IMEI.
 */
export function traccarForwardBody(
  report: VehicleReport,
  device: SimulatedDevice,
  ids: { readonly positionId: number; readonly deviceId: number },
): Record<string, unknown> {
  if (device.imei === null) throw new TypeError(`Device "${device.name}" has no IMEI: Traccar names devices by uniqueId`);
  const serverTime = _traccarTime(report.time + 1);
  return {
    position: {
      id: ids.positionId,
      attributes: {
        priority: 0,
        sat: report.satellites,
        event: report.ignition ? 0 : 239,
        ignition: report.ignition,
        motion: report.speedKmh >= 5,
        rssi: 4,
        power: report.powerVolts,
        battery: 4.1,
        odometer: report.odometerMeters,
        distance: 0,
        totalDistance: report.odometerMeters,
        hours: report.engineSeconds * 1000,
      },
      deviceId: ids.deviceId,
      protocol: 'teltonika',
      serverTime,
      deviceTime: _traccarTime(report.time),
      fixTime: _traccarTime(report.fixTime),
      outdated: false,
      valid: report.valid,
      latitude: _round(report.latitude, 7),
      longitude: _round(report.longitude, 7),
      altitude: report.altitude,
      speed: knotsOf(report.speedKmh),
      course: report.course,
      address: null,
      accuracy: 0,
      network: null,
      geofenceIds: null,
    },
    device: {
      id: ids.deviceId,
      attributes: {},
      groupId: 0,
      calendarId: 0,
      name: device.name,
      uniqueId: device.imei,
      status: 'online',
      lastUpdate: serverTime,
      positionId: ids.positionId,
      phone: null,
      model: 'FMB920',
      contact: null,
      category: 'truck',
      disabled: false,
      expirationTime: null,
    },
  };
}

/**
 * The parameters an OsmAnd client (Traccar Client and many simple trackers) sends to
 * `GET|POST /ingest/osmand/{token}`: `id`, `timestamp` in epoch milliseconds, `lat`, `lon`, `speed`
 * in knots, `ignition`, and a few the server ignores.
 *
 * @param report The report.
 * @param device Its device; `imei` is `id`.
 * @returns The parameters, for a query string or a form body.
 * @throws {TypeError} When the device has no IMEI.
 */
export function osmandParameters(report: VehicleReport, device: SimulatedDevice): URLSearchParams {
  if (device.imei === null) throw new TypeError(`Device "${device.name}" has no IMEI: OsmAnd names devices by id`);
  return new URLSearchParams({
    id: device.imei,
    timestamp: String(report.time * 1000),
    lat: String(_round(report.latitude, 6)),
    lon: String(_round(report.longitude, 6)),
    speed: String(knotsOf(report.speedKmh)),
    bearing: String(report.course),
    altitude: String(report.altitude),
    accuracy: report.valid ? '5' : '50',
    hdop: report.valid ? '0.9' : '9.9',
    batt: '87',
    ignition: String(report.ignition),
  });
}

/**
 * The point the server stores from a report sent over `protocol` (D20): its time, ignition, and
 * speed as the server reads it (knots × 1.852 for Traccar and OsmAnd).
 *
 * @param report The report.
 * @param protocol The protocol it went over.
 * @returns The point.
 */
export function storedPointOf(
  report: Pick<VehicleReport, 'time' | 'ignition' | 'speedKmh'>,
  protocol: 'native' | 'traccar' | 'osmand',
): TelemetryPoint {
  const speedKmh = protocol === 'native' ? report.speedKmh : knotsOf(report.speedKmh) * KMH_PER_KNOT;
  return { time: report.time, ignition: report.ignition, speedKmh };
}

function _isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

function _traccarTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace('Z', '+00:00');
}

function _round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
