import { idempotentRequests } from '@fleet-hours/core';
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
 * `--json`: `{ retention_days, horizon, created, dropped, pending, busy, idempotency_keys_removed }`
 * (`horizon` ISO 8601 UTC, `null` without retention; the partitions by name; the keys of
 * idempotent POSTs past their 24 hours removed, D53).
 *
 * D46: the drops run in a database session of their own, without the request deadline, one run at
 * a time: `busy` when another run (a server, cron) held the lock, and `pending` the partitions left
 * to the next run because transactions still read the table (already refused and ignored by
 * `verify`). A detach an earlier run left pending is finished first.
 */
export async function maintenanceCommand(context: CommandContext): Promise<CommandResult> {
  const retentionDays = readServerSetting('telemetryRetentionDays', context.options, context.io.env, 'maintenance');
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
  return {
    json: {
      retention_days: retentionDays,
      horizon,
      created: done.created,
      dropped: done.dropped,
      pending: done.pending,
      busy: done.busy,
      idempotency_keys_removed: removed,
    },
    text: `Telemetry partitions created: ${list(done.created)}; dropped: ${list(done.dropped)}; ${kept}.\n${left}${busy}Idempotency keys past their 24 hours removed: ${removed}.\n`,
  };
}
