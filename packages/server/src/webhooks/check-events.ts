import { randomUUID } from 'node:crypto';
import {
  decideServiceEvents,
  decideSilenceEvents,
  formatInstant,
  webhookBody,
  type Device,
  type DeviceService,
  type DeviceWatch,
  type FleetHours,
  type NewWebhookEvent,
  type RaisedEvent,
} from '@fleet-hours/core';
import { serviceScheduleBody } from '@fleet-hours/http';

/** Devices read per page of the periodic check (D32's largest page). */
const PAGE = 500;

/**
 * The check of events (D40): for every device of every account (the periodic check), or for the
 * devices a write named (`deviceIds`, with `accountId`), raises the service events of the statuses
 * its schedules have reached in their cycle and the silence events of its reports, each under its
 * stable id — the outbox stores an id once, so checking again raises nothing new. Each page of
 * devices costs a bounded number of store calls.
 *
 * @param input The service, now (epoch seconds) and, optionally, the one account and its devices to check.
 * @returns The number of events stored (new ones only).
 */
export async function checkEvents(input: {
  readonly fleetHours: FleetHours;
  readonly now: number;
  readonly accountId?: number;
  readonly deviceIds?: readonly number[];
}): Promise<number> {
  const { fleetHours, now } = input;
  const store = fleetHours.store;
  if (input.accountId !== undefined && input.deviceIds !== undefined)
    return _checkDevices(fleetHours, now, input.accountId, input.deviceIds);
  const accounts = input.accountId === undefined ? await store.listAccounts() : [{ id: input.accountId }];
  let stored = 0;
  for (const account of accounts) {
    const silentAfterSeconds = (await store.findSilentAfter({ accountId: account.id })) ?? 0;
    let cursor: string | undefined;
    do {
      const page = await fleetHours.fleet.service({ accountId: account.id, limit: PAGE, ...(cursor ? { cursor } : {}) });
      const devices = await store.listDevices({
        accountId: account.id,
        ...(page.items[0] ? { afterId: page.items[0].deviceId - 1 } : {}),
        limit: PAGE,
      });
      const byId = new Map(devices.map((device) => [device.id, device]));
      const open = new Map(
        (await store.listOpenSilences({ deviceIds: page.items.map((one) => one.deviceId) })).map((silence) => [
          silence.deviceId,
          silence.since,
        ]),
      );
      const events: NewWebhookEvent[] = [];
      for (const service of page.items) {
        const device = byId.get(service.deviceId);
        if (!device) continue;
        const after = _watch(device, service);
        const raised = [
          ...decideServiceEvents(null, after),
          ...decideSilenceEvents({ before: null, after, openSilence: open.get(device.id) ?? null, now, silentAfterSeconds }),
        ];
        events.push(...raised.map((event) => _newEvent(event, account.id, device, service, silentAfterSeconds, now)));
      }
      if (events.length > 0) stored += (await store.raiseEvents({ events, now })).length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return stored;
}

/** The check of some devices of one account: one service read per device (a write names a few). */
async function _checkDevices(fleetHours: FleetHours, now: number, accountId: number, deviceIds: readonly number[]): Promise<number> {
  const store = fleetHours.store;
  const silentAfterSeconds = (await store.findSilentAfter({ accountId })) ?? 0;
  const open = new Map((await store.listOpenSilences({ deviceIds })).map((silence) => [silence.deviceId, silence.since]));
  const events: NewWebhookEvent[] = [];
  for (const deviceId of deviceIds) {
    const [device, service] = await Promise.all([store.findDevice({ accountId, deviceId }), fleetHours.service({ accountId, deviceId })]);
    if (!device || !service) continue;
    const after = _watch(device, service);
    const raised = [
      ...decideServiceEvents(null, after),
      ...decideSilenceEvents({ before: null, after, openSilence: open.get(deviceId) ?? null, now, silentAfterSeconds }),
    ];
    events.push(...raised.map((event) => _newEvent(event, accountId, device, service, silentAfterSeconds, now)));
  }
  return events.length === 0 ? 0 : (await store.raiseEvents({ events, now })).length;
}

/** Requests read per round of {@link checkRequested}. */
const REQUESTS = 500;

/**
 * The checks writes asked for (P53; a store with `listEventChecks`), in one pass by device id:
 * each round reads the next 500 requests, checks their devices account by account as {@link checkEvents} does, and clears each
 * request at the version it read, so a write that came meanwhile is checked again; until none is
 * left. A request of a device that no longer exists is cleared.
 *
 * @param fleetHours The service.
 * @param now Epoch seconds.
 * @returns The number of events stored (new ones only).
 */
export async function checkRequested(fleetHours: FleetHours, now: number): Promise<number> {
  const store = fleetHours.store;
  if (!store.listEventChecks || !store.clearEventChecks) return 0;
  let stored = 0;
  let afterDeviceId = 0;
  for (;;) {
    const requests = await store.listEventChecks({ afterDeviceId, limit: REQUESTS });
    const byAccount = new Map<number, number[]>();
    for (const request of requests) {
      if (request.accountId === null) continue;
      const deviceIds = byAccount.get(request.accountId);
      if (deviceIds) deviceIds.push(request.deviceId);
      else byAccount.set(request.accountId, [request.deviceId]);
    }
    for (const [accountId, deviceIds] of byAccount) stored += await checkEvents({ fleetHours, now, accountId, deviceIds });
    await store.clearEventChecks({ checks: requests });
    if (requests.length < REQUESTS) return stored;
    afterDeviceId = requests[requests.length - 1]!.deviceId;
  }
}

/**
 * A `webhook.test` event for one endpoint (D41), under a new id.
 *
 * @param input The endpoint and its account, and now (epoch seconds).
 * @returns The event to put in the outbox.
 */
export function testEvent(input: { readonly endpointId: number; readonly accountId: number; readonly now: number }): NewWebhookEvent {
  return {
    id: `evt_test_e${input.endpointId}_${randomUUID().replaceAll('-', '')}`,
    accountId: input.accountId,
    type: 'webhook.test',
    deviceId: null,
    body: webhookBody({ type: 'webhook.test', raisedAt: input.now, data: { endpoint_id: input.endpointId } }),
    raisedAt: input.now,
    endpointId: input.endpointId,
  };
}

function _watch(device: Device, service: DeviceService): DeviceWatch {
  return {
    deviceId: device.id,
    active: device.status === 'active',
    lastReportedAt: device.lastReportedAt,
    schedules: service.schedules.map((schedule) => ({
      scheduleId: schedule.id,
      cycle: Math.floor(Date.parse(schedule.lastDoneAt) / 1000),
      status: schedule.status,
    })),
  };
}

/** The event with its body (D40): the device, and the schedule as `/service` shows it or the silence. */
function _newEvent(
  event: RaisedEvent,
  accountId: number,
  device: Device,
  service: DeviceService,
  silentAfterSeconds: number,
  now: number,
): NewWebhookEvent {
  const base = { device_id: device.id, device_name: device.name };
  let data: Record<string, unknown>;
  if (event.scheduleId !== null) {
    const schedule = service.schedules.find((one) => one.id === event.scheduleId)!;
    data = { ...base, schedule: serviceScheduleBody(schedule) };
  } else {
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
}
