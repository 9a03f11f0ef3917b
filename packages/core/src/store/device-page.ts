import type { FleetHoursStore } from './storage-port.js';

/**
 * P152: checks the page asked of `listDevicePage`, naming the field at fault: `offset` a
 * non-negative safe integer, `limit` a positive one.
 *
 * @throws RangeError naming `offset` or `limit`.
 * @example
 * ```ts
 * import { assertDevicePage } from '@fleet-hours/core/adapter';
 * assertDevicePage({ offset: 100, limit: 100 }); // passes
 * ```
 */
export function assertDevicePage(input: { readonly offset: number; readonly limit: number }): void {
  if (!(Number.isSafeInteger(input.offset) && input.offset >= 0))
    throw new RangeError(`offset must be a non-negative safe integer, got "${input.offset}"`);
  if (!(Number.isSafeInteger(input.limit) && input.limit >= 1))
    throw new RangeError(`limit must be a positive safe integer, got "${input.limit}"`);
}

/**
 * P152: `listDevicePage` cut from the account's whole list (`listDevices`): the memory store's
 * answer, and the core's for a store without the capability.
 */
export function devicePageFromList(store: Pick<FleetHoursStore, 'listDevices'>): NonNullable<FleetHoursStore['listDevicePage']> {
  return async (input) => {
    assertDevicePage(input);
    const listed = await store.listDevices({ accountId: input.accountId });
    return { devices: listed.slice(input.offset, input.offset + input.limit), count: listed.length };
  };
}
