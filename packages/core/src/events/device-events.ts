import { serviceScheduleBody } from './service-schedule-body.js';
import { formatInstant } from '../time/format-instant.js';
import type { Device, DeviceService, EpochSeconds, ServiceSchedule } from '../types.js';
import { decideServiceEvents, decideSilenceEvents, type DeviceWatch } from './decide-events.js';
import { webhookBody } from './webhook-message.js';
import type { NewWebhookEvent } from './webhook-records.js';

/** What the events of one device are decided from (D40): domain values, instants in epoch seconds. */
export interface DeviceEventState {
  readonly accountId: number;
  readonly device: Device;
  /** The device's schedules as stored: each one's cycle is its `lastDoneAt`. */
  readonly schedules: readonly ServiceSchedule[];
  /** The same schedules at `now`, as the service read gives them (`FleetHours.service()`): their statuses and bodies. */
  readonly service: DeviceService;
  /** The last report before the silence whose `device.silent` is not yet followed by `device.reporting`, else `null`. */
  readonly openSilence: EpochSeconds | null;
  /** The account's quiet time (`DEFAULT_SILENT_AFTER_SECONDS` when it set none). */
  readonly silentAfterSeconds: number;
  readonly now: EpochSeconds;
}

/**
 * The events a device's state raises (D40) with their bodies, ready for the outbox
 * (`FleetHoursStore.raiseEvents`): service events for the statuses its schedules have reached in
 * their cycle, silence events for its reports; each under its stable id, so raising it again
 * changes nothing. The body is `{ type, timestamp, data }`; `data` holds the device's id and name,
 * and the schedule as `/service` shows it or the silence.
 *
 * @param state The device, its schedules (as stored and at now), its open silence, now and the quiet time.
 * @returns The events, service events first, schedules by id.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore, decideDeviceEvents } from '@fleet-hours/core';
 * const store = createMemoryStore();
 * const now = 1_767_225_600;
 * const account = await store.createAccount({ name: 'Acme', plan: 'business', now });
 * const device = (await store.createDevice({ accountId: account.id, name: 'Loader 7', imei: '1', model: 'm', timeZone: 'UTC' }))!;
 * await store.importSegments({ deviceId: device.id, segments: [{ startedAt: now - 600, endedAt: now - 60, state: 'idle' }] });
 * const service = (await createFleetHours({ store, now: () => now * 1000 }).service({ accountId: account.id, deviceId: device.id }))!;
 * const events = decideDeviceEvents({ accountId: account.id, device, schedules: [], service, openSilence: null, silentAfterSeconds: 1800, now });
 * events.length; // 0: no schedule, and it reported a minute ago
 * ```
 */
export function decideDeviceEvents(state: DeviceEventState): NewWebhookEvent[] {
  const { accountId, device, service, now, silentAfterSeconds } = state;
  const shown = new Map(service.schedules.map((schedule) => [schedule.id, schedule]));
  const watch: DeviceWatch = {
    deviceId: device.id,
    active: device.status === 'active',
    lastReportedAt: device.lastReportedAt,
    schedules: state.schedules.flatMap((schedule) => {
      const at = shown.get(schedule.id);
      return at === undefined ? [] : [{ scheduleId: schedule.id, cycle: schedule.lastDoneAt, status: at.status }];
    }),
  };
  const raised = [
    ...decideServiceEvents(null, watch),
    ...decideSilenceEvents({ before: null, after: watch, openSilence: state.openSilence, now, silentAfterSeconds }),
  ];
  const base = { device_id: device.id, device_name: device.name };
  return raised.map((event): NewWebhookEvent => {
    let data: Record<string, unknown>;
    if (event.scheduleId !== null) data = { ...base, schedule: serviceScheduleBody(shown.get(event.scheduleId)!) };
    else {
      data = { ...base, last_reported_at: formatInstant(event.cause, device.timeZone), silent_after_seconds: silentAfterSeconds };
      if (event.type === 'device.reporting' && device.lastReportedAt !== null)
        data = { ...data, silent_seconds: device.lastReportedAt - event.cause };
    }
    return {
      id: event.id,
      accountId,
      type: event.type,
      deviceId: device.id,
      body: webhookBody({ type: event.type, raisedAt: now, data }),
      raisedAt: now,
      cause: event.cause,
    };
  });
}
