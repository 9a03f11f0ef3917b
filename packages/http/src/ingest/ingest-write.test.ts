import { describe, expect, it } from 'vitest';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import { createIngestFixture, type IngestFixture } from '../testing/ingest-fixture.js';

type Outcome = {
  readonly accepted: number;
  readonly duplicates: number;
  readonly ignored: number;
  readonly accountId?: number;
  readonly deviceIds?: readonly number[];
};

/** The fixture's service and tokens, served by an app whose `onIngest` is the given hook. */
async function withHook(onIngest: (outcome: Outcome) => void): Promise<IngestFixture> {
  const fixture = await createIngestFixture();
  const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {}, onIngest });
  return { ...fixture, app };
}

describe('the onIngest hook of createFleetHoursApp', () => {
  it('is told the counts of native, Traccar and OsmAnd writes once stored, and of ignored positions (D21); a stored write names its account and devices (D40)', async () => {
    const seen: Outcome[] = [];
    const fixture = await withHook((outcome) => seen.push(outcome));
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    const token = fixture.tokens.acme.token;
    const batch = [
      { device_id: idle.id, time: t, ignition: true, speed_kmh: 0 },
      { device_id: idle.id, time: t + 60, ignition: true, speed_kmh: 30 },
    ];
    const send = (body: unknown) =>
      fixture.app.request('/ingest/v1/telemetry', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    expect((await send(batch)).status).toBe(200);
    expect((await send([...batch, { device_id: idle.id, time: t + 120, ignition: false, speed_kmh: 0 }])).status).toBe(200);

    const traccar = (attributes: Record<string, unknown>) =>
      fixture.app.request('/ingest/traccar', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({
          position: { deviceTime: new Date((t + 180) * 1000).toISOString(), speed: 10, attributes },
          device: { uniqueId: idle.imei },
        }),
      });
    expect((await traccar({ ignition: true })).status).toBe(200);
    expect((await traccar({})).status).toBe(200);

    const osmand = (ignition: string | null) =>
      fixture.app.request(
        `/ingest/osmand/${token}?${String(new URLSearchParams({ id: idle.imei!, timestamp: String(t + 240), speed: '0', ...(ignition === null ? {} : { ignition }) }))}`,
      );
    expect((await osmand('false')).status).toBe(200);
    expect((await osmand('false')).status).toBe(200);
    expect((await osmand(null)).status).toBe(200);

    const written = { accountId: idle.accountId, deviceIds: [idle.id] };
    expect(seen).toEqual([
      { accepted: 2, duplicates: 0, ignored: 0, ...written },
      { accepted: 1, duplicates: 2, ignored: 0, ...written },
      { accepted: 1, duplicates: 0, ignored: 0, ...written },
      { accepted: 0, duplicates: 0, ignored: 1 },
      { accepted: 1, duplicates: 0, ignored: 0, ...written },
      { accepted: 0, duplicates: 1, ignored: 0, ...written },
      { accepted: 0, duplicates: 0, ignored: 1 },
    ]);
  });

  it('is not told of a refused request: nothing was stored', async () => {
    const seen: Outcome[] = [];
    const fixture = await withHook((outcome) => seen.push(outcome));
    const unknown = await fixture.app.request('/ingest/v1/telemetry', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.tokens.acme.token}` },
      body: JSON.stringify([{ device_id: fixture.devices.foreign.id, time: fixture.nowSeconds - 60, ignition: true, speed_kmh: 0 }]),
    });
    expect(unknown.status).toBe(422);
    expect((await fixture.app.request('/ingest/v1/telemetry', { method: 'POST', body: '[]' })).status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('never fails a stored request when it throws: the answer is still 200 and the points stay stored', async () => {
    const fixture = await withHook(() => {
      throw new Error('metrics are down');
    });
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 60;
    const response = await fixture.app.request(
      `/ingest/osmand/${fixture.tokens.acme.token}?${String(new URLSearchParams({ id: idle.imei!, timestamp: String(t), speed: '0', ignition: 'true' }))}`,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(await fixture.pointsOf(idle.id)).toEqual([{ time: t, ignition: true, speedKmh: 0 }]);
  });
});
