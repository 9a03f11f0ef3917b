import type { FleetHoursStore } from '../store/storage-port.js';
import type { ChangeLog } from './change-log.js';

/** What a write of `FleetHours.manage` makes its change with (P102): the store of its unit and the change log written through it. */
export interface ChangeUnit {
  readonly store: FleetHoursStore;
  readonly changeLog: ChangeLog;
}

/** Runs a write as one unit (P102): `work` reads, changes and reports through what it is given. */
export type RunChange = <T>(work: (unit: ChangeUnit) => Promise<T>) => Promise<T>;

/**
 * The units of the writes of `FleetHours.manage` (D55, P102): each write reads, makes its change
 * and reports it to the change log inside one `atomically` of the store, the log written through
 * the unit's store (`ChangeLog.over`), so that a change is kept exactly when its entry is. A store
 * without `atomically` runs the work over itself, as before: the change first, then the entry.
 *
 * @param store The store.
 * @param changeLog Where the changes are reported.
 * @returns The runner of units.
 */
export function changeUnits(store: FleetHoursStore, changeLog: ChangeLog): RunChange {
  return (work) =>
    store.atomically
      ? store.atomically((unitStore) => work({ store: unitStore, changeLog: changeLog.over?.(unitStore) ?? changeLog }))
      : work({ store, changeLog });
}
