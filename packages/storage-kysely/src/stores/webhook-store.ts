import type {
  AttemptReport,
  ClaimedDelivery,
  EventType,
  FleetHoursStore,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookOutboxStore,
} from '@fleet-hours/core';
import { DEFAULT_SILENT_AFTER_SECONDS, deliveryAfterAttempt, endpointAfterAttempt } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';

type Db = Kysely<FleetHoursDatabase> | Transaction<FleetHoursDatabase>;
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import {
  claimDue,
  claimedEndpoint,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  ENDPOINT_COLUMNS,
  type EndpointRow,
  insertEvents,
  listAttempts,
  recordSuccesses,
  toDelivery,
  toEndpoint,
} from '../sql/webhook-queries.js';
import { instantOf, isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import { inTransaction } from '../sql/in-transaction.js';

/**
 * Endpoints, the outbox, deliveries and attempts (D40, D41) on Kysely.
 *
 * What protects these rows: an event is stored once by its primary key (`on conflict do
 * nothing`); a delivery is held by one sender at a time through its claim, taken by a statement
 * that locks the due rows and skips those another claim is locking, and kept for a lease, so a
 * sender that dies gives its deliveries back when the lease ends; an attempt's report locks the
 * delivery, then its endpoint, for the failing streak and the disabling that two senders may
 * report at once.
 */
export function webhookStore(db: Kysely<FleetHoursDatabase>): WebhookOutboxStore {
  return { ..._endpointMethods(db), ..._outboxMethods(db), ..._accountEventMethods(db) };
}

type _Methods<Names extends keyof WebhookOutboxStore> = Pick<FleetHoursStore, Names>;

/** Endpoints: one statement each (a removal: its attempts, then the endpoint with its deliveries). */
function _endpointMethods(
  db: Kysely<FleetHoursDatabase>,
): _Methods<
  | 'createWebhookEndpoint'
  | 'findWebhookEndpoint'
  | 'listWebhookEndpoints'
  | 'updateWebhookEndpoint'
  | 'rotateWebhookSecret'
  | 'removeWebhookEndpoint'
> {
  const endpointById = (endpointId: number) => db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', '=', endpointId);
  const one = async (endpointId: number) => {
    if (!isId(endpointId)) return null;
    const row = await endpointById(endpointId).executeTakeFirst();
    return row ? toEndpoint(row as EndpointRow) : null;
  };
  return {
    createWebhookEndpoint: ({ accountId, url, eventTypes, description, secret, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(accountId)) return null;
        const row = await db
          .insertInto('webhook_endpoints')
          .columns(['account_id', 'url', 'event_types', 'description', 'secret', 'created_at'])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([
                'accounts.id',
                sql<string>`${url}`.as('url'),
                sql<string[]>`${[...eventTypes]}::text[]`.as('event_types'),
                sql<string | null>`${description ?? null}::text`.as('description'),
                sql<string>`${secret}`.as('secret'),
                instantOf(now).as('created_at'),
              ])
              .where('accounts.id', '=', accountId),
          )
          .returning(ENDPOINT_COLUMNS)
          .executeTakeFirst();
        return row ? toEndpoint(row as EndpointRow) : null;
      }),

    findWebhookEndpoint: ({ endpointId }) => guard(() => one(endpointId)),

    listWebhookEndpoints: ({ accountId }) =>
      guard(async () => {
        if (!isId(accountId)) return [];
        const rows = await db
          .selectFrom('webhook_endpoints')
          .select(ENDPOINT_COLUMNS)
          .where('account_id', '=', accountId)
          .orderBy('id')
          .execute();
        return rows.map((row) => toEndpoint(row as EndpointRow));
      }),

    updateWebhookEndpoint: ({ endpointId, changes, now, expected }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(endpointId)) return null;
        const row = await db
          .updateTable('webhook_endpoints')
          .set({
            ...(changes.url !== undefined ? { url: changes.url } : {}),
            ...(changes.eventTypes !== undefined ? { event_types: sql<string[]>`${[...changes.eventTypes]}::text[]` } : {}),
            ...(changes.description !== undefined ? { description: changes.description } : {}),
            ...(changes.enabled === true ? { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null } : {}),
            ...(changes.enabled === false
              ? {
                  disabled_reason: sql<string>`case when enabled then 'operator' else disabled_reason end`,
                  disabled_at: sql<Date>`case when enabled then ${instantOf(now)} else disabled_at end`,
                  enabled: false,
                }
              : {}),
            id: sql<number>`id`,
          })
          .where('id', '=', endpointId)
          .where(_asRead(expected))
          .returning(ENDPOINT_COLUMNS)
          .executeTakeFirst();
        return row ? toEndpoint(row as EndpointRow) : null;
      }),

    rotateWebhookSecret: ({ endpointId, secret, overlapSeconds, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(endpointId)) return null;
        const row = await db
          .updateTable('webhook_endpoints')
          .set({ previous_secret: sql<string>`secret`, previous_secret_expires_at: instantOf(now + overlapSeconds), secret })
          .where('id', '=', endpointId)
          .returning(ENDPOINT_COLUMNS)
          .executeTakeFirst();
        return row ? toEndpoint(row as EndpointRow) : null;
      }),

    removeWebhookEndpoint: ({ endpointId, expected }) =>
      guard(async () => {
        if (!isId(endpointId)) return null;
        return inTransaction(db, async (trx) => {
          // D54 (P81): the endpoint is locked and compared first, so that a change in between leaves it, its deliveries and attempts.
          const locked = await trx
            .selectFrom('webhook_endpoints')
            .select('id')
            .where('id', '=', endpointId)
            .where(_asRead(expected))
            .forUpdate()
            .executeTakeFirst();
          if (!locked) return null;
          await sql`delete from webhook_attempts where endpoint_id = ${endpointId}`.execute(trx);
          const row = await trx.deleteFrom('webhook_endpoints').where('id', '=', endpointId).returning(ENDPOINT_COLUMNS).executeTakeFirst();
          return row ? toEndpoint(row as EndpointRow) : null;
        });
      }),
  };
}

/** The condition that an endpoint row still has the fields of `expected` a conditional write compares (D54, P81); always true without one. */
function _asRead(expected: WebhookEndpoint | undefined) {
  return (eb: ExpressionBuilder<FleetHoursDatabase, 'webhook_endpoints'>) =>
    expected === undefined
      ? sql<boolean>`true`
      : eb.and([
          eb('url', '=', expected.url),
          sql<boolean>`event_types = ${[...expected.eventTypes]}::text[]`,
          eb('enabled', '=', expected.enabled),
          expected.description === null ? eb('description', 'is', null) : eb('description', '=', expected.description),
          eb('secret', '=', expected.secret),
        ]);
}

/** The outbox: raising, claiming, reporting, releasing, listing and replaying. */
function _outboxMethods(
  db: Kysely<FleetHoursDatabase>,
): _Methods<
  | 'raiseEvents'
  | 'claimDeliveries'
  | 'recordWebhookAttempt'
  | 'recordWebhookAttempts'
  | 'releaseWebhookClaims'
  | 'listWebhookAttempts'
  | 'replayWebhookEvent'
> {
  return {
    raiseEvents: ({ events, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        events.forEach((event, index) => assertEpochSeconds(`events[${index}].raisedAt`, event.raisedAt));
        if (events.length === 0) return [];
        return inTransaction(db, (trx) => insertEvents(trx, events, now));
      }),

    claimDeliveries: (input) =>
      guard(async () => {
        assertEpochSeconds('now', input.now);
        const { rows } = await claimDue(input).execute(db);
        const claimed = rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.id) - Number(b.id));
        return claimed.map(
          (row): ClaimedDelivery => ({
            delivery: toDelivery(row),
            event: {
              id: row.event_id,
              accountId: row.account_id,
              type: row.type as EventType,
              deviceId: row.about_device_id,
              body: row.body,
              raisedAt: Number(row.raised_at),
            },
            endpoint: claimedEndpoint(row),
          }),
        );
      }),

    recordWebhookAttempt: ({ deliveryId, claimant, attempt, retrySchedule }) =>
      guard(async () => {
        assertEpochSeconds('attempt.attemptedAt', attempt.attemptedAt);
        const [delivery] = await _recordAttempts(db, claimant, [{ deliveryId, attempt }], retrySchedule);
        return delivery ?? null;
      }),

    recordWebhookAttempts: ({ claimant, reports, retrySchedule }) =>
      guard(async () => {
        reports.forEach((report, index) => assertEpochSeconds(`reports[${index}].attempt.attemptedAt`, report.attempt.attemptedAt));
        return _recordAttempts(db, claimant, reports, retrySchedule);
      }),

    releaseWebhookClaims: ({ claimant }) =>
      guard(async () => {
        await sql`update webhook_deliveries set claimant = null, claimed_until = null where claimant = ${claimant} and state = 'pending'`.execute(
          db,
        );
      }),

    listWebhookAttempts: ({ endpointId, failedOnly, limit, before }) =>
      guard(async () => (isId(endpointId) ? listAttempts(db, { endpointId, failedOnly: failedOnly === true, limit, before }) : [])),

    replayWebhookEvent: ({ eventId, now, accountId }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        return inTransaction(db, async (trx) => {
          const event = await trx.selectFrom('webhook_events').select(['id', 'account_id']).where('id', '=', eventId).executeTakeFirst();
          if (!event || (accountId !== undefined && Number(event.account_id) !== accountId)) return null;
          const { rows } = await sql<DeliveryRow>`
            update webhook_deliveries d
               set state = 'pending', attempts = 0, next_attempt_at = ${instantOf(now)}, claimant = null, claimed_until = null
             where d.event_id = ${eventId}
            returning ${DELIVERY_COLUMNS}`.execute(trx);
          return rows.map(toDelivery).sort((a, b) => a.id - b.id);
        });
      }),
  };
}

/** Open silences, the backlog and each account's quiet time. */
function _accountEventMethods(
  db: Kysely<FleetHoursDatabase>,
): _Methods<'listOpenSilences' | 'webhookBacklog' | 'setSilentAfter' | 'findSilentAfter'> {
  return {
    listOpenSilences: ({ deviceIds }) =>
      guard(async () => {
        const wanted = deviceIds.filter(isId);
        if (wanted.length === 0) return [];
        const { rows } = await sql<{ device_id: number; since: number | string }>`
          select s.about_device_id as device_id, date_part('epoch', s.cause) as since
            from webhook_events s
           where s.about_device_id = any(${wanted}::integer[]) and s.cause is not null and s.type = 'device.silent'
             and not exists (select 1 from webhook_events r
                              where r.about_device_id = s.about_device_id and r.cause = s.cause and r.type = 'device.reporting')
           order by s.about_device_id, s.cause`.execute(db);
        return rows.map((row) => ({ deviceId: row.device_id, since: Number(row.since) }));
      }),

    webhookBacklog: () =>
      guard(async () => {
        const { rows } = await sql<{ pending: number | string; oldest: number | string | null }>`
          select count(*) as pending, date_part('epoch', min(e.raised_at)) as oldest
            from webhook_deliveries d join webhook_events e on e.id = d.event_id
           where d.state = 'pending'`.execute(db);
        const row = rows[0]!;
        return { pending: Number(row.pending), oldestRaisedAt: row.oldest === null ? null : Number(row.oldest) };
      }),

    setSilentAfter: ({ accountId, silentAfterSeconds }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        const { rows } = await sql<{ silent_after_seconds: number }>`
          insert into account_event_settings (account_id, silent_after_seconds)
          select id, ${silentAfterSeconds}::integer from accounts where id = ${accountId}
          on conflict (account_id) do update set silent_after_seconds = excluded.silent_after_seconds
          returning silent_after_seconds`.execute(db);
        return rows[0]?.silent_after_seconds ?? null;
      }),

    findSilentAfter: ({ accountId }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        const { rows } = await sql<{ silent_after_seconds: number | null }>`
          select s.silent_after_seconds from accounts a left join account_event_settings s on s.account_id = a.id where a.id = ${accountId}`.execute(
          db,
        );
        if (rows.length === 0) return null;
        return rows[0]!.silent_after_seconds ?? DEFAULT_SILENT_AFTER_SECONDS;
      }),
  };
}

type _Report = { readonly deliveryId: number; readonly attempt: AttemptReport };

const _isSuccess = (attempt: AttemptReport) => attempt.status !== null && attempt.status >= 200 && attempt.status < 300;

/**
 * Attempts in the order given, as if recorded one by one (D41): each run of successes of distinct
 * deliveries is ONE statement (`recordSuccesses`), any other attempt its own locking steps; more
 * than one step runs in one transaction, so a batch is recorded whole or not at all.
 */
async function _recordAttempts(
  db: Kysely<FleetHoursDatabase>,
  claimant: string,
  reports: readonly _Report[],
  retrySchedule: readonly number[],
): Promise<(WebhookDelivery | null)[]> {
  const valid = (report: _Report) => Number.isSafeInteger(report.deliveryId) && report.deliveryId >= 1;
  const steps: ({ successes: _Report[] } | { failure: _Report })[] = [];
  const results: (WebhookDelivery | null)[] = [];
  let run: _Report[] | null = null;
  for (const report of reports.filter(valid)) {
    if (_isSuccess(report.attempt) && run !== null && !run.some((other) => other.deliveryId === report.deliveryId)) run.push(report);
    else if (_isSuccess(report.attempt)) steps.push({ successes: (run = [report]) });
    else {
      steps.push({ failure: report });
      run = null;
    }
  }
  const byReport = new Map<_Report, WebhookDelivery | null>();
  const apply = async (trx: Db) => {
    for (const step of steps) {
      if ('failure' in step) {
        byReport.set(step.failure, await _recordOther(trx, claimant, step.failure, retrySchedule));
        continue;
      }
      const rows = await recordSuccesses(trx, claimant, step.successes);
      for (const report of step.successes) {
        const row = rows.get(report.deliveryId);
        byReport.set(report, row ? toDelivery(row) : null);
      }
    }
  };
  if (steps.length === 1 && 'successes' in steps[0]!) await apply(db);
  else if (steps.length > 0) await inTransaction(db, apply);
  for (const report of reports) results.push(byReport.get(report) ?? null);
  return results;
}

/** Any attempt but a success: the delivery locked, the attempt inserted, the endpoint's streak and the delivery's next attempt written. */
async function _recordOther(trx: Db, claimant: string, report: _Report, retrySchedule: readonly number[]): Promise<WebhookDelivery | null> {
  const { deliveryId, attempt } = report;
  const { rows } =
    await sql<DeliveryRow>`select ${DELIVERY_COLUMNS} from webhook_deliveries d where d.id = ${deliveryId} for update`.execute(trx);
  const delivery = rows[0];
  if (!delivery) return null;
  await sql`
    insert into webhook_attempts (delivery_id, event_id, event_type, endpoint_id, attempted_at, status, duration_ms, error)
    select ${deliveryId}, e.id, e.type, ${delivery.endpoint_id}, ${instantOf(attempt.attemptedAt)}, ${attempt.status}::integer,
           ${attempt.durationMs}::float8, ${attempt.error}::text
      from webhook_events e where e.id = ${delivery.event_id}`.execute(trx);
  if (delivery.claimant !== claimant) return toDelivery(delivery);
  await _applyToEndpoint(trx, delivery.endpoint_id, attempt);
  const next = deliveryAfterAttempt(delivery.attempts + 1, attempt, retrySchedule);
  const { rows: updated } = await sql<DeliveryRow>`
    update webhook_deliveries d
       set state = ${next.state}, attempts = ${next.attempts}, next_attempt_at = ${instantOf(next.nextAttemptAt)},
           claimant = null, claimed_until = null
     where d.id = ${deliveryId}
    returning ${DELIVERY_COLUMNS}`.execute(trx);
  return toDelivery(updated[0]!);
}

/**
 * The attempt's effect on its endpoint (D41): read without a lock first, and only when it changes
 * something (a failing streak starts or ends, the endpoint is disabled) locked, read again and
 * written — so that the successes of many senders to one endpoint do not queue on its row.
 */
async function _applyToEndpoint(trx: Db, endpointId: number, attempt: AttemptReport): Promise<void> {
  const read = (lock: boolean) => {
    const query = trx.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', '=', endpointId);
    return (lock ? query.forUpdate() : query).executeTakeFirstOrThrow();
  };
  const effectOn = (row: unknown) => {
    const endpoint = toEndpoint(row as EndpointRow);
    const effect = endpointAfterAttempt({ status: attempt.status, failingSince: endpoint.failingSince, now: attempt.attemptedAt });
    const disable = effect.disable !== null && endpoint.enabled;
    return { effect, disable, changes: disable || effect.failingSince !== endpoint.failingSince };
  };
  if (!effectOn(await read(false)).changes) return;
  const { effect, disable, changes } = effectOn(await read(true));
  if (!changes) return;
  await trx
    .updateTable('webhook_endpoints')
    .set({
      failing_since: effect.failingSince === null ? null : instantOf(effect.failingSince),
      ...(disable ? { enabled: false, disabled_reason: effect.disable, disabled_at: instantOf(attempt.attemptedAt) } : {}),
    })
    .where('id', '=', endpointId)
    .execute();
}
