import { FleetHoursError } from '../errors/errors.js';

/**
 * An entity tag (D54): a strong `ETag` over the values a write can change, FNV-1a in 64 bits, so
 * that a client can name the version it read in `If-Match`.
 *
 * @param prefix Tells resources apart: `w` for a webhook endpoint.
 * @param values The values the tag covers, as JSON.
 * @returns The tag, quoted: `"w-0123456789abcdef"`.
 */
export function entityTag(prefix: string, values: readonly unknown[]): string {
  let hash = 0xcbf29ce484222325n;
  for (const unit of new TextEncoder().encode(JSON.stringify(values)))
    hash = ((hash ^ BigInt(unit)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return `"${prefix}-${hash.toString(16).padStart(16, '0')}"`;
}

/** Whether an `If-Match` value names the tag: `*`, or one of its comma-separated strong tags (RFC 9110). */
export function ifMatchNames(ifMatch: string, tag: string): boolean {
  return ifMatch.split(',').some((each) => each.trim() === '*' || each.trim() === tag);
}

/** 412 `precondition_failed` (D54), naming what changed. */
export function preconditionFailed(what: string): FleetHoursError {
  return new FleetHoursError('precondition_failed', {
    message: `The ${what} changed since the If-Match tag was read: read it again, then send its new ETag`,
  });
}
