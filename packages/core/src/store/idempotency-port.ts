import type { EpochSeconds } from '../types.js';

/**
 * What a store keeps of an idempotency key (D53): the types of the storage port's
 * `claimIdempotencyKey` and the methods beside it. `manage/idempotency.ts` decides with them.
 */

/** An answer as kept with its key (D53). */
export interface IdempotentResponse {
  readonly status: number;
  /** By the names of `IDEMPOTENT_RESPONSE_HEADERS`, those the answer had. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A key as a store keeps it (D53). */
export interface IdempotencyRecord {
  readonly accountId: number;
  readonly key: string;
  /** The request's fingerprint: a hash of its method, path and body. */
  readonly fingerprint: string;
  /** Who holds the key: the id its claim was made with. */
  readonly claimId: string;
  /** When it was claimed, epoch seconds: the start of its 24 h (and, while running, of its lease). */
  readonly createdAt: EpochSeconds;
  /** The first answer; `null` while its request runs. */
  readonly response: IdempotentResponse | null;
}

/**
 * What a claim of a key found (D53): `claimed`, the request holds the key and runs; otherwise the
 * key's entry, still running or with its answer.
 */
export type IdempotencyClaim =
  | { readonly state: 'claimed' }
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly response: IdempotentResponse };
