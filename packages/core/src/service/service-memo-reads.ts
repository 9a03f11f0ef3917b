import { scheduleOkUntil, settledInstant } from '../maintenance/service-memo.js';
import type { PageSums, MaintenanceFacts } from './maintenance-reads.js';
import type { ServicePageDevice, FleetHoursStore, ServiceMemoWrite } from '../store/storage-port.js';
import type { BucketSeconds, DeviceService, EpochSeconds } from '../types.js';

/** A store that remembers service values between reads (P58): the three capabilities together. */
export type ServiceMemoStore = FleetHoursStore &
  Required<Pick<FleetHoursStore, 'listServicePage' | 'rememberServiceMemos' | 'engineSecondsBeforeMany'>>;

/** Whether the store remembers service values (P58). */
export function remembersService(store: FleetHoursStore): store is ServiceMemoStore {
  return (
    typeof store.listServicePage === 'function' &&
    typeof store.rememberServiceMemos === 'function' &&
    typeof store.engineSecondsBeforeMany === 'function'
  );
}

/**
 * The hour-meter sums of a service page with memos (P58): a device whose every instant but now
 * has its engine time remembered asks the store nothing (now's is its engine seconds up to now, as
 * `hourMeterValues` takes them); the others are asked in one `engineSecondsBeforeMany` call, and what it
 * answers is kept in `learned` (device id → instant → engine seconds before it) to be remembered.
 */
export function memoPageSums(
  store: ServiceMemoStore,
  memos: readonly ServicePageDevice[],
  learned: Map<number, Map<EpochSeconds, BucketSeconds>>,
): PageSums {
  return async (devices, boundaries, now) => {
    const results: (readonly BucketSeconds[])[] = devices.map(() => []);
    const asked: { index: number; deviceId: number; instants: readonly number[] }[] = [];
    devices.forEach((device, index) => {
      const instants = boundaries[index];
      if (!instants) return;
      const memo = memos[index]!;
      const before = instants.map((instant, position) =>
        position === instants.length - 1 && instant === now ? memo.engineSeconds : memo.engineBefore.get(instant),
      );
      if (before.every((value) => value !== undefined)) results[index] = bucketsBetween(before as BucketSeconds[]);
      else asked.push({ index, deviceId: device.id, instants });
    });
    if (asked.length === 0) return results;
    const found = await store.engineSecondsBeforeMany({
      requests: asked.map(({ deviceId, instants }) => ({ deviceId, instants })),
      now,
    });
    asked.forEach((request, position) => {
      const values = found[position]!;
      results[request.index] = bucketsBetween(values);
      learned.set(request.deviceId, new Map(request.instants.map((instant, at) => [instant, values[at]!])));
    });
    return results;
  };
}

/**
 * What a service page hands back to be remembered (P58), per device: the engine time before the
 * instants it computed (only at or before the settled instant, and not already remembered), and,
 * for each schedule not remembered yet (or remembered `ok` until a past instant), until when it
 * stays `ok` (`null` when it is not `ok`). A schedule that is `ok` but counts from a last service
 * after the settled instant is left out: it cannot be bounded, and is computed again next time.
 *
 * @returns The writes; devices with nothing new are left out.
 */
export function serviceMemoWrites(input: {
  readonly memos: readonly ServicePageDevice[];
  readonly facts: MaintenanceFacts;
  readonly services: readonly DeviceService[];
  readonly learned: ReadonlyMap<number, ReadonlyMap<EpochSeconds, BucketSeconds>>;
  readonly now: EpochSeconds;
}): ServiceMemoWrite[] {
  const { memos, facts, services, learned, now } = input;
  const writes: ServiceMemoWrite[] = [];
  memos.forEach((memo, index) => {
    const { device } = memo;
    const settled = settledInstant(device.lastReportedAt, now);
    const engineBefore = [...(learned.get(device.id) ?? [])]
      .filter(([instant]) => instant <= settled && !memo.engineBefore.has(instant))
      .map(([instant, seconds]) => ({ instant, seconds }));
    const schedules = facts.schedules.get(device.id) ?? [];
    const service = services[index]!;
    const okUntil: { scheduleId: number; until: EpochSeconds | null }[] = [];
    schedules.forEach((schedule, position) => {
      const remembered = memo.okUntil.get(schedule.id);
      if (remembered === null || (remembered !== undefined && remembered > now)) return;
      const state = service.schedules[position]!;
      if (state.status !== 'ok') {
        okUntil.push({ scheduleId: schedule.id, until: null });
        return;
      }
      if (schedule.lastDoneHourMeterSeconds === null && schedule.lastDoneAt > settled) return;
      const until = scheduleOkUntil({
        schedule,
        lastDoneHourMeterSeconds: state.lastDoneHourMeterSeconds,
        hourMeterSeconds: service.hourMeterSeconds,
        timeZone: device.timeZone,
        now,
        settled,
      });
      okUntil.push({ scheduleId: schedule.id, until });
    });
    if (engineBefore.length > 0 || okUntil.length > 0) {
      writes.push({ deviceId: device.id, memoVersion: memo.memoVersion, engineBefore, okUntil });
    }
  });
  return writes;
}

/** The buckets between instants from the engine time before each (P56): each bucket is the difference of its two ends. */
export function bucketsBetween(before: readonly BucketSeconds[]): BucketSeconds[] {
  return before.slice(1).map((end, index) => ({
    movingSeconds: end.movingSeconds - before[index]!.movingSeconds,
    idleSeconds: end.idleSeconds - before[index]!.idleSeconds,
  }));
}
