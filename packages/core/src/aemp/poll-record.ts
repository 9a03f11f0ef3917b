import type { EpochSeconds } from '../types.js';
import type { AempStop } from './poll-page.js';
import type { AempRefusal } from './poll-readings.js';

// The record of a poll of an AEMP source (D66), apart from the poll, so that a store's port names it without a cycle.

/** Equipment no device of the account matched (D65): its identity as the feed gave it. */
export interface AempUnmatched {
  readonly pin: string | null;
  readonly oemName: string | null;
  readonly serialNumber: string | null;
}

/** How a poll failed (D66): the HTTP status (`null` when no answer came) and a message without secrets. */
export interface AempPollError {
  readonly status: number | null;
  readonly message: string;
}

/** The record of one poll (D66), without the id its store gives it. */
export interface AempPollRecord {
  readonly sourceId: number | string;
  readonly startedAt: EpochSeconds;
  readonly finishedAt: EpochSeconds;
  readonly pages: number;
  readonly equipmentSeen: number;
  readonly matched: number;
  readonly unmatched: readonly AempUnmatched[];
  readonly readingsStored: number;
  readonly readingsRefused: readonly AempRefusal[];
  readonly error: AempPollError | null;
  /** Why the walk ended without an error; `null` after an error. */
  readonly stop: AempStop | null;
}
