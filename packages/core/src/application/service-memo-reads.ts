import { scheduleOkUntil, scheduleStatusUntil, settledInstant } from '../maintenance/service-memo.js';
import { bucketsBetween, type PageSums } from './maintenance-reads.js';
import type { ServicePageDevice, FleetHoursStore, RememberedStatuses, ServiceMemoWrite } from '../store/storage-port.js';
import { SERVICE_STATUSES, type BucketSeconds, type DeviceService, type EpochSeconds, type ServiceStatus } from '../types.js';

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
        position === instants.length - 1 && instant === now ? memo.engineSeconds : memo.remembered?.engineBefore.get(instant),
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
      // The last instant is now: its engine time is the page's own, never an instant to remember.
      learned.set(request.deviceId, new Map(request.instants.slice(0, -1).map((instant, at) => [instant, values[at]!])));
    });
    return results;
  };
}

/**
 * What a service page hands back to be remembered (P58), per device: the engine time before the
 * instants it computed (those at or before the settled instant) with what was remembered, and
 * until when every schedule stays `ok`: the earliest `scheduleOkUntil`, `null` when a schedule is
 * not `ok` or counts from a last service after the settled instant (it cannot be bounded). A
 * device is written only when that adds something: nothing was remembered at its version, it
 * learnt engine time, its bound has passed, or a bound became known.
 *
 * @returns The writes; devices with nothing new are left out.
 */
export function serviceMemoWrites(input: {
  readonly memos: readonly ServicePageDevice[];
  readonly services: readonly DeviceService[];
  readonly learned: ReadonlyMap<number, ReadonlyMap<EpochSeconds, BucketSeconds>>;
  readonly now: EpochSeconds;
}): ServiceMemoWrite[] {
  const { memos, services, learned, now } = input;
  const writes: ServiceMemoWrite[] = [];
  memos.forEach((memo, index) => {
    const { device, remembered } = memo;
    const settled = settledInstant(device.lastReportedAt, now);
    // A device that never reported: any write may still change any engine time without raising the version.
    if (settled === null) return;
    const engine = new Map(remembered?.engineBefore);
    let learnt = false;
    for (const [instant, seconds] of learned.get(device.id) ?? []) {
      if (instant > settled || engine.has(instant)) continue;
      engine.set(instant, seconds);
      learnt = true;
    }
    // A device without schedules never matches a filter without `ok` (the store leaves it out): nothing to bound.
    if (memo.schedules.length === 0 && !learnt) return;
    const okUntil = _okUntil(memo, services[index]!, settled, now);
    const bound = remembered === null || (remembered.okUntil === null ? okUntil !== null : remembered.okUntil <= now);
    // P66: the statuses likewise, when none are remembered or they may have changed.
    const statuses = _statusesUntil(memo, services[index]!, settled, now);
    const kept = remembered?.statuses ?? null;
    const statusesBound = remembered === null || (kept === null ? statuses !== null : kept.until !== null && kept.until <= now);
    if (!learnt && !bound && !statusesBound) return;
    writes.push({
      deviceId: device.id,
      memoVersion: memo.memoVersion,
      okUntil: bound ? okUntil : remembered!.okUntil,
      engineBefore: [...engine].map(([instant, seconds]) => ({ instant, seconds })),
      statuses: statusesBound ? statuses : kept,
    });
  });
  return writes;
}

/** The earliest instant a schedule of the device may stop being `ok` (P58), `null` when one is not `ok` or cannot be bounded. */
function _okUntil(memo: ServicePageDevice, service: DeviceService, settled: EpochSeconds, now: EpochSeconds): EpochSeconds | null {
  if (service.schedules.some((state) => state.status !== 'ok')) return null;
  const bounds = _scheduleBounds(memo, service, settled, now, scheduleOkUntil);
  return bounds === null || bounds.length === 0 ? null : Math.min(...bounds);
}

/**
 * The statuses of the device's schedules and until when they stay these whatever it reports (P66):
 * the earliest `scheduleStatusUntil`; `null` when a schedule's cannot be promised, or counts from
 * a last service after the settled instant.
 */
function _statusesUntil(
  memo: ServicePageDevice,
  service: DeviceService,
  settled: EpochSeconds,
  now: EpochSeconds,
): RememberedStatuses | null {
  const bounds = _scheduleBounds(memo, service, settled, now, scheduleStatusUntil);
  if (bounds === null) return null;
  const until = Math.min(Number.POSITIVE_INFINITY, ...bounds);
  const seen = new Set<ServiceStatus>(service.schedules.map((state) => state.status));
  return { statuses: SERVICE_STATUSES.filter((status) => seen.has(status)), until: Number.isFinite(until) ? until : null };
}

/**
 * Each schedule's bound by `bound` (`scheduleOkUntil` or `scheduleStatusUntil`), in schedule
 * order; `null` as soon as one cannot be bounded, or counts from a last service after the settled
 * instant (its hour meter then depends on reports still to come).
 */
function _scheduleBounds(
  memo: ServicePageDevice,
  service: DeviceService,
  settled: EpochSeconds,
  now: EpochSeconds,
  bound: typeof scheduleStatusUntil,
): number[] | null {
  const bounds: number[] = [];
  for (const [position, schedule] of memo.schedules.entries()) {
    const state = service.schedules[position]!;
    if (schedule.lastDoneHourMeterSeconds === null && schedule.lastDoneAt > settled) return null;
    const until = bound({
      schedule,
      lastDoneHourMeterSeconds: state.lastDoneHourMeterSeconds,
      hourMeterSeconds: service.hourMeterSeconds,
      timeZone: memo.device.timeZone,
      now,
      settled,
      status: state.status,
    });
    if (until === null) return null;
    bounds.push(until);
  }
  return bounds;
}
