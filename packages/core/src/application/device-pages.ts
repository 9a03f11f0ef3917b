/** The building blocks of a fleet page (D32): its devices after the cursor, and their maintenance figures, each in a bounded number of store calls. */
import { toEngineSeconds } from '../engine/engine-seconds.js';
import { decodeFleetCursor, encodeFleetCursor } from '../fleet/fleet-cursor.js';
import { pageSize, type FleetEndpoint } from '../fleet/parse-page-query.js';
import type { Device } from '../types.js';
import { hourMetersOf, maintenanceFacts } from './maintenance-reads.js';
import type { ReadContext } from './read-context.js';
import type { FleetPageQuery } from './read-queries.js';

/** The meter figures, readings, schedules (when asked) and hour meters of a page's devices: a bounded number of store calls (D32). */
export async function pageMaintenance(context: ReadContext, devices: readonly Device[], now: number, withSchedules: boolean) {
  const ids = devices.map((device) => device.id);
  const [summaries, facts] = await Promise.all([context.sums.summarizeMany(ids, now), maintenanceFacts(context.store, ids, withSchedules)]);
  const engine = summaries.map((summary) => toEngineSeconds(summary).engineSeconds);
  const meters = await hourMetersOf(context.sums.hourMeterPage, devices, engine, facts, now);
  return { summaries, facts, meters };
}

/**
 * The devices of one page (D32): a keyset after the cursor's device, one more than asked to know
 * whether a next page exists; with `count` `null`, every device after the cursor (D49).
 */
export async function devicePage(
  context: ReadContext,
  endpoint: FleetEndpoint,
  query: FleetPageQuery,
  count: number | null = pageSize(endpoint, query.limit),
): Promise<{ devices: readonly Device[]; nextCursor: string | null }> {
  const size = count ?? Number.POSITIVE_INFINITY;
  const afterId = query.cursor === undefined ? undefined : decodeFleetCursor(query.cursor, { endpoint, accountId: query.accountId });
  const fetched = await context.store.listDevices({
    accountId: query.accountId,
    ...(afterId === undefined ? {} : { afterId }),
    ...(count === null ? {} : { limit: count + 1 }),
    // D61, D49: the store keeps only the devices having the tag, in the same one call.
    ...(query.tag === undefined ? {} : { tag: query.tag }),
  });
  const devices = fetched.slice(0, size);
  devices.forEach(context.zones.remember);
  const nextCursor =
    fetched.length > size
      ? encodeFleetCursor({ endpoint, accountId: query.accountId, afterDeviceId: devices[devices.length - 1]!.id })
      : null;
  return { devices, nextCursor };
}
