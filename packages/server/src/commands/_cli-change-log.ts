import { storeChangeLog, type ChangeLog, type ChangeOrigin, type FleetHoursStore } from '@fleet-hours/core';
import type { CommandContext } from './command-context.js';

/** Who makes the CLI's changes (D55): the operator at the console, under no request. */
export const CLI_ORIGIN: ChangeOrigin = Object.freeze({ actor: Object.freeze({ kind: 'cli' as const }), requestId: null });

/**
 * The change log the CLI's writes report to (D55): the store's own, stamped with the command's
 * clock, so a change by the CLI shows in `audit list` and `GET /api/v1/audit` as one by the API.
 *
 * @param store The command's store.
 * @param context The command, for its clock.
 */
export function cliChangeLog(store: FleetHoursStore, context: Pick<CommandContext, 'now'>): ChangeLog {
  return storeChangeLog(store, () => context.now * 1000);
}

/**
 * Runs a change of the CLI and its entry as one unit of the store (P102), where the store offers
 * units: `work` writes both through the store it is given, so neither is kept without the other.
 *
 * @param store The command's store.
 * @param work The change and its entry, through the store given.
 */
export function inCliUnit<T>(store: FleetHoursStore, work: (store: FleetHoursStore) => Promise<T>): Promise<T> {
  return store.atomically ? store.atomically(work) : work(store);
}
