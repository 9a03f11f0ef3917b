import { idempotentRequests, type FleetHoursStore } from '@fleet-hours/core';
import { readServerSetting } from '../cli/server-settings.js';
import { figuresDatabase } from './figures.js';
import type { CommandContext, CommandResult } from './command-context.js';

/**
 * `maintenance [--telemetry-retention-days DAYS]` (D42, D43): the telemetry upkeep every running
 * server does each hour, once, for a host that runs it from cron: creates the monthly partitions
 * of the current month and the next ones, and with a retention drops the whole partitions older
 * than the horizon. The retention is read like `serve`'s (flag, else
 * `FLEET_HOURS_TELEMETRY_RETENTION_DAYS`, else 0: keep every point).
 *
 * `--json`: `{ retention_days, horizon, created, dropped, pending, busy, idempotency_keys_removed, audit }`
 * (`horizon` ISO 8601 UTC, `null` without retention; the partitions by name; the keys of
 * idempotent POSTs past their 24 hours removed, D53; `audit`: the change log's `{ retention_days,
 * horizon, removed }`, D55, P89: `--audit-retention-days`, default 365).
 *
 * D46: the drops run in a database session of their own, without the request deadline, one run at
 * a time: `busy` when another run (a server, cron) held the lock, and `pending` the partitions left
 * to the next run because transactions still read the table (already refused and ignored by
 * `verify`). A detach an earlier run left pending is finished first.
 */
export async function maintenanceCommand(context: CommandContext): Promise<CommandResult> {
  const retentionDays = readServerSetting('telemetryRetentionDays', context.options, context.io.env, 'maintenance');
  const auditRetentionDays = readServerSetting('auditRetentionDays', context.options, context.io.env, 'maintenance');
  const db = await figuresDatabase(context, 'Telemetry partitions are kept');
  const { maintainTelemetryPartitions } = await import('@fleet-hours/storage-kysely');
  const done = await maintainTelemetryPartitions(db, { now: context.now, retentionDays });
  const horizon = done.horizon === null ? null : new Date(done.horizon * 1000).toISOString().replace('.000Z', 'Z');
  const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));
  const kept = horizon === null ? 'every point is kept (no retention)' : `points before ${horizon} are dropped (${retentionDays} days)`;
  const left =
    done.pending.length === 0
      ? ''
      : `Left to the next run, because transactions still read telemetry_points: ${list(done.pending)} (their points are refused already); run maintenance again once those transactions end.\n`;
  const busy = done.busy ? 'Another maintenance run was dropping partitions at the same time: this one dropped none.\n' : '';
  // D53: the keys of idempotent POSTs past their 24 hours.
  const removed = await idempotentRequests(await context.store(), () => context.now).removeExpired();
  // D55, P89: the change log's entries past its retention.
  const audit = await removeOldAuditEntries(await context.store(), context.now, auditRetentionDays);
  const auditText =
    audit.horizon === null
      ? 'Change log: every entry is kept (no retention).\n'
      : `Change log: removed ${audit.removed} ${audit.removed === 1 ? 'entry' : 'entries'} recorded before ${iso(audit.horizon)} (${auditRetentionDays} days).\n`;
  return {
    json: {
      retention_days: retentionDays,
      horizon,
      created: done.created,
      dropped: done.dropped,
      pending: done.pending,
      busy: done.busy,
      idempotency_keys_removed: removed,
      audit: { retention_days: auditRetentionDays, horizon: audit.horizon === null ? null : iso(audit.horizon), removed: audit.removed },
    },
    text: `Telemetry partitions created: ${list(done.created)}; dropped: ${list(done.dropped)}; ${kept}.\n${left}${busy}Idempotency keys past their 24 hours removed: ${removed}.\n${auditText}`,
  };
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Removes the change log's entries recorded more than `retentionDays` before `now` (D55, P89); `0`
 * keeps every entry. What `maintenance` and every running server's hourly upkeep do.
 *
 * @returns The horizon (epoch seconds; `null` without retention) and how many entries were removed.
 */
export async function removeOldAuditEntries(
  store: Pick<FleetHoursStore, 'removeAuditEntriesBefore'>,
  now: number,
  retentionDays: number,
): Promise<{ readonly horizon: number | null; readonly removed: number }> {
  if (retentionDays === 0) return { horizon: null, removed: 0 };
  const horizon = now - retentionDays * 86_400;
  return { horizon, removed: await store.removeAuditEntriesBefore({ before: horizon }) };
}
