/**
 * Where the changes of `FleetHours.manage` are written down (D55): who made a change, under which
 * request, to which resource, and the fields it changed. Every write of the fleet, by the API or by
 * the CLI, names its origin and reports its change here once it has succeeded.
 */
import type { ChangeActor } from '../store/audit-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';

export type { ChangeActor } from '../store/audit-port.js';

/** Who asks for a change, and under which request (D55): every write of `FleetHours.manage` takes one. */
export interface ChangeOrigin {
  readonly actor: ChangeActor;
  /** The request's id (`X-Request-Id`); `null` from the CLI. */
  readonly requestId: string | null;
}

/** A change as a write reports it (D55). */
export interface ChangeReport {
  readonly accountId: number;
  readonly origin: ChangeOrigin;
  /** `{resource}.{verb}`, e.g. `device.update`, `service_schedule.delete`. */
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string };
  /** The resource before the change, in its API shape; `null` for a creation. */
  readonly before: Readonly<Record<string, unknown>> | null;
  /** The resource after the change, in its API shape; `null` for a removal. */
  readonly after: Readonly<Record<string, unknown>> | null;
  /** Fields whose values are secrets: written as `"[redacted]"` (D55). */
  readonly secretFields?: readonly string[];
}

/** Receives the changes of the fleet (D55). */
export interface ChangeLog {
  record(change: ChangeReport): Promise<void>;
  /**
   * The same log, written through `store` (P102): a write of `FleetHours.manage` asks for it with
   * the store of its unit (`atomically`), so that the entry is written in the change's unit, kept
   * with it or not at all. A log kept outside the store leaves it out: its `record` is then called
   * inside the unit, and an error it throws undoes the change.
   */
  over?(store: FleetHoursStore): ChangeLog;
}

/** The text a secret's value is written as (D55). */
export const REDACTED = '[redacted]';

/**
 * The fields a change changed, each as `[before, after]` (D55): every field whose JSON differs,
 * secrets as {@link REDACTED}.
 *
 * @example
 * ```ts
 * import { fieldChanges } from '@fleet-hours/core';
 * fieldChanges({ name: 'A', imei: '1' }, { name: 'B', imei: '1' }); // { name: ['A', 'B'] }
 * ```
 */
export function fieldChanges(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>> | null,
  secretFields: readonly string[] = [],
): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of fields) {
    const was = before?.[field] ?? null;
    const is = after?.[field] ?? null;
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    changes[field] = secretFields.includes(field) ? [was === null ? null : REDACTED, is === null ? null : REDACTED] : [was, is];
  }
  return changes;
}
