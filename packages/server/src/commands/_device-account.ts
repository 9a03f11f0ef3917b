import type { FleetHoursStore } from '@fleet-hours/core';

/**
 * The account a device belongs to, for the operator's commands that name a device alone. The port
 * looks devices up by account (a device of another account is a miss), so each account is asked;
 * an operator's command runs this once.
 *
 * @returns The account id, or `null` when no account has the device.
 */
export async function _deviceAccount(store: FleetHoursStore, deviceId: number): Promise<number | null> {
  for (const account of await store.listAccounts()) {
    if (await store.findDevice({ accountId: account.id, deviceId })) return account.id;
  }
  return null;
}
