import { formatInstant, type AuditEntry, type FleetHours } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { listPageQuery, listRoute, pagedList } from './list-route.js';

/** An entry of the change log as the API shows it (D55, spec "AuditEntry"). */
export interface AuditEntryBody {
  readonly id: number;
  /** When the change was recorded: a timestamp in UTC. */
  readonly at: string;
  /** An API key by its label and the first characters of its fingerprint, or the CLI (both `null`). */
  readonly actor: {
    readonly kind: 'api_key' | 'cli' | 'aemp_poller';
    readonly label: string | null;
    readonly fingerprint_prefix: string | null;
  };
  /** The request's `X-Request-Id`; `null` from the CLI. */
  readonly request_id: string | null;
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string };
  /** Each field changed, `[before, after]`; secrets as `"[redacted]"`. */
  readonly changes: Readonly<Record<string, readonly [unknown, unknown]>>;
}

/**
 * An entry of the change log as `GET /api/v1/audit` shows it (D55). Exported so that other front
 * ends (the operator CLI's `audit list --json`) show entries exactly as the API does.
 *
 * @param entry The stored entry.
 * @returns Its JSON body.
 * @example
 * ```ts
 * import { auditEntryBody } from '@fleet-hours/http';
 * auditEntryBody({ id: 1, accountId: 1, at: 1767225600, actor: { kind: 'cli' }, requestId: null, action: 'device.update', resource: { type: 'device', id: '7' }, changes: { name: ['A', 'B'] } }).at; // '2026-01-01T00:00:00+00:00'
 * ```
 */
export function auditEntryBody(entry: AuditEntry): AuditEntryBody {
  const { actor } = entry;
  return {
    id: entry.id,
    at: formatInstant(entry.at, 'UTC'),
    actor:
      actor.kind === 'api_key'
        ? { kind: 'api_key', label: actor.label, fingerprint_prefix: actor.fingerprintPrefix }
        : actor.kind === 'aemp_poller'
          ? { kind: 'aemp_poller', label: actor.label, fingerprint_prefix: null }
          : { kind: 'cli', label: null, fingerprint_prefix: null },
    request_id: entry.requestId,
    action: entry.action,
    resource: { type: entry.resource.type, id: entry.resource.id },
    changes: entry.changes,
  };
}

/** `GET /api/v1/audit`: the account's change log, newest first, a page at a time (D55, P87): `{ data, next_cursor }`; in CSV, every page (D62). */
export function listAuditRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  return listRoute('listAudit', options.now, async function listAudit(c, { whole }) {
    const page = listPageQuery(parsePageQuery(c.req.queries(), 'audit'), 'audit', whole);
    return pagedList(async (cursor) => {
      const { entries, nextCursor } = await options.fleetHours.audit.list({ accountId: accountId(c), ...page, cursor });
      return { body: { data: entries.map(auditEntryBody), next_cursor: nextCursor }, nextCursor };
    }, page.cursor);
  });
}
