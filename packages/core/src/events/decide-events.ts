import type { EpochSeconds, ServiceStatus } from '../types.js';

/** The events Fleet Hours raises (D40); `webhook.test` is sent only to the endpoint tested. */
export type EventType = 'service.due_soon' | 'service.overdue' | 'device.silent' | 'device.reporting' | 'webhook.test';

/** Every event type, in the order the contract lists them. */
export const EVENT_TYPES: readonly EventType[] = [
  'service.due_soon',
  'service.overdue',
  'device.silent',
  'device.reporting',
  'webhook.test',
];

/** The event types an endpoint subscribes to (every type but `webhook.test`). */
export const SUBSCRIBABLE_EVENT_TYPES: readonly EventType[] = ['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting'];

/** The default quiet time after which an active device that has reported is silent (D40): 30 minutes. */
export const DEFAULT_SILENT_AFTER_SECONDS = 1800;

/** One schedule as the event decision sees it: its cycle (the instant of its last service) and status. */
export interface ScheduleMark {
  readonly scheduleId: number;
  /** Epoch seconds of the last service: a cycle ends when a service is recorded (D40). */
  readonly cycle: EpochSeconds;
  readonly status: ServiceStatus;
}

/** What the event decision needs of one device at one instant. */
export interface DeviceWatch {
  readonly deviceId: number;
  /** Only an active device falls silent. */
  readonly active: boolean;
  /** Epoch seconds of the newest report, `null` before the first one. */
  readonly lastReportedAt: EpochSeconds | null;
  /** The device's schedules (any order). */
  readonly schedules: readonly ScheduleMark[];
}

/** An event the core decided to raise: the outbox keeps it under `id`, which never changes (D40). */
export interface RaisedEvent {
  /** Stable: derived from what causes the event, so raising it again is raising the same event. */
  readonly id: string;
  readonly type: EventType;
  readonly deviceId: number;
  /** The schedule of a service event, else `null`. */
  readonly scheduleId: number | null;
  /** For a service event, the cycle; for a silence event, the last report before the silence. */
  readonly cause: EpochSeconds;
}

const RANK: Readonly<Record<ServiceStatus, number>> = { ok: 0, due_soon: 1, overdue: 2 };

/**
 * The id of a service event: one per schedule, cycle and status (D40).
 *
 * @param type `service.due_soon` or `service.overdue`.
 * @param scheduleId The schedule.
 * @param cycle Epoch seconds of the schedule's last service.
 * @returns The id, e.g. `evt_due_soon_s3_c1788264000`.
 */
export function serviceEventId(type: 'service.due_soon' | 'service.overdue', scheduleId: number, cycle: EpochSeconds): string {
  return `evt_${type.slice('service.'.length)}_s${scheduleId}_c${cycle}`;
}

/**
 * The id of a silence event: one per device and silence, a silence named by the last report
 * before it (D40).
 *
 * @param type `device.silent` or `device.reporting`.
 * @param deviceId The device.
 * @param lastReportedAt Epoch seconds of the report the silence follows.
 * @returns The id, e.g. `evt_silent_d7_r1795627591`.
 */
export function silenceEventId(type: 'device.silent' | 'device.reporting', deviceId: number, lastReportedAt: EpochSeconds): string {
  return `evt_${type.slice('device.'.length)}_d${deviceId}_r${lastReportedAt}`;
}

/**
 * Whether a device is silent at `now` (D40): active, has reported, and nothing for `silentAfterSeconds`.
 *
 * @param device The device.
 * @param now Epoch seconds.
 * @param silentAfterSeconds The account's quiet time.
 * @returns `true` when silent.
 */
export function isSilent(device: Pick<DeviceWatch, 'active' | 'lastReportedAt'>, now: EpochSeconds, silentAfterSeconds: number): boolean {
  return device.active && device.lastReportedAt !== null && now - device.lastReportedAt >= silentAfterSeconds;
}

/**
 * The service events of a change (D40): for each schedule of `after`, each status it has reached
 * in its cycle that `before` had not — `overdue` also reaches `due_soon` (P50), so the events do
 * not depend on how the data that caused them was batched. A status moved back raises nothing.
 * The ids are stable: the outbox stores an id once, so raising an event again changes nothing.
 *
 * @param before The device before the write (`null`: nothing known, e.g. the periodic check).
 * @param after The device after it.
 * @returns The events, `due_soon` before `overdue`, schedules by id.
 * @example
 * ```ts
 * import { decideServiceEvents } from '@fleet-hours/core';
 * const before = { deviceId: 7, active: true, lastReportedAt: 100, schedules: [{ scheduleId: 3, cycle: 50, status: 'ok' as const }] };
 * const after = { ...before, schedules: [{ scheduleId: 3, cycle: 50, status: 'overdue' as const }] };
 * decideServiceEvents(before, after).map((event) => event.id);
 * // ['evt_due_soon_s3_c50', 'evt_overdue_s3_c50']
 * ```
 */
export function decideServiceEvents(before: DeviceWatch | null, after: DeviceWatch): RaisedEvent[] {
  const events: RaisedEvent[] = [];
  for (const mark of [...after.schedules].sort((a, b) => a.scheduleId - b.scheduleId)) {
    const previous = before?.schedules.find((old) => old.scheduleId === mark.scheduleId && old.cycle === mark.cycle);
    const reachedBefore = previous === undefined ? 0 : RANK[previous.status];
    for (const type of ['service.due_soon', 'service.overdue'] as const) {
      const level = type === 'service.due_soon' ? 1 : 2;
      if (RANK[mark.status] >= level && reachedBefore < level) {
        events.push({
          id: serviceEventId(type, mark.scheduleId, mark.cycle),
          type,
          deviceId: after.deviceId,
          scheduleId: mark.scheduleId,
          cause: mark.cycle,
        });
      }
    }
  }
  return events;
}

/**
 * The silence events at `now` (D40). `openSilence` is the last report before the silence whose
 * `device.silent` was raised and not yet followed by `device.reporting` (`null`: none). A silent
 * device without an open silence raises `device.silent`; a device that reports again within its
 * quiet time closes the open silence with `device.reporting`. A write that ends a silence the
 * periodic check has not seen yet (`before` silent at `now`) raises both, so the events do not
 * depend on when the check ran.
 *
 * @param input The device before the write (`null` for the periodic check) and after, the open
 *   silence, now and the account's quiet time.
 * @returns The events, `device.silent` before `device.reporting`.
 * @example
 * ```ts
 * import { decideSilenceEvents } from '@fleet-hours/core';
 * const device = { deviceId: 7, active: true, lastReportedAt: 1000, schedules: [] };
 * decideSilenceEvents({ before: null, after: device, openSilence: null, now: 4000, silentAfterSeconds: 1800 }).map((event) => event.id);
 * // ['evt_silent_d7_r1000']
 * ```
 */
export function decideSilenceEvents(input: {
  readonly before: DeviceWatch | null;
  readonly after: DeviceWatch;
  readonly openSilence: EpochSeconds | null;
  readonly now: EpochSeconds;
  readonly silentAfterSeconds: number;
}): RaisedEvent[] {
  const { before, after, now, silentAfterSeconds } = input;
  const silentNow = isSilent(after, now, silentAfterSeconds);
  let open = input.openSilence;
  const events: RaisedEvent[] = [];
  const raise = (type: 'device.silent' | 'device.reporting', since: EpochSeconds) =>
    events.push({ id: silenceEventId(type, after.deviceId, since), type, deviceId: after.deviceId, scheduleId: null, cause: since });
  if (open === null && before !== null && before.lastReportedAt !== null && isSilent(before, now, silentAfterSeconds) && !silentNow) {
    open = before.lastReportedAt;
    raise('device.silent', open);
  }
  if (open === null && silentNow && after.lastReportedAt !== null) raise('device.silent', after.lastReportedAt);
  if (open !== null && !silentNow && after.lastReportedAt !== null && after.lastReportedAt > open) raise('device.reporting', open);
  return events;
}
