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
