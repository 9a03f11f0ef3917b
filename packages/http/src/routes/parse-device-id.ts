/** The largest device id the API accepts: the top of PostgreSQL's `integer`, so no id ever reaches a store out of range. */
export const MAX_DEVICE_ID = 2_147_483_647;

const DEVICE_ID = /^[1-9][0-9]{0,9}$/;

/**
 * Reads the `{id}` path segment: a positive integer in canonical decimal form (no sign, no leading
 * zero, no fraction) up to {@link MAX_DEVICE_ID}.
 *
 * @param text The path segment.
 * @returns The id, or `null` when the text is no such id — which the API answers with the same 404
 *   as a missing device (D11).
 */
export function parseDeviceId(text: string): number | null {
  if (!DEVICE_ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_DEVICE_ID ? id : null;
}
