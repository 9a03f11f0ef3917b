import type { EpochSeconds } from '../types.js';

/**
 * Who made a change (D55): an API key (its label and the first characters of its fingerprint), the
 * CLI, or a server's poller of an AEMP source (P136: its label `aemp:{source id}`).
 */
export type ChangeActor =
  | { readonly kind: 'api_key'; readonly label: string; readonly fingerprintPrefix: string }
  | { readonly kind: 'cli' }
  | { readonly kind: 'aemp_poller'; readonly label: string };

/**
 * One entry of an account's change log (D55), as a store keeps it: when, who (the actor, as the
 * write named it), under which request, which action on which resource, and the fields changed,
 * each `[before, after]` (secrets already written as `"[redacted]"`).
 */
export interface AuditEntry {
  /** Positive, unique in the store, larger for every entry appended later (P87: the order of the log). */
  readonly id: number;
  readonly accountId: number;
  /** When the change was recorded, epoch seconds. */
  readonly at: EpochSeconds;
  readonly actor: ChangeActor;
  readonly requestId: string | null;
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string };
  /** Field → `[before, after]`, JSON values. */
  readonly changes: Readonly<Record<string, readonly [unknown, unknown]>>;
}

/** An entry to append: everything but its id. */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** The change log's part of the storage port (D55, P87). */
export interface AuditLogStore {
  /**
   * MUST append the entry with a new id, larger than the id of every entry appended before it
   * returned, and return it; `null` when the account does not exist. `at` MUST be checked with
   * `assertEpochSeconds`.
   */
  appendAuditEntry(input: NewAuditEntry): Promise<AuditEntry | null>;

  /**
   * MUST return the account's entries newest first (id descending): only ids below `beforeId` when
   * it is given, and at most `limit` (a positive safe integer, else a RangeError naming it).
   */
  listAuditEntries(input: {
    readonly accountId: number;
    readonly beforeId?: number;
    readonly limit: number;
  }): Promise<readonly AuditEntry[]>;

  /** MUST delete every entry, of every account, recorded before `before` (epoch seconds), and return how many it deleted. */
  removeAuditEntriesBefore(input: { readonly before: EpochSeconds }): Promise<number>;
}
