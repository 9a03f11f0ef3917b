/**
 * The change log over a store (D55): the `ChangeLog` every write of `FleetHours.manage` reports to
 * by default, and the read of an account's log, newest first, a page at a time (P87).
 */
import { decodeFleetCursor, encodeFleetCursor } from '../fleet/fleet-cursor.js';
import { pageSize } from '../fleet/parse-page-query.js';
import type { AuditEntry } from '../store/audit-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device } from '../types.js';
import { fieldChanges, type ChangeLog } from './change-log.js';

/**
 * The change log kept in the store (D55): each change reported becomes one entry of its account,
 * stamped with the clock, its fields changed computed by `fieldChanges` (secrets as
 * `"[redacted]"`). A change of an account that no longer exists is dropped. The entry is appended
 * after the change succeeded, through the store of the change's unit where the store offers
 * `atomically` (P102): when it cannot be written, the error reaches the caller and the change is
 * not kept either.
 *
 * @param store The store.
 * @param now The clock, epoch milliseconds.
 * @returns The change log.
 * @example
 * ```ts
 * import { createMemoryStore, storeChangeLog } from '@fleet-hours/core';
 * const store = createMemoryStore();
 * const changeLog = storeChangeLog(store, Date.now);
 * ```
 */
export function storeChangeLog(store: FleetHoursStore, now: () => number): ChangeLog {
  return {
    // P102: the entry goes through the store of the change's unit.
    over: (unitStore) => storeChangeLog(unitStore, now),
    async record(change) {
      await store.appendAuditEntry({
        accountId: change.accountId,
        at: Math.floor(now() / 1000),
        actor: change.origin.actor,
        requestId: change.origin.requestId,
        action: change.action,
        resource: change.resource,
        changes: fieldChanges(change.before, change.after, change.secretFields),
      });
    },
  };
}

/** A page of an account's change log (P87): newest first, and the cursor of the next page (`null`: the last). */
export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  readonly nextCursor: string | null;
}

/** The read of the change log (D55): what `GET /api/v1/audit` and `fleet-hours audit list` answer. */
export interface AuditReads {
  /**
   * A page of the account's change log, newest first (P87).
   *
   * @throws {InvalidParameterError} `limit` not a whole number from 1 to the page maximum, or a
   *   `cursor` that is not the `next_cursor` of a page of this account's log.
   */
  list(input: {
    readonly accountId: number;
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
  }): Promise<AuditPage>;
}

/**
 * The read of the change log over a store (P87): a keyset on the entry id, going down from the
 * cursor's entry, one more entry asked than shown to know whether a next page exists.
 *
 * @param store The store.
 * @returns The read.
 */
export function auditReads(store: FleetHoursStore): AuditReads {
  return {
    async list({ accountId, limit, cursor }) {
      const size = pageSize('audit', limit);
      const beforeId = cursor === undefined ? undefined : decodeFleetCursor(cursor, { endpoint: 'audit', accountId });
      const fetched = await store.listAuditEntries({ accountId, limit: size + 1, ...(beforeId === undefined ? {} : { beforeId }) });
      const entries = fetched.slice(0, size);
      const nextCursor =
        fetched.length > size ? encodeFleetCursor({ endpoint: 'audit', accountId, afterDeviceId: entries[entries.length - 1]!.id }) : null;
      return { entries, nextCursor };
    },
  };
}

/**
 * A device as the change log compares it (D55): its fields by their names in the API's body
 * (`timezone`, snake_case), without the account and without `last_reported_at`, which telemetry
 * moves and no write changes.
 *
 * @param device The device.
 * @returns Its fields.
 */
export function deviceChangeFields(device: Device): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(device)) {
    if (name === 'accountId' || name === 'lastReportedAt') continue;
    fields[name === 'timeZone' ? 'timezone' : name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  }
  return fields;
}
