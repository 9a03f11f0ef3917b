/**
 * The opaque `cursor` of the fleet endpoints (D32, P33): where the next page starts, for one
 * endpoint and one account.
 *
 * A cursor is base64url (no padding) of the JSON array `[1, endpoint, accountId, afterDeviceId,
 * check]`: version 1, the endpoint it was made for, the account whose devices it walks, the last
 * device id of the page it came with (the next page starts after it: a keyset, so devices added
 * meanwhile never shift the walk), and a check tag over the rest, so that a cursor edited or cut by
 * hand is refused as malformed rather than read as some other position. The check is not a
 * secret: a cursor grants nothing, since every page is read with the key's own account.
 */
import { InvalidParameterError } from '../errors/errors.js';
import { PAGED_ENDPOINTS, type PagedEndpoint } from '../access/read-endpoints.js';

const VERSION = 1;
/** The endpoint tags a cursor may carry, and the template each stands for (the paged rows of `READ_ENDPOINTS` and `MANAGE_ENDPOINTS`). */
const ENDPOINTS: readonly PagedEndpoint[] = PAGED_ENDPOINTS.map(({ paging }) => paging.cursor);
const TEMPLATES = Object.fromEntries(PAGED_ENDPOINTS.map(({ paging, template }) => [paging.cursor, template])) as Readonly<
  Record<PagedEndpoint, string>
>;
/** Longer text is no cursor of ours (a real one is under 60 characters). */
const MAX_LENGTH = 200;

/** What a cursor says. */
export interface FleetCursor {
  readonly endpoint: PagedEndpoint;
  readonly accountId: number;
  /** The last id of the page: a device's on a fleet page, an entry's on the change log (P87, whose pages go down from it). */
  readonly afterDeviceId: number;
}

/** The cursor text for a position. */
export function encodeFleetCursor(cursor: FleetCursor): string {
  const payload = [VERSION, cursor.endpoint, cursor.accountId, cursor.afterDeviceId] as const;
  const json = JSON.stringify([...payload, _check(payload)]);
  return btoa(json).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Reads a cursor given to `endpoint` by a key of `accountId`: the device id the page starts after.
 *
 * @throws {InvalidParameterError} Naming `cursor`, when the text is not a cursor of this API, or
 *   is one of another endpoint or another account.
 */
export function decodeFleetCursor(text: string, expected: { readonly endpoint: PagedEndpoint; readonly accountId: number }): number {
  const decoded = _decode(text);
  if (decoded === null) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    throw new InvalidParameterError(
      'cursor',
      `Parameter cursor "${shown}" is not a cursor of this API: give the next_cursor of a previous page`,
    );
  }
  if (decoded.endpoint !== expected.endpoint) {
    throw new InvalidParameterError(
      'cursor',
      `Parameter cursor is a cursor of ${TEMPLATES[decoded.endpoint]}, not of ${TEMPLATES[expected.endpoint]}: give the next_cursor of a page of this endpoint`,
    );
  }
  if (decoded.accountId !== expected.accountId) {
    throw new InvalidParameterError(
      'cursor',
      'Parameter cursor belongs to another account: give the next_cursor of a page read with a key of this account',
    );
  }
  return decoded.afterDeviceId;
}

function _decode(text: string): FleetCursor | null {
  if (text.length === 0 || text.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  let value: unknown;
  try {
    value = JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 5) return null;
  const [version, endpoint, accountId, afterDeviceId, check] = value as unknown[];
  if (version !== VERSION || !ENDPOINTS.includes(endpoint as PagedEndpoint) || !_isId(accountId) || !_isId(afterDeviceId)) return null;
  const payload = [VERSION, endpoint as PagedEndpoint, accountId, afterDeviceId] as const;
  if (check !== _check(payload)) return null;
  // Only the canonical text is accepted: one position has one cursor.
  if (encodeFleetCursor({ endpoint: payload[1], accountId, afterDeviceId }) !== text) return null;
  return { endpoint: payload[1], accountId, afterDeviceId };
}

function _isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** FNV-1a (32 bits) of the payload, in base 36: catches edits and truncation, not forgery (none is needed). */
function _check(payload: readonly unknown[]): string {
  const text = payload.join('|');
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}
