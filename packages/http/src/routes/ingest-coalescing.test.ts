/**
 * Single positions (Traccar forwards, OsmAnd reports) written together: while the writes of an
 * account are busy, the positions that arrive wait and share the next write (`_PositionWriter`).
 * Tested through the app (`app.request()`), over a memory store whose `writeTelemetry` is watched
 * and held on demand.
 */
import { createMemoryStore, StorageUnavailableError, type FleetHoursStore, type TelemetryPoint } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createIngestFixture } from './_ingest-fixture.js';
import { _POSITION_WRITES_IN_FLIGHT } from './_position-writer.js';

const traccarTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('Z', '+00:00');

/** A store whose writeTelemetry calls are recorded, and held while `hold` is set. */
function watched() {
  const calls: { points: number; imeis: string[] }[] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  let failWith: (() => Error) | null = null;
  const wrap = (store: FleetHoursStore): FleetHoursStore => ({
    ...store,
    writeTelemetry: async (input) => {
      calls.push({ points: input.points.length, imeis: input.points.map((point) => point.imei ?? String(point.deviceId)) });
      if (gate) await gate;
      if (failWith) throw failWith();
      return store.writeTelemetry(input);
    },
  });
  return {
    wrap,
    calls,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = null;
      open();
    },
    fail(make: (() => Error) | null) {
      failWith = make;
    },
  };
}

async function setup() {
  const watch = watched();
  const fixture = await createIngestFixture({ wrapStore: watch.wrap });
  const trucks = await Promise.all(
    Array.from({ length: 6 }, async (_, index) => (await fixture.store.createDevice({ accountId: fixture.accounts.acme.id, name: `Coalesced ${index}`, imei: `86000000000000${index}`, model: 'FMB920', timeZone: 'Europe/Berlin' }))!),
  );
  const forward = (imei: string, seconds: number, knots: number) =>
    fixture.app.request('/ingest/traccar', {
      method: 'POST',
      headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ position: { deviceTime: traccarTime(seconds), fixTime: traccarTime(seconds), speed: knots, attributes: { ignition: true } }, device: { uniqueId: imei } }),
    });
  const osmand = (imei: string, seconds: number, knots: number) =>
    fixture.app.request(`/ingest/osmand/${fixture.tokens.acme.token}?id=${imei}&timestamp=${seconds}&speed=${knots}&ignition=true`);
  return { ...fixture, watch, trucks, forward, osmand };
}

type Answer = { accepted: number; duplicates: number; devices: { device_id: number }[] };

describe('single positions share writes while the account\u2019s writes are busy (D20)', () => {
  it('a lone position is written at once, alone', async () => {
    const { forward, watch, trucks, nowSeconds } = await setup();
    const response = await forward(trucks[0]!.imei, nowSeconds - 60, 20);
    expect(response.status).toBe(200);
    expect(watch.calls).toEqual([{ points: 1, imeis: [trucks[0]!.imei] }]);
  });

  it('positions that arrive while the writes are held go in one write; each request gets its own device and counts; the hours equal writing them one by one (D20, D21)', async () => {
    const { forward, watch, trucks, nowSeconds, store } = await setup();
    watch.hold();
    const first = Array.from({ length: _POSITION_WRITES_IN_FLIGHT }, (_, index) => forward(trucks[index]!.imei, nowSeconds - 600, 20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(watch.calls).toHaveLength(_POSITION_WRITES_IN_FLIGHT);
    // Four more, for four other devices, while both writes are held.
    const waiting = trucks.slice(_POSITION_WRITES_IN_FLIGHT).map((truck, index) => forward(truck.imei, nowSeconds - 590 + index, index % 2 === 0 ? 0 : 30));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(watch.calls).toHaveLength(_POSITION_WRITES_IN_FLIGHT);
    watch.release();
    const answers = await Promise.all([...first, ...waiting]);
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
    // The waiting ones shared one write.
    expect(watch.calls).toHaveLength(_POSITION_WRITES_IN_FLIGHT + 1);
    expect(watch.calls.at(-1)!.imeis.sort()).toEqual(trucks.slice(_POSITION_WRITES_IN_FLIGHT).map((truck) => truck.imei).sort());
    const bodies = (await Promise.all(answers.map((response) => response.json()))) as Answer[];
    bodies.forEach((body, index) => {
      expect(body).toMatchObject({ accepted: 1, duplicates: 0 });
      expect(body.devices.map((device) => device.device_id)).toEqual([trucks[index]!.id]);
    });
    // The same points written one by one into a fresh store give the same segments.
    const alone = createMemoryStore();
    const account = await alone.createAccount({ name: 'Alone', plan: 'business', now: 0 });
    for (const truck of trucks) {
      const twin = (await alone.createDevice({ accountId: account.id, name: truck.name, imei: truck.imei, model: 'FMB920', timeZone: 'Europe/Berlin' }))!;
      const points = await store.listTelemetryPoints({ deviceId: truck.id });
      expect(points).toHaveLength(1);
      for (const point of points) await alone.writeTelemetry({ accountId: account.id, points: [{ deviceId: twin.id, ...(point as TelemetryPoint) }], now: nowSeconds });
      const shape = (segments: readonly { startedAt: number; endedAt: number | null; state: string }[]) => segments.map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state }));
      expect(shape(await store.listSegments({ deviceId: truck.id }))).toEqual(shape(await alone.listSegments({ deviceId: twin.id })));
    }
  });

  it('two positions of one device never share a write: each request is answered with its own counts (D21)', async () => {
    const { forward, watch, trucks, nowSeconds } = await setup();
    watch.hold();
    const busy = Array.from({ length: _POSITION_WRITES_IN_FLIGHT }, (_, index) => forward(trucks[index + 2]!.imei, nowSeconds - 900, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const same = [forward(trucks[0]!.imei, nowSeconds - 300, 20), forward(trucks[0]!.imei, nowSeconds - 300, 20), forward(trucks[0]!.imei, nowSeconds - 290, 20)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.release();
    await Promise.all(busy);
    const bodies = (await Promise.all((await Promise.all(same)).map((response) => response.json()))) as Answer[];
    // Every write held at most one position of the device.
    for (const call of watch.calls) expect(call.imeis.filter((imei) => imei === trucks[0]!.imei).length).toBeLessThanOrEqual(1);
    // The point sent twice is new once and a duplicate once; the third is new.
    expect(bodies.map((body) => body.accepted + body.duplicates)).toEqual([1, 1, 1]);
    expect(bodies[0]!.accepted + bodies[1]!.accepted).toBe(1);
    expect(bodies[2]).toMatchObject({ accepted: 1, duplicates: 0 });
  });

  it('an unknown device among waiting positions fails only its own request (422, naming device.uniqueId); the others are stored (D25)', async () => {
    const { forward, watch, trucks, nowSeconds, pointsOf } = await setup();
    watch.hold();
    const busy = Array.from({ length: _POSITION_WRITES_IN_FLIGHT }, (_, index) => forward(trucks[index]!.imei, nowSeconds - 900, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const good = [forward(trucks[2]!.imei, nowSeconds - 100, 20), forward(trucks[3]!.imei, nowSeconds - 100, 20)];
    const unknown = forward('999999999999999', nowSeconds - 100, 20);
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.release();
    await Promise.all(busy);
    expect((await Promise.all(good)).map((response) => response.status)).toEqual([200, 200]);
    const refused = await unknown;
    expect(refused.status).toBe(422);
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('unknown_device');
    expect(error.message).toContain('device.uniqueId "999999999999999"');
    expect(await pointsOf(trucks[2]!.id)).toHaveLength(1);
    expect(await pointsOf(trucks[3]!.id)).toHaveLength(1);
  });

  it('a database that fails fails every waiting request with 503 at once, without writing them again one by one (D28)', async () => {
    const { forward, watch, trucks, nowSeconds } = await setup();
    watch.hold();
    const busy = Array.from({ length: _POSITION_WRITES_IN_FLIGHT }, (_, index) => forward(trucks[index]!.imei, nowSeconds - 900, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const waiting = trucks.slice(2, 5).map((truck) => forward(truck.imei, nowSeconds - 100, 20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.fail(() => new StorageUnavailableError());
    watch.release();
    const answers = [...(await Promise.all(busy)), ...(await Promise.all(waiting))];
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 503));
    const codes = await Promise.all(answers.map(async (response) => ((await response.json()) as { error: { code: string } }).error.code));
    expect(new Set(codes)).toEqual(new Set(['service_unavailable']));
    // The two held writes and one shared write: no write of a single waiting position.
    expect(watch.calls).toHaveLength(_POSITION_WRITES_IN_FLIGHT + 1);
  });

  it('OsmAnd reports and Traccar forwards of one account share writes', async () => {
    const { forward, osmand, watch, trucks, nowSeconds, pointsOf } = await setup();
    watch.hold();
    const busy = Array.from({ length: _POSITION_WRITES_IN_FLIGHT }, (_, index) => forward(trucks[index]!.imei, nowSeconds - 900, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mixed = [osmand(trucks[2]!.imei, nowSeconds - 100, 12), forward(trucks[3]!.imei, nowSeconds - 100, 20), osmand(trucks[4]!.imei, nowSeconds - 100, 0)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.release();
    await Promise.all(busy);
    expect((await Promise.all(mixed)).map((response) => response.status)).toEqual([200, 200, 200]);
    expect(watch.calls.at(-1)!.imeis.sort()).toEqual([trucks[2]!.imei, trucks[3]!.imei, trucks[4]!.imei].sort());
    for (const truck of trucks.slice(2, 5)) expect(await pointsOf(truck.id)).toHaveLength(1);
  });
});
