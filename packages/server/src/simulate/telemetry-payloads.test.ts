import { describe, expect, it } from 'vitest';
import { knotsOf, nativeTelemetryLine, osmandParameters, storedPointOf, traccarForwardBody } from './telemetry-payloads.js';
import type { VehicleReport } from './vehicle-model.js';

const REPORT: VehicleReport = {
  vehicle: 0,
  time: 1_795_446_942, // 2026-11-23T15:15:42Z
  ignition: true,
  speedKmh: 42.6,
  latitude: 52.520008123,
  longitude: 13.404954456,
  course: 271,
  altitude: 41,
  valid: false,
  fixTime: 1_795_446_900,
  satellites: 2,
  engineSeconds: 3600,
  odometerMeters: 12_345,
  powerVolts: 14.1,
};
const TRUCK = { name: 'Truck 14', imei: '356307042441013', deviceId: null };

describe('telemetry payloads (docs/ingestion.md)', () => {
  it('nativeTelemetryLine() writes { imei | device_id, time, ignition, speed_kmh }, the time as ISO 8601 UTC', () => {
    expect(JSON.parse(nativeTelemetryLine(REPORT, TRUCK))).toEqual({
      imei: '356307042441013',
      time: '2026-11-23T15:15:42Z',
      ignition: true,
      speed_kmh: 42.6,
    });
    expect(JSON.parse(nativeTelemetryLine(REPORT, { ...TRUCK, deviceId: 4 }))).toEqual({
      device_id: 4,
      time: '2026-11-23T15:15:42Z',
      ignition: true,
      speed_kmh: 42.6,
    });
    expect(() => nativeTelemetryLine(REPORT, { name: 'Nobody', imei: null, deviceId: null })).toThrow(
      'Device "Nobody" has neither a device id nor an IMEI',
    );
  });

  it("traccarForwardBody() looks like Traccar's JSON forwarding: deviceTime, the last fix's fixTime, knots, ignition in attributes", () => {
    const body = traccarForwardBody(REPORT, TRUCK, { positionId: 7, deviceId: 3 }) as {
      position: Record<string, unknown> & { attributes: Record<string, unknown> };
      device: Record<string, unknown>;
    };
    expect(body.position).toMatchObject({
      id: 7,
      deviceId: 3,
      deviceTime: '2026-11-23T15:15:42.000+00:00',
      fixTime: '2026-11-23T15:15:00.000+00:00',
      valid: false,
      speed: knotsOf(42.6),
      latitude: 52.5200081,
      attributes: { ignition: true, motion: true, hours: 3_600_000, totalDistance: 12_345 },
    });
    expect(body.device).toMatchObject({ id: 3, uniqueId: '356307042441013', name: 'Truck 14', status: 'online' });
    expect(() => traccarForwardBody(REPORT, { name: 'By id', imei: null, deviceId: 4 }, { positionId: 1, deviceId: 1 })).toThrow(TypeError);
  });

  it('osmandParameters() sends id, timestamp in epoch milliseconds, lat, lon, speed in knots and ignition', () => {
    const parameters = osmandParameters({ ...REPORT, ignition: false, speedKmh: 0 }, TRUCK);
    expect(Object.fromEntries(parameters)).toMatchObject({
      id: '356307042441013',
      timestamp: '1795446942000',
      lat: '52.520008',
      lon: '13.404954',
      speed: '0',
      ignition: 'false',
    });
  });

  it('storedPointOf() is what the server stores: km/h as sent natively, knots × 1.852 for Traccar and OsmAnd', () => {
    expect(storedPointOf(REPORT, 'native')).toEqual({ time: REPORT.time, ignition: true, speedKmh: 42.6 });
    const viaKnots = storedPointOf(REPORT, 'osmand').speedKmh;
    expect(viaKnots).toBe(knotsOf(42.6) * 1.852);
    expect(Math.abs(viaKnots - 42.6)).toBeLessThan(0.0002);
    expect(knotsOf(18.52)).toBe(10);
  });
});
