/**
 * Issue 34 (P119): points carry optional positions in every ingestion format — native
 * `latitude`/`longitude`, Traccar's `position.latitude`/`position.longitude`, OsmAnd's `lat`/`lon` —
 * each refused by its own name when bad; the device keeps the newest.
 */
import { describe, expect, it } from 'vitest';
import { createIngestFixture, type IngestFixture } from '../testing/ingest-fixture.js';

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;
const positionsOf = (fixture: IngestFixture, deviceId: number) => fixture.store.listDevicePositions({ deviceIds: [deviceId] });

const traccar = (fixture: IngestFixture, imei: string, time: number, position: Record<string, unknown>) =>
  fixture.app.request('/ingest/traccar', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.tokens.acme.token}` },
    body: JSON.stringify({
      position: { deviceTime: new Date(time * 1000).toISOString(), speed: 0, attributes: { ignition: true }, ...position },
      device: { uniqueId: imei },
    }),
  });
const osmand = (fixture: IngestFixture, imei: string, time: number, extra: Record<string, string>) =>
  fixture.app.request(
    `/ingest/osmand/${fixture.tokens.acme.token}?${String(new URLSearchParams({ id: imei, timestamp: String(time), speed: '0', ignition: 'true', ...extra }))}`,
  );

describe('positions on ingestion (issue 34)', () => {
  it('P119: native points keep the newest position by point time, not by arrival; a point without one changes nothing', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    const later = await fixture.sendBatch(
      fixture.ndjson(
        { device_id: idle.id, time: t + 60, ignition: true, speed_kmh: 0, latitude: 48.137154, longitude: 11.576124 },
        { device_id: idle.id, time: t + 120, ignition: true, speed_kmh: 0 },
      ),
    );
    expect(later.status).toBe(200);
    const earlier = await fixture.sendBatch([{ device_id: idle.id, time: t, ignition: true, speed_kmh: 0, latitude: -1, longitude: -2 }]);
    expect(earlier.status).toBe(200);
    expect(await positionsOf(fixture, idle.id!)).toEqual([{ deviceId: idle.id, time: t + 60, latitude: 48.137154, longitude: 11.576124 }]);
    // Points themselves keep no position.
    expect((await fixture.pointsOf(idle.id!))[0]).toEqual({ time: t, ignition: true, speedKmh: 0 });
  });

  it('P119: a bad native position is 400 naming the line and the field; nothing is stored', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    const cases: [Record<string, unknown>, string][] = [
      [{ latitude: 90.000001, longitude: 0 }, 'line 2: latitude must be a number from -90 to 90, got 90.000001'],
      [{ latitude: 0, longitude: '13.4' }, 'line 2: longitude must be a number from -180 to 180, got "13.4"'],
      [{ latitude: 10 }, 'line 2: longitude is missing: give latitude and longitude together'],
      [{ longitude: 10 }, 'line 2: latitude is missing: give latitude and longitude together'],
    ];
    for (const [position, message] of cases) {
      const response = await fixture.sendBatch(
        fixture.ndjson(
          { device_id: idle.id, time: t, ignition: true, speed_kmh: 0 },
          { device_id: idle.id, time: t + 1, ignition: true, speed_kmh: 0, ...position },
        ),
      );
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_body', message });
    }
    expect(await fixture.pointsOf(idle.id!)).toEqual([]);
    expect(await positionsOf(fixture, idle.id!)).toEqual([]);
  });

  it('P119: Traccar forwards keep position.latitude and position.longitude; a bad one is 400 naming position.latitude', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    expect((await traccar(fixture, idle.imei!, t, { latitude: 40.748817, longitude: -73.985428 })).status).toBe(200);
    expect(await positionsOf(fixture, idle.id!)).toEqual([{ deviceId: idle.id, time: t, latitude: 40.748817, longitude: -73.985428 }]);
    const bad = await traccar(fixture, idle.imei!, t + 60, { latitude: 'north', longitude: 0 });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toBe('position.latitude must be a number from -90 to 90, got "north"');
    const lone = await traccar(fixture, idle.imei!, t + 60, { longitude: 0 });
    expect((await errorOf(lone)).message).toBe('position.latitude is missing: give latitude and longitude together');
  });

  it('P119: OsmAnd keeps lat and lon; text that is no number, or a value out of range, is 400 naming lat or lon', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    expect((await osmand(fixture, idle.imei!, t, { lat: '52.52', lon: '13.405' })).status).toBe(200);
    expect((await osmand(fixture, idle.imei!, t + 30, { hdop: '0.9' })).status).toBe(200);
    expect(await positionsOf(fixture, idle.id!)).toEqual([{ deviceId: idle.id, time: t, latitude: 52.52, longitude: 13.405 }]);
    for (const [extra, message] of [
      [{ lat: 'abc', lon: '1' }, 'lat must be a number from -90 to 90, got "abc"'],
      [{ lat: '1', lon: '180.5' }, 'lon must be a number from -180 to 180, got 180.5'],
      [{ lat: '1' }, 'lon is missing: give latitude and longitude together'],
    ] as const) {
      const response = await osmand(fixture, idle.imei!, t + 60, extra);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).message).toBe(message);
    }
  });
});
