import type { Device, FleetHoursStore } from '@fleet-hours/core';

/**
 * A device and the account it belongs to, for the operator's commands that name a device alone.
 * The port looks devices up by account (a device of another account is a miss), so each account is
 * asked; an operator's command runs this once.
 *
 * @returns The device and its account id, or `null` when no account has the device.
 */
export async function _findDeviceOfAnyAccount(
  store: FleetHoursStore,
  deviceId: number,
): Promise<{ readonly accountId: number; readonly device: Device } | null> {
  for (const account of await store.listAccounts()) {
    const device = await store.findDevice({ accountId: account.id, deviceId });
    if (device) return { accountId: account.id, device };
  }
  return null;
}

/**
 * The account a device belongs to (see {@link _findDeviceOfAnyAccount}).
 *
 * @returns The account id, or `null` when no account has the device.
 */
export async function _deviceAccount(store: FleetHoursStore, deviceId: number): Promise<number | null> {
  return (await _findDeviceOfAnyAccount(store, deviceId))?.accountId ?? null;
}
