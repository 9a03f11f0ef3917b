/**
 * The single-position write coalescing (the core's `writes.position`, P34), tested through the app: Traccar
 * forwards (`POST /ingest/traccar`) and OsmAnd reports (`GET /ingest/osmand/{token}`) sent with
 * `app.request()` over a memory store whose `writeTelemetry` is watched: every call recorded, held
 * until released, or made to fail.
 */
import { POSITION_WRITES_IN_FLIGHT, StorageUnavailableError, type Device, type FleetHoursStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createIngestFixture } from './_ingest-fixture.js';
import { KMH_PER_KNOT } from './ingest-traccar.js';

/** One `writeTelemetry` call as the store saw it. */
interface _Call {
  readonly imeis: readonly string[];
  readonly now: number;
}

/**
 * A spy over a store's `writeTelemetry`: records each call; while `hold()` is on, every call that
 * starts waits until `release()`; `pass()` lets later calls through while the held ones still wait;
 * `fail()` makes calls reject (after their wait) instead of writing.
 */
function watchWrites() {
  const calls: _Call[] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  let failure: (() => Error) | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  const wrap = (store: FleetHoursStore): FleetHoursStore => ({
    ...store,
    async writeTelemetry(input) {
      calls.push({ imeis: input.points.map((point) => point.imei ?? `#${String(point.deviceId)}`), now: input.now });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const held = gate;
        if (held) await held;
        if (failure) throw failure();
        return await store.writeTelemetry(input);
      } finally {
        inFlight -= 1;
      }
    },
  });
  return {
    wrap,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    /** Calls that start from now on are not held; those already held keep waiting. */
    pass() {
      gate = null;
    },
    release() {
      gate = null;
      open();
    },
    fail(make: (() => Error) | null) {
      failure = make;
    },
  };
}

/** Polls until `condition` holds (the app's middleware is asynchronous), failing after 2 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Lets requests in progress pass the middleware and reach the writer, where they wait. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

const traccarTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('Z', '+00:00');

type Answer = { accepted: number; duplicates: number; devices: { device_id: number; last_reported_at: string | null }[] };
type ErrorBody = { error: { status: number; code: string; message: string } };

const TRUCKS = 6;
const imeiOf = (index: number) => `8612340000000${String(index).padStart(2, '0')}`;

/** The ingest fixture (fixed clock, tokens of each account) with six more acme devices, over a watched store. */
async function setup() {
  const watch = watchWrites();
  const fixture = await createIngestFixture({ wrapStore: watch.wrap });
  const trucks: Device[] = [];
  for (let index = 0; index < TRUCKS; index += 1) {
    trucks.push(
      (await fixture.store.createDevice({
        accountId: fixture.accounts.acme.id,
        name: `Coalesced ${index}`,
        imei: imeiOf(index),
        model: 'FMB920',
        registration: null,
        timeZone: index % 2 === 0 ? 'Europe/Berlin' : 'America/New_York',
      }))!,
    );
  }
  const traccar = (uniqueId: string, seconds: number, knots: number, ignition = true) =>
    fixture.app.request('/ingest/traccar', {
      method: 'POST',
      headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        position: { deviceTime: traccarTime(seconds), fixTime: traccarTime(seconds), speed: knots, attributes: { ignition } },
        device: { uniqueId },
      }),
    });
  const osmand = (id: string, seconds: number, knots: number, ignition = true) =>
    fixture.app.request(
      `/ingest/osmand/${fixture.tokens.acme.token}?id=${id}&timestamp=${seconds}&speed=${knots}&ignition=${String(ignition)}`,
    );
  /** The fleet's answers to a reader: the devices list and each new device's hours over the default window. */
  const readings = async () => {
    const list = await (await fixture.request('/api/v1/devices', fixture.keys.acme.key)).json();
    const hours = await Promise.all(
      trucks.map(async (truck) => (await fixture.request(`/api/v1/devices/${truck.id}/hours`, fixture.keys.acme.key)).json()),
    );
    const points = await Promise.all(trucks.map((truck) => fixture.store.listTelemetryPoints({ deviceId: truck.id })));
    const segments = await Promise.all(trucks.map((truck) => fixture.store.listSegments({ deviceId: truck.id })));
    return { list, hours, points, segments };
  };
  return { ...fixture, watch, trucks, traccar, osmand, readings };
}

const bodyOf = async <T>(response: Response) => (await response.json()) as T;

describe('P34: single positions share writes (through POST /ingest/traccar and /ingest/osmand)', () => {
  it('D20, D21: concurrent forwards of one account while the writes are held share writes (at most 2 in flight), each request gets its own device and count, and the stored points, segments and hours equal writing them one by one', async () => {
    const { watch, trucks, traccar, nowSeconds, readings } = await setup();
    // Three positions per truck: idle, moving, engine off, two minutes apart (an hour ago).
    const start = nowSeconds - 3600;
    const positions = trucks.flatMap((truck, index) => [
      { imei: truck.imei, seconds: start + index * 7, knots: 0, ignition: true },
      { imei: truck.imei, seconds: start + index * 7 + 120, knots: 20 + index, ignition: true },
      { imei: truck.imei, seconds: start + index * 7 + 240, knots: 0, ignition: false },
    ]);
    // Sent newest first, all at once, while every write is held.
    const sent = [...positions].reverse();
    watch.hold();
    const pending = sent.map((position) => traccar(position.imei, position.seconds, position.knots, position.ignition));
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    await settle();
    // The others wait: no write beyond the two in flight.
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT);
    watch.release();
    const responses = await Promise.all(pending);

    expect(responses.map((response) => response.status)).toEqual(sent.map(() => 200));
    const bodies = await Promise.all(responses.map((response) => bodyOf<Answer>(response)));
    bodies.forEach((body, index) => {
      const own = trucks.find((truck) => truck.imei === sent[index]!.imei)!;
      expect(body.accepted).toBe(1);
      expect(body.duplicates).toBe(0);
      expect(body.devices.map((device) => device.device_id)).toEqual([own.id]);
    });
    // Coalesced: fewer writes than requests, never more than two at once, every point written once.
    expect(watch.calls.length).toBeLessThan(sent.length);
    expect(watch.maxInFlight).toBeLessThanOrEqual(POSITION_WRITES_IN_FLIGHT);
    expect(watch.calls.some((call) => call.imeis.length > 1)).toBe(true);
    expect(watch.calls.reduce((sum, call) => sum + call.imeis.length, 0)).toBe(sent.length);
    for (const call of watch.calls) expect(new Set(call.imeis).size).toBe(call.imeis.length);

    // The same positions forwarded one by one, in time order, into a fresh store.
    const alone = await setup();
    expect(alone.trucks.map((truck) => truck.id)).toEqual(trucks.map((truck) => truck.id));
    for (const position of positions)
      expect((await alone.traccar(position.imei, position.seconds, position.knots, position.ignition)).status).toBe(200);
    expect(alone.watch.calls).toHaveLength(positions.length);

    const coalesced = await readings();
    const sequential = await alone.readings();
    for (const points of coalesced.points) expect(points).toHaveLength(3);
    expect(coalesced.segments.every((segments) => segments.length > 0)).toBe(true);
    expect(coalesced).toEqual(sequential);
  });

  it('D21: positions of the same device never share a write; the same point sent twice at once is new for one request and a duplicate for the other', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf } = await setup();
    const [x, y, busyA, busyB] = trucks;
    watch.hold();
    const busy = [traccar(busyA!.imei, nowSeconds - 900, 10), traccar(busyB!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const same = [traccar(x!.imei, nowSeconds - 300, 20), traccar(x!.imei, nowSeconds - 300, 20)];
    const later = traccar(x!.imei, nowSeconds - 240, 20);
    const other = traccar(y!.imei, nowSeconds - 300, 5);
    await settle();
    watch.release();
    const responses = await Promise.all([...busy, ...same, later, other]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const [, , first, second, third, fourth] = await Promise.all(responses.map((response) => bodyOf<Answer>(response)));

    for (const call of watch.calls) expect(call.imeis.filter((imei) => imei === x!.imei).length).toBeLessThanOrEqual(1);
    expect(watch.calls.filter((call) => call.imeis.includes(x!.imei))).toHaveLength(3);
    for (const body of [first!, second!, third!]) {
      expect(body.devices.map((device) => device.device_id)).toEqual([x!.id]);
      expect(body.accepted + body.duplicates).toBe(1);
    }
    expect([first!.accepted, second!.accepted].sort()).toEqual([0, 1]);
    expect([first!.duplicates, second!.duplicates].sort()).toEqual([0, 1]);
    expect(third).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(fourth).toMatchObject({ accepted: 1, duplicates: 0, devices: [{ device_id: y!.id }] });
    expect((await pointsOf(x!.id)).map((point) => point.time)).toEqual([nowSeconds - 300, nowSeconds - 240]);
  });

  it('D21: two forwards of the same device with nothing else in flight go in two writes at once, and their counts add up', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf } = await setup();
    const [x] = trucks;
    const bodies = await Promise.all(
      (await Promise.all([traccar(x!.imei, nowSeconds - 60, 30), traccar(x!.imei, nowSeconds - 60, 30)])).map((response) => {
        expect(response.status).toBe(200);
        return bodyOf<Answer>(response);
      }),
    );
    expect(watch.calls).toEqual([
      { imeis: [x!.imei], now: nowSeconds },
      { imeis: [x!.imei], now: nowSeconds },
    ]);
    expect(bodies.reduce((sum, body) => sum + body.accepted, 0)).toBe(1);
    expect(bodies.reduce((sum, body) => sum + body.duplicates, 0)).toBe(1);
    for (const body of bodies) expect(body.devices.map((device) => device.device_id)).toEqual([x!.id]);
    expect(await pointsOf(x!.id)).toEqual([{ time: nowSeconds - 60, ignition: true, speedKmh: 30 * KMH_PER_KNOT }]);
  });

  it('D25: an unknown IMEI among waiting forwards fails only its own request with 422 unknown_device naming device.uniqueId; the others are answered 200 and stored', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf } = await setup();
    watch.hold();
    const busy = [traccar(trucks[0]!.imei, nowSeconds - 900, 10), traccar(trucks[1]!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const good = trucks.slice(2).map((truck, index) => traccar(truck.imei, nowSeconds - 100 + index, 20));
    const unknown = traccar('999000111222333', nowSeconds - 100, 20);
    await settle();
    watch.release();

    const refused = await unknown;
    expect(refused.status).toBe(422);
    const { error } = await bodyOf<ErrorBody>(refused);
    expect(error).toMatchObject({ status: 422, code: 'unknown_device' });
    expect(error.message).toContain('device.uniqueId "999000111222333"');

    const answers = await Promise.all([...busy, ...good]);
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
    const bodies = await Promise.all(answers.map((response) => bodyOf<Answer>(response)));
    bodies.forEach((body, index) =>
      expect(body).toMatchObject({ accepted: 1, duplicates: 0, devices: [{ device_id: trucks[index]!.id }] }),
    );
    for (const truck of trucks) expect(await pointsOf(truck.id)).toHaveLength(1);
    // The unknown IMEI did share a write with the good ones (it was refused there, then alone).
    expect(watch.calls.some((call) => call.imeis.includes('999000111222333') && call.imeis.length > 1)).toBe(true);
    // The store named it: it alone was written on its own, and the four good ones went again as
    // one batch; the retries stayed within the account's writes in flight.
    const afterRefusal = watch.calls.slice(POSITION_WRITES_IN_FLIGHT + 1).map((call) => [...call.imeis].sort());
    expect(afterRefusal).toEqual([
      ['999000111222333'],
      trucks
        .slice(2)
        .map((truck) => truck.imei)
        .sort(),
    ]);
    expect(watch.maxInFlight).toBeLessThanOrEqual(POSITION_WRITES_IN_FLIGHT);
  });

  it('D23: a position over imported segments among waiting forwards fails only its own request with 409; the batch is written again one position after another, within the writes in flight', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf, devices } = await setup();
    watch.hold();
    const busy = [traccar(trucks[0]!.imei, nowSeconds - 900, 10), traccar(trucks[1]!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const good = trucks.slice(2, 5).map((truck) => traccar(truck.imei, nowSeconds - 100, 20));
    // The New York truck has an imported segment 2026-11-28 14:00–16:00 UTC: telemetry there overlaps it.
    const overlapping = traccar(devices.newYork.imei, Date.UTC(2026, 10, 28, 15) / 1000, 20);
    await settle();
    watch.release();
    const refused = await overlapping;
    expect(refused.status).toBe(409);
    expect((await bodyOf<ErrorBody>(refused)).error.code).toBe('conflict');
    expect((await Promise.all([...busy, ...good])).map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    for (const truck of trucks.slice(0, 5)) expect(await pointsOf(truck.id)).toHaveLength(1);
    expect(await pointsOf(devices.newYork.id)).toEqual([]);
    // The refusal named no position: after the shared write, each position alone, one at a time.
    const afterRefusal = watch.calls.slice(POSITION_WRITES_IN_FLIGHT + 1);
    expect(afterRefusal.map((call) => call.imeis.length)).toEqual([1, 1, 1, 1]);
    expect(watch.maxInFlight).toBeLessThanOrEqual(POSITION_WRITES_IN_FLIGHT);
  });

  it('D25: another account\u2019s device among waiting forwards gets the same 422 as an unknown one, and is not written', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf, devices } = await setup();
    const before = await pointsOf(devices.foreign.id);
    watch.hold();
    const busy = [traccar(trucks[0]!.imei, nowSeconds - 900, 10), traccar(trucks[1]!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const good = traccar(trucks[2]!.imei, nowSeconds - 100, 20);
    const foreign = traccar(devices.foreign.imei, nowSeconds - 100, 20);
    await settle();
    watch.release();
    const [refused, stored] = await Promise.all([foreign, good, ...busy]);
    expect(refused!.status).toBe(422);
    const { error } = await bodyOf<ErrorBody>(refused!);
    expect(error.code).toBe('unknown_device');
    expect(error.message).toBe(`device.uniqueId "${devices.foreign.imei}" is not an active device of this account`);
    expect(stored!.status).toBe(200);
    expect(await pointsOf(trucks[2]!.id)).toHaveLength(1);
    expect(await pointsOf(devices.foreign.id)).toEqual(before);
  });

  it('D28: a store that cannot be reached fails the batch and every request waiting behind it with 503 service_unavailable at once, writing none of them again; the next request is written', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf } = await setup();
    watch.hold();
    const busy = [traccar(trucks[0]!.imei, nowSeconds - 900, 10), traccar(trucks[1]!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const waiting = trucks.slice(2).map((truck) => traccar(truck.imei, nowSeconds - 100, 20));
    await settle();
    watch.fail(() => new StorageUnavailableError('connection refused'));
    watch.release();
    const answers = [...(await Promise.all(busy)), ...(await Promise.all(waiting))];

    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 503));
    for (const response of answers) {
      expect(response.headers.get('Retry-After')).not.toBeNull();
      expect((await bodyOf<ErrorBody>(response)).error.code).toBe('service_unavailable');
    }
    // Only the two held writes: the waiting positions were answered without a write of their own
    // (each would have waited out a deadline of its own), and nothing was retried alone.
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT);
    for (const truck of trucks) expect(await pointsOf(truck.id)).toEqual([]);

    // Once the store answers again, a position is written at once (nothing is left counted in flight).
    watch.fail(null);
    const again = await traccar(trucks[0]!.imei, nowSeconds - 50, 20);
    expect(again.status).toBe(200);
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT + 1);
    expect(await pointsOf(trucks[0]!.id)).toHaveLength(1);
  });

  it('D20: OsmAnd reports and Traccar forwards of one account share writes, each answered with its own device and stored with its speed', async () => {
    const { watch, trucks, traccar, osmand, nowSeconds, pointsOf } = await setup();
    watch.hold();
    const busy = [osmand(trucks[0]!.imei, nowSeconds - 900, 10), traccar(trucks[1]!.imei, nowSeconds - 900, 10)];
    await until(() => watch.calls.length === POSITION_WRITES_IN_FLIGHT, 'two writes start');
    const mixed = [
      osmand(trucks[2]!.imei, nowSeconds - 100, 12),
      traccar(trucks[3]!.imei, nowSeconds - 100, 20),
      osmand(trucks[4]!.imei, nowSeconds - 100, 0, false),
      traccar(trucks[5]!.imei, nowSeconds - 100, 7),
    ];
    await settle();
    watch.release();
    const answers = await Promise.all([...busy, ...mixed]);
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const bodies = await Promise.all(answers.map((response) => bodyOf<Answer>(response)));
    bodies.forEach((body, index) =>
      expect(body).toMatchObject({ accepted: 1, duplicates: 0, devices: [{ device_id: trucks[index]!.id }] }),
    );

    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT + 1);
    expect([...watch.calls.at(-1)!.imeis].sort()).toEqual(
      trucks
        .slice(2)
        .map((truck) => truck.imei)
        .sort(),
    );
    expect(await pointsOf(trucks[2]!.id)).toEqual([{ time: nowSeconds - 100, ignition: true, speedKmh: 12 * KMH_PER_KNOT }]);
    expect(await pointsOf(trucks[3]!.id)).toEqual([{ time: nowSeconds - 100, ignition: true, speedKmh: 20 * KMH_PER_KNOT }]);
    expect(await pointsOf(trucks[4]!.id)).toEqual([{ time: nowSeconds - 100, ignition: false, speedKmh: 0 }]);
  });

  it('a lone forward is written at once, alone: one writeTelemetry call with its one point', async () => {
    const { watch, trucks, traccar, nowSeconds, pointsOf } = await setup();
    const response = await traccar(trucks[0]!.imei, nowSeconds - 30, 15);
    expect(response.status).toBe(200);
    expect(await bodyOf<Answer>(response)).toMatchObject({ accepted: 1, duplicates: 0, devices: [{ device_id: trucks[0]!.id }] });
    expect(watch.calls).toEqual([{ imeis: [trucks[0]!.imei], now: nowSeconds }]);
    expect(await pointsOf(trucks[0]!.id)).toEqual([{ time: nowSeconds - 30, ignition: true, speedKmh: 15 * KMH_PER_KNOT }]);
  });

  it('a forward that arrives while one write is held does not wait for it: the second write slot takes it at once', async () => {
    const { watch, trucks, traccar, nowSeconds } = await setup();
    watch.hold();
    const held = traccar(trucks[0]!.imei, nowSeconds - 30, 15);
    await until(() => watch.calls.length === 1, 'the first write starts');
    watch.pass();
    const second = await traccar(trucks[1]!.imei, nowSeconds - 30, 15);
    // Answered while the first write is still held.
    expect(second.status).toBe(200);
    expect(watch.calls).toEqual([
      { imeis: [trucks[0]!.imei], now: nowSeconds },
      { imeis: [trucks[1]!.imei], now: nowSeconds },
    ]);
    watch.release();
    expect((await held).status).toBe(200);
  });
});
