/**
 * D43 on every ingestion route: with a retention of N days, a point older than N days before now
 * is answered 409 `beyond_retention`, the message naming the point and the horizon, and nothing of
 * its request is written; a point at the horizon or later is stored as usual.
 *
 * D45: a server without the setting still refuses a point before the horizon its store recorded
 * (the store's `BeyondRetentionError`, here from a store that stands for a database with a recorded
 * horizon), the same 409 naming the request's own position.
 */
import { BeyondRetentionError, formatInstant, type FleetHoursStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import { createIngestFixture } from '../testing/ingest-fixture.js';

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { status: number; code: string; message: string } }).error;

const DAYS = 30;

describe('D43, P47: points older than the retention horizon, on every ingestion route', () => {
  it('native batch: 409 beyond_retention naming the line and the horizon; nothing of the batch is written', async () => {
    const fixture = await createIngestFixture({ telemetryRetentionDays: DAYS });
    const horizon = fixture.nowSeconds - DAYS * 86_400;
    const imei = fixture.devices.idle.imei;
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
    const response = await fixture.sendBatch(
      fixture.ndjson(
        { imei, time: iso(horizon + 60), ignition: true, speed_kmh: 20 },
        { imei, time: iso(horizon - 1), ignition: true, speed_kmh: 20 },
      ),
    );
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toEqual({
      status: 409,
      code: 'beyond_retention',
      message: `line 2: time ${formatInstant(horizon - 1, 'UTC')} is older than the retention horizon ${formatInstant(horizon, 'UTC')} (telemetry is kept ${DAYS} days): nothing was written`,
    });
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);

    // At the horizon and after: stored.
    const stored = await fixture.sendBatch([{ imei, time: iso(horizon), ignition: true, speed_kmh: 20 }]);
    expect(stored.status).toBe(200);
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([{ time: horizon, ignition: true, speedKmh: 20 }]);
  });

  it('Traccar: 409 beyond_retention, nothing written', async () => {
    const fixture = await createIngestFixture({ telemetryRetentionDays: DAYS });
    const old = fixture.nowSeconds - DAYS * 86_400 - 3_600;
    const response = await fixture.app.request('/ingest/traccar', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.tokens.acme.token}` },
      body: JSON.stringify({
        position: { fixTime: new Date(old * 1000).toISOString(), speed: 10, attributes: { ignition: true } },
        device: { uniqueId: fixture.devices.idle.imei },
      }),
    });
    expect(response.status).toBe(409);
    const error = await errorOf(response);
    expect(error.code).toBe('beyond_retention');
    expect(error.message).toContain(`retention horizon ${formatInstant(fixture.nowSeconds - DAYS * 86_400, 'UTC')}`);
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
  });

  it('OsmAnd: 409 beyond_retention, nothing written; without retention the same point is stored', async () => {
    const fixture = await createIngestFixture({ telemetryRetentionDays: DAYS });
    const old = fixture.nowSeconds - (DAYS + 1) * 86_400;
    const query = new URLSearchParams({ id: fixture.devices.idle.imei, timestamp: String(old), speed: '5', ignition: 'true' });
    const response = await fixture.app.request(`/ingest/osmand/${fixture.tokens.acme.token}?${String(query)}`);
    expect(response.status).toBe(409);
    const error = await errorOf(response);
    expect(error.code).toBe('beyond_retention');
    expect(error.message).toContain(`time ${formatInstant(old, 'UTC')} is older than the retention horizon`);
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);

    const keepingAll = await createIngestFixture();
    const kept = await keepingAll.app.request(`/ingest/osmand/${keepingAll.tokens.acme.token}?${String(query)}`);
    expect(kept.status).toBe(200);
    expect(await keepingAll.pointsOf(keepingAll.devices.idle.id)).toHaveLength(1);
  });

  it('refuses a retention that is not a whole number of days ≥ 0, naming the option', async () => {
    const fixture = await createIngestFixture();
    expect(() => createFleetHoursApp({ fleetHours: fixture.fleetHours, telemetryRetentionDays: -1 })).toThrow(/telemetryRetentionDays/);
    expect(() => createFleetHoursApp({ fleetHours: fixture.fleetHours, telemetryRetentionDays: 1.5 })).toThrow(/telemetryRetentionDays/);
  });

  describe('D45: the horizon recorded in the data, on a server without the setting', () => {
    /** The memory store, refusing what a database with a recorded horizon refuses. */
    const withHorizon =
      (horizon: number) =>
      (store: FleetHoursStore): FleetHoursStore => ({
        ...store,
        async writeTelemetry(input) {
          const index = input.points.findIndex((point) => point.time < horizon);
          if (index >= 0) throw new BeyondRetentionError({ index, time: input.points[index]!.time, horizon });
          return store.writeTelemetry(input);
        },
      });

    it('native batch: 409 beyond_retention naming the line, nothing written', async () => {
      const probe = await createIngestFixture();
      const horizon = probe.nowSeconds - 10 * 86_400;
      const fixture = await createIngestFixture({ wrapStore: withHorizon(horizon) });
      const imei = fixture.devices.idle.imei;
      const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
      const response = await fixture.sendBatch(
        fixture.ndjson(
          { imei, time: iso(horizon + 60), ignition: true, speed_kmh: 20 },
          { imei, time: iso(horizon - 1), ignition: true, speed_kmh: 20 },
        ),
      );
      expect(response.status).toBe(409);
      expect(await errorOf(response)).toEqual({
        status: 409,
        code: 'beyond_retention',
        message: `line 2: time ${formatInstant(horizon - 1, 'UTC')} is older than the retention horizon ${formatInstant(horizon, 'UTC')} (points before it were dropped): nothing was written`,
      });
      expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
    });

    it('Traccar: one position, written with the others of its moment, is refused alone with 409', async () => {
      const probe = await createIngestFixture();
      const horizon = probe.nowSeconds - 10 * 86_400;
      const fixture = await createIngestFixture({ wrapStore: withHorizon(horizon) });
      const send = (time: number) =>
        fixture.app.request('/ingest/traccar', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.tokens.acme.token}` },
          body: JSON.stringify({
            position: { fixTime: new Date(time * 1000).toISOString(), speed: 10, attributes: { ignition: true } },
            device: { uniqueId: fixture.devices.idle.imei },
          }),
        });
      const [old, fresh] = await Promise.all([send(horizon - 3_600), send(horizon + 3_600)]);
      expect(old.status).toBe(409);
      expect((await errorOf(old)).code).toBe('beyond_retention');
      expect(fresh.status).toBe(200);
      expect((await fixture.pointsOf(fixture.devices.idle.id)).map((point) => point.time)).toEqual([horizon + 3_600]);
    });
  });
});
