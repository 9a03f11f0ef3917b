import type { ChangeLog, ChangeOrigin } from './change-log.js';

/**
 * What the writes of `FleetHours.manage` are asked with (D52, D54, D55): one shape for every
 * resource's writes, and the change log of the writes given none.
 */

/** A write of an account's resource from the fields of a body (D52), by who asks (D55). */
export interface FieldsWrite {
  readonly accountId: number;
  /** The body, as parsed from JSON (or the CLI's options by the same names); checked by the write. */
  readonly fields: unknown;
  /** D55: who asks, recorded in the change log once the write has succeeded. */
  readonly origin: ChangeOrigin;
}

/** A write of one existing resource of an account (D54, D55). */
export interface ConditionalWrite {
  readonly accountId: number;
  /** D54: an `If-Match` header value: the write applies only to the resource with one of these tags (`*`: any). */
  readonly ifMatch?: string | undefined;
  /** D55: who asks, recorded in the change log once the write has succeeded. */
  readonly origin: ChangeOrigin;
}

/** A change log that writes nothing down (D55): the default of the writes that are given none (tests, tools). */
export const NO_CHANGE_LOG: ChangeLog = { record: async () => {} };
