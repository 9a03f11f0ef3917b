import { FleetHoursError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { EpochSeconds } from '../types.js';
import type { IdempotencyClaim, IdempotentResponse } from '../store/idempotency-port.js';

export type { IdempotencyClaim, IdempotencyRecord, IdempotentResponse } from '../store/idempotency-port.js';

/**
 * Idempotent POSTs (D53): a client that sends `Idempotency-Key` with a POST may send the request
 * again — after a timeout, a lost connection — and get the first answer instead of a second
 * change. The key is the account's: another account's same key is another key. This file decides;
 * the store keeps the keys (`claimIdempotencyKey` and the methods beside it), the HTTP layer reads
 * the header, the body and the answer.
 */

/** The request header (D53). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The header of an answer given again (D53): `true`. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The longest key, in characters (D53). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** How long a key answers its first answer again, in seconds (D53): 24 hours from its first request. */
export const IDEMPOTENCY_KEY_WINDOW_SECONDS = 24 * 60 * 60;

/**
 * P84: how long a request may hold its key before the key counts as abandoned, in seconds. A server
 * that stops mid-request (a crash, a deploy) leaves its key claimed with no answer; after this lease
 * the next request with the key runs instead of answering 409 forever. A write's request makes a few
 * database calls of at most 5 s each (D28) and its body is read before the key is claimed, so a
 * request still running after 60 s is not running any more.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;

/** The headers of an answer kept with its key and given again (D53); the rate-limit and request-id headers are the new request's own. */
export const IDEMPOTENT_RESPONSE_HEADERS = ['Content-Type', 'Cache-Control', 'Location', 'ETag'] as const;

/** What to do with a request that sent a key (D53). */
export type IdempotencyDecision =
  | { readonly action: 'run' }
  | { readonly action: 'replay'; readonly response: IdempotentResponse }
  | { readonly action: 'refuse'; readonly error: FleetHoursError };

/**
 * Checks an `Idempotency-Key` header value (D53): 1 to 255 visible ASCII characters (`!` to `~`).
 *
 * @param value The header's value; `undefined` or `null` when the request has none.
 * @returns The key, or `null` without the header.
 * @throws {FleetHoursError} 400 `invalid_header` naming the header.
 * @example
 * ```ts
 * import { readIdempotencyKey } from '@fleet-hours/core';
 * readIdempotencyKey('order-7f3a'); // 'order-7f3a'
 * readIdempotencyKey(undefined); // null
 * ```
 */
export function readIdempotencyKey(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(value))
    throw new FleetHoursError('invalid_header', {
      message: `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces)`,
      details: { header: IDEMPOTENCY_KEY_HEADER },
    });
  return value;
}

/**
 * Decides a request that sent a key from what its claim found (D53): the key claimed runs it; a
 * key of another request (another method, path or body) is 422 `idempotency_key_reused`, running
 * or not; the same request still running is 409 `idempotency_key_in_use`; done, its answer again.
 *
 * @param claim What the store's claim found.
 * @param fingerprint The request's fingerprint.
 * @returns The decision.
 * @example
 * ```ts
 * import { decideIdempotency } from '@fleet-hours/core';
 * decideIdempotency({ state: 'running', fingerprint: 'a' }, 'a').action; // 'refuse' (409)
 * ```
 */
export function decideIdempotency(claim: IdempotencyClaim, fingerprint: string): IdempotencyDecision {
  if (claim.state === 'claimed') return { action: 'run' };
  if (claim.fingerprint !== fingerprint)
    return {
      action: 'refuse',
      error: new FleetHoursError('idempotency_key_reused', {
        message: `This ${IDEMPOTENCY_KEY_HEADER} was used in the last 24 hours for another request (another method, path or body): use a new key`,
      }),
    };
  if (claim.state === 'running') return { action: 'refuse', error: new FleetHoursError('idempotency_key_in_use') };
  return { action: 'replay', response: claim.response };
}

/** Whether an answer is kept with its key (D53): a 5xx is not, so that the request may be sent again and run. */
export function keepsIdempotentResponse(status: number): boolean {
  return status < 500;
}

/** The idempotent requests of a service (D53): every front end that takes a key. */
export interface IdempotentRequests {
  /**
   * Claims the key for a request, or finds what the key holds, and decides (see {@link decideIdempotency}).
   *
   * @param input The account, the key (checked by {@link readIdempotencyKey}), the request's
   *   fingerprint and an id of this request, unique (a random UUID), that {@link finish} names.
   */
  begin(input: {
    readonly accountId: number;
    readonly key: string;
    readonly fingerprint: string;
    readonly claimId: string;
  }): Promise<IdempotencyDecision>;
  /**
   * Keeps the answer of a request that ran with the key, or, for a 5xx, gives the key up (D53).
   *
   * @returns `false` when the claim was lost meanwhile (its lease ran out and another request took the key): nothing kept.
   */
  finish(input: {
    readonly accountId: number;
    readonly key: string;
    readonly claimId: string;
    readonly response: IdempotentResponse;
  }): Promise<boolean>;
  /** Forgets the keys past their 24 h (D53), for the periodic upkeep. @returns How many were removed. */
  removeExpired(): Promise<number>;
}

/**
 * The idempotent requests over a store (D53, P84).
 *
 * @param store The store.
 * @param nowSeconds The clock, epoch seconds.
 * @returns The service's part.
 */
export function idempotentRequests(store: FleetHoursStore, nowSeconds: () => EpochSeconds): IdempotentRequests {
  return {
    async begin({ accountId, key, fingerprint, claimId }) {
      const now = nowSeconds();
      const claim = await store.claimIdempotencyKey({
        accountId,
        key,
        fingerprint,
        claimId,
        now,
        expiredBefore: now - IDEMPOTENCY_KEY_WINDOW_SECONDS,
        abandonedBefore: now - IDEMPOTENCY_LEASE_SECONDS,
      });
      return decideIdempotency(claim, fingerprint);
    },
    async finish({ accountId, key, claimId, response }) {
      if (keepsIdempotentResponse(response.status)) return store.completeIdempotencyKey({ accountId, key, claimId, response });
      await store.releaseIdempotencyKey({ accountId, key, claimId });
      return true;
    },
    async removeExpired() {
      return store.removeExpiredIdempotencyKeys({ before: nowSeconds() - IDEMPOTENCY_KEY_WINDOW_SECONDS });
    },
  };
}
