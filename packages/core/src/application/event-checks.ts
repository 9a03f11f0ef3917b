/**
 * The check of events (D40, P53): reads the devices' state a page at a time, decides their events
 * and bodies with `decideDeviceEvents`, and puts them in the outbox. When to check (after a write,
 * every minute) is the embedder's; delivering is the sender's.
 */
import { decideDeviceEvents } from '../events/device-events.js';
import type { NewWebhookEvent } from '../events/webhook-records.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { checkArguments } from './argument-checks.js';
import { deviceMaintenance } from './device-reads.js';
import { deviceService } from './maintenance-reads.js';
import type { ReadContext } from './read-context.js';
import { servicePage, type DeviceServiceRead } from './service-pages.js';

/** The service's check of events (D40): what raises them into the outbox. */
export interface EventChecks {
  /**
   * Raises the events of every device of every account (the periodic check), of one account
   * (`accountId`), or of the devices a write named (`accountId` and `deviceIds`): the service
   * events of the statuses each schedule has reached in its cycle and the silence events of its
   * reports, each under its stable id. The outbox stores an id once, so checking again raises
   * nothing new. A page of devices costs a bounded number of store calls.
   *
   * @param input `now` in epoch seconds (default: the service's clock); the account and devices to check.
   * @returns The number of events stored (new ones only).
   */
  check(input?: { readonly now?: number; readonly accountId?: number; readonly deviceIds?: readonly number[] }): Promise<number>;
  /**
   * The checks writes asked for (P53; a store with `listEventChecks`, else nothing is done), in
   * one pass by device id: each round reads the next 500 requests, checks their devices account by
   * account, and clears each request at the version it read, so a write that came meanwhile is
   * checked again; until none is left. A request of a device that no longer exists is cleared.
   *
   * @param input `now` in epoch seconds (default: the service's clock).
   * @returns The number of events stored (new ones only).
   */
  checkRequested(input?: { readonly now?: number }): Promise<number>;
}

/** Devices read per page of the periodic check (D32's largest page). */
const _PAGE = 500;
/** Requests read per round of `checkRequested`. */
const _REQUESTS = 500;

/** The check of events over one service's reads. */
export function eventChecks(context: ReadContext): EventChecks {
  const { store } = context;
  const check: EventChecks['check'] = async (input = {}) => {
    checkArguments('events.check()', input, { now: 'seconds?', accountId: 'id?', deviceIds: 'ids?' });
    const now = input.now ?? context.nowSeconds();
    const { accountId, deviceIds } = input;
    if (accountId !== undefined && deviceIds !== undefined) {
      // One device after another: a round of requests names up to 500, and reading them all at
      // once would queue their statements ahead of the requests the pool is serving.
      const reads: DeviceServiceRead[] = [];
      for (const deviceId of deviceIds) {
        const read = await deviceMaintenance(context, { accountId, deviceId }, now, true);
        if (read)
          reads.push({
            device: read.device,
            schedules: read.schedules,
            service: deviceService(read.device, read.schedules, read.meters, now),
          });
      }
      return _raise(store, accountId, reads, now);
    }
    const accounts = accountId === undefined ? await store.listAccounts() : [{ id: accountId }];
    let stored = 0;
    for (const account of accounts) {
      let cursor: string | undefined;
      do {
        const page = await servicePage(context, { accountId: account.id, limit: _PAGE, ...(cursor ? { cursor } : {}) }, now);
        stored += await _raise(store, account.id, page.items, now);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return stored;
  };
  return {
    check,
    async checkRequested(input = {}) {
      checkArguments('events.checkRequested()', input, { now: 'seconds?' });
      if (!store.listEventChecks || !store.clearEventChecks) return 0;
      const now = input.now ?? context.nowSeconds();
      let stored = 0;
      let afterDeviceId = 0;
      for (;;) {
        const requests = await store.listEventChecks({ afterDeviceId, limit: _REQUESTS });
        const byAccount = new Map<number, number[]>();
        for (const request of requests) {
          if (request.accountId === null) continue;
          const deviceIds = byAccount.get(request.accountId);
          if (deviceIds) deviceIds.push(request.deviceId);
          else byAccount.set(request.accountId, [request.deviceId]);
        }
        for (const [accountId, deviceIds] of byAccount) stored += await check({ now, accountId, deviceIds });
        await store.clearEventChecks({ checks: requests });
        if (requests.length < _REQUESTS) return stored;
        afterDeviceId = requests[requests.length - 1]!.deviceId;
      }
    },
  };
}

/** The events of some devices of one account, decided and put in the outbox in one call; how many were new. */
async function _raise(store: FleetHoursStore, accountId: number, reads: readonly DeviceServiceRead[], now: number): Promise<number> {
  if (reads.length === 0) return 0;
  const [silentAfter, silences] = await Promise.all([
    store.findSilentAfter({ accountId }),
    store.listOpenSilences({ deviceIds: reads.map((read) => read.device.id) }),
  ]);
  const open = new Map(silences.map((silence) => [silence.deviceId, silence.since]));
  const events: NewWebhookEvent[] = reads.flatMap((read) =>
    decideDeviceEvents({ accountId, ...read, openSilence: open.get(read.device.id) ?? null, silentAfterSeconds: silentAfter ?? 0, now }),
  );
  return events.length === 0 ? 0 : (await store.raiseEvents({ events, now })).length;
}
