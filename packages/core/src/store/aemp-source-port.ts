import type { AempSource, AempSourceFields, ClaimedAempSource } from '../aemp/aemp-source.js';
import type { AempPollRecord } from '../aemp/poll-record.js';
import type { EpochSeconds } from '../types.js';

/** A poll's record as a store keeps it (P135): with the id the store gave it. */
export interface StoredAempPoll extends AempPollRecord {
  readonly id: number;
  readonly sourceId: number;
}

/**
 * The AEMP sources' part of the storage port (D65, D66, P132–P135): an optional capability (a
 * store without it has no sources: their routes answer 404). What protects what: a source's
 * `version` guards its fields (D54: a write with `expectedVersion` applies only to that version);
 * a claim (`claimant` until an instant) guards its polls, so that one source is polled by one
 * poller at a time across every server on the store; `nextPollAt` is written only by the claim's
 * holder when it finishes. A source's reads never hold its secrets; only a claim returns them.
 */
export interface AempSourceStore {
  /** MUST store a new source at version 1, due at `now`; `null` when the account does not exist. */
  createAempSource(input: {
    readonly accountId: number;
    readonly fields: AempSourceFields;
    readonly now: EpochSeconds;
  }): Promise<AempSource | null>;

  /** MUST return the account's source, or `null` (another account's is a miss). */
  findAempSource(input: { readonly accountId: number; readonly sourceId: number }): Promise<AempSource | null>;

  /** MUST return the account's sources by id. */
  listAempSources(input: { readonly accountId: number }): Promise<readonly AempSource[]>;

  /**
   * MUST apply the changes at `now` with the version one more and return the source; `null` when
   * the account has no such source, or (with `expectedVersion`) when its version is another, in the
   * same statement or transaction.
   */
  updateAempSource(input: {
    readonly accountId: number;
    readonly sourceId: number;
    readonly changes: Partial<AempSourceFields>;
    readonly now: EpochSeconds;
    readonly expectedVersion?: number;
  }): Promise<AempSource | null>;

  /** MUST delete the source with its polls and return it; `null` when there is none (or, with `expectedVersion`, another version). */
  removeAempSource(input: {
    readonly accountId: number;
    readonly sourceId: number;
    readonly expectedVersion?: number;
  }): Promise<AempSource | null>;

  /**
   * MUST claim one source for `claimant` until `now + leaseSeconds` and return it with its secrets:
   * without `sourceId`, an enabled one due at `now` (`nextPollAt` at or before it), the earliest
   * due first; with `sourceId` (a poll asked for now), that source of `accountId`, due or not.
   * Never a source that an unexpired claim of another holds: two concurrent claims never return
   * one source. `null` when there is none to claim.
   */
  claimAempSource(input: {
    readonly claimant: string;
    readonly now: EpochSeconds;
    readonly leaseSeconds: number;
    readonly sourceId?: number;
    readonly accountId?: number;
  }): Promise<ClaimedAempSource | null>;

  /**
   * MUST store the poll's record, and, while `claimant` holds the source's claim, release it and
   * set `nextPollAt`, in one statement or transaction. `null`, storing nothing, when the source is gone.
   */
  finishAempPoll(input: {
    readonly sourceId: number;
    readonly claimant: string;
    readonly record: AempPollRecord;
    readonly nextPollAt: EpochSeconds;
  }): Promise<StoredAempPoll | null>;

  /** MUST return up to `limit` of the source's polls (of `accountId`'s source), newest first (by id), before `beforeId` when given. */
  listAempPolls(input: {
    readonly accountId: number;
    readonly sourceId: number;
    readonly limit: number;
    readonly beforeId?: number;
  }): Promise<readonly StoredAempPoll[]>;
}

/**
 * The store's AEMP sources (P132), or `null` when it does not offer them.
 *
 * @param store A store.
 * @returns The store itself as an {@link AempSourceStore}, or `null`.
 */
export function aempSourcesOf(store: Partial<AempSourceStore>): AempSourceStore | null {
  const methods = [
    store.createAempSource,
    store.findAempSource,
    store.listAempSources,
    store.updateAempSource,
    store.removeAempSource,
    store.claimAempSource,
    store.finishAempPoll,
    store.listAempPolls,
  ];
  return methods.every((method) => typeof method === 'function') ? (store as AempSourceStore) : null;
}
