import { FleetHoursError } from '../errors/errors.js';
/**
 * Entity tags of managed resources (D54, P77): a strong tag that is a hash of the fields a write can
 * change, and the reading of an `If-Match` header against it.
 */

/**
 * A strong entity tag over some values: FNV-1a, 64 bits, of their JSON, behind a prefix that says
 * what the resource is (`s` a service schedule, `r` a reading).
 *
 * @param prefix The kind of resource.
 * @param values The fields a write can change, in a fixed order.
 * @returns The version, unquoted: `s-0123456789abcdef`; the `ETag` header is it in double quotes.
 */
export function entityVersion(prefix: string, values: readonly unknown[]): string {
  let hash = 0xcbf29ce484222325n;
  for (const unit of new TextEncoder().encode(JSON.stringify(values)))
    hash = ((hash ^ BigInt(unit)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return `${prefix}-${hash.toString(16).padStart(16, '0')}`;
}

/** Whether an `If-Match` value names the version: `*`, or one of its comma-separated strong tags (RFC 9110). */
export function ifMatchNames(ifMatch: string, version: string): boolean {
  return ifMatch.split(',').some((each) => each.trim() === '*' || each.trim() === `"${version}"`);
}

/**
 * The 412 of a write whose `If-Match` names none of the resource's versions, also when it changed
 * between the read and the write (D54).
 *
 * @param what The resource, as the message names it: `device`, `service schedule`, …
 */
export function preconditionFailed(what: string): FleetHoursError {
  return new FleetHoursError('precondition_failed', {
    message: `The ${what} changed since the If-Match tag was read: read it again, then send its new ETag`,
  });
}
