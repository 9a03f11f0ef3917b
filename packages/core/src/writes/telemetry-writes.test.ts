/**
 * The core's writes (`createTelemetryWrites`, `FleetHours.writes`) over the memory store whose
 * `writeTelemetry` is watched: every call recorded, held until released, or made to fail. The
 * batching of single positions (P34): at most {@link POSITION_WRITES_IN_FLIGHT} writes of an account
 * at once, the positions waiting meanwhile in one write, a refusal failing only its own position.
 * What every store must do with them is in the storage contract (`testing/writes-contract.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  BeyondRetentionError,
  createFleetHours,
  createMemoryStore,
  createTelemetryWrites,
  POSITION_WRITES_IN_FLIGHT,
  StorageUnavailableError,
  TelemetryOverlapError,
  UnknownDeviceError,
  type Device,
  type FleetHoursStore,
  type TelemetryWriteResult,
} from '../index.js';

const NOW = 1_769_904_000; // 2026-02-01T00:00:00Z

/**
 * A spy over a store's `writeTelemetry`: records the IMEIs of each call; while `hold()` is on, every
 * call that starts waits until `release()`; `fail()` makes calls reject (after their wait).
 */
function watchWrites(store: FleetHoursStore) {
  const calls: string[][] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  let failure: (() => Error) | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  const watched: FleetHoursStore = {
    ...store,
    async writeTelemetry(input) {
      calls.push(input.points.map((point) => point.imei ?? `#${String(point.deviceId)}`));
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (gate) await gate;
        if (failure) throw failure();
        return await store.writeTelemetry(input);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return {
    store: watched,
    calls,
    maxInFlight: () => maxInFlight,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
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

/** Lets pending promise jobs run, so that positions sent reach the batcher and wait there. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function setup(trucks = 6) {
  const memory = createMemoryStore();
  const watch = watchWrites(memory);
  const writes = createTelemetryWrites(watch.store);
  const account = await memory.createAccount({ name: 'Acme', plan: 'business', now: NOW - 86_400 });
  const devices: Device[] = [];
  for (let index = 0; index < trucks; index += 1)
    devices.push(
      (await memory.createDevice({
        accountId: account.id,
        name: `Truck ${index}`,
        imei: `8612340000000${String(index).padStart(2, '0')}`,
        model: 'FMB920',
        timeZone: 'Europe/Berlin',
      }))!,
    );
  const position = (imei: string, time: number, speedKmh = 20) =>
    writes.position({ accountId: account.id, point: { imei, time, ignition: true, speedKmh }, now: NOW });
  /** Sends the first two positions (held), so that the next ones wait for a batch of their own. */
  const busy = async () => {
    watch.hold();
    const held = [position(devices[0]!.imei, NOW - 900), position(devices[1]!.imei, NOW - 900)];
    await settle();
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT);
    return held;
  };
  const pointsOf = (device: Device) => memory.listTelemetryPoints({ deviceId: device.id });
  return { memory, watch, writes, account, devices, position, busy, pointsOf };
}

const ownDevice = (answer: TelemetryWriteResult) => answer.devices.map((device) => device.imei);

describe('P34: positions share writes (createTelemetryWrites().position)', () => {
  it('D20, D21: positions that wait while two writes run go in one write together, each answered with its own device and count', async () => {
    const { watch, devices, position, busy, pointsOf } = await setup();
    const held = await busy();
    const waiting = devices.slice(2).map((device) => position(device.imei, NOW - 100));
    await settle();
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT);
    watch.release();
    const answers = await Promise.all([...held, ...waiting]);
    answers.forEach((answer, index) => {
      expect(ownDevice(answer)).toEqual([devices[index]!.imei]);
      expect(answer).toMatchObject({ accepted: 1, duplicates: 0 });
    });
    expect(watch.calls.map((call) => call.length)).toEqual([1, 1, devices.length - 2]);
    expect(watch.maxInFlight()).toBe(POSITION_WRITES_IN_FLIGHT);
    for (const device of devices) expect(await pointsOf(device)).toHaveLength(1);
  });

  it('D21: two positions of one device never share a write', async () => {
    const { watch, devices, position, busy } = await setup();
    const held = await busy();
    const [x] = devices.slice(2);
    const same = [position(x!.imei, NOW - 300), position(x!.imei, NOW - 300), position(x!.imei, NOW - 240)];
    watch.release();
    const answers = await Promise.all([...held, ...same]);
    for (const call of watch.calls) expect(call.filter((imei) => imei === x!.imei).length).toBeLessThanOrEqual(1);
    expect(answers.slice(2).map((answer) => answer.accepted)).toEqual([1, 0, 1]);
  });

  it('D25: an unknown IMEI among waiting positions fails only its own; it is written alone and the rest go again as one write', async () => {
    const { watch, devices, position, busy, pointsOf } = await setup();
    const held = await busy();
    const good = devices.slice(2).map((device) => position(device.imei, NOW - 100));
    const unknown = position('999000111222333', NOW - 100);
    watch.release();
    await expect(unknown).rejects.toBeInstanceOf(UnknownDeviceError);
    await Promise.all([...held, ...good]);
    for (const device of devices) expect(await pointsOf(device)).toHaveLength(1);
    expect(watch.calls.slice(POSITION_WRITES_IN_FLIGHT + 1).map((call) => [...call].sort())).toEqual([
      ['999000111222333'],
      devices
        .slice(2)
        .map((device) => device.imei)
        .sort(),
    ]);
    expect(watch.maxInFlight()).toBeLessThanOrEqual(POSITION_WRITES_IN_FLIGHT);
  });

  it('D23: a position over imported segments fails only its own; the others are written again one by one', async () => {
    const { memory, watch, devices, position, busy, pointsOf } = await setup();
    const imported = devices[5]!;
    await memory.importSegments({ deviceId: imported.id, segments: [{ startedAt: NOW - 7200, endedAt: NOW - 3600, state: 'moving' }] });
    const held = await busy();
    const good = devices.slice(2, 5).map((device) => position(device.imei, NOW - 100));
    const overlapping = position(imported.imei, NOW - 5000);
    watch.release();
    await expect(overlapping).rejects.toBeInstanceOf(TelemetryOverlapError);
    await Promise.all([...held, ...good]);
    expect(watch.calls.slice(POSITION_WRITES_IN_FLIGHT + 1).map((call) => call.length)).toEqual([1, 1, 1, 1]);
    for (const device of devices.slice(0, 5)) expect(await pointsOf(device)).toHaveLength(1);
    expect(await pointsOf(imported)).toEqual([]);
  });

  it('D28: a store that fails rejects the batch and every position waiting behind it at once, without retrying; the next position is written', async () => {
    const { watch, devices, position, busy, pointsOf } = await setup();
    const held = await busy();
    const waiting = devices.slice(2).map((device) => position(device.imei, NOW - 100));
    await settle();
    watch.fail(() => new StorageUnavailableError('connection refused'));
    watch.release();
    const outcomes = await Promise.allSettled([...held, ...waiting]);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StorageUnavailableError);
    expect(watch.calls).toHaveLength(POSITION_WRITES_IN_FLIGHT);
    watch.fail(null);
    expect(ownDevice(await position(devices[0]!.imei, NOW - 50))).toEqual([devices[0]!.imei]);
    expect(await pointsOf(devices[0]!)).toHaveLength(1);
  });

  it('a lone position is written at once, alone', async () => {
    const { watch, devices, position } = await setup();
    expect(await position(devices[0]!.imei, NOW - 30)).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(watch.calls).toEqual([[devices[0]!.imei]]);
  });
});

describe('FleetHours.writes', () => {
  it('is the core writes over the service\u2019s store: D43 refuses a point older than the retention, whoever writes', async () => {
    const store = createMemoryStore();
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'T',
      imei: '861234000000099',
      model: 'FMB920',
      timeZone: 'UTC',
    }))!;
    const point = { deviceId: device.id, time: NOW - 8 * 86_400, ignition: true, speedKmh: 0 };
    await expect(
      fleetHours.writes.telemetry({ accountId: account.id, points: [point], now: NOW, retentionDays: 7 }),
    ).rejects.toBeInstanceOf(BeyondRetentionError);
    expect(await fleetHours.writes.telemetry({ accountId: account.id, points: [point], now: NOW, retentionDays: 8 })).toMatchObject({
      accepted: 1,
    });
  });
});
