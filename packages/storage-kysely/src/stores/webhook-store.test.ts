/**
 * The Kysely store's outbox beyond the shared contract (D41): senders on separate pools of one
 * PostgreSQL database claim, send and report at once (one by one, or in batches), and no delivery
 * is ever held by two of them at once, none is lost, and each ends as reported serially.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';

const T0 = 1_767_225_600;
const EVENTS = 600;

describeWithPostgres('the outbox on PostgreSQL', () => {
  const { db, server } = usePostgresSchema(4);
  const stores: KyselyFleetHoursStore[] = [];
  beforeAll(() => {
    for (let index = 0; index < 4; index += 1) stores.push(createKyselyStore(server().connect({ max: 3 })));
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.db.destroy()));
  });

  /** An empty database, one endpoint and EVENTS events in the outbox: a pending delivery each. */
  const seedOutbox = async () => {
    await resetTables(db());
    const store = createKyselyStore(db());
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await store.createWebhookEndpoint({
      accountId: account.id,
      url: 'https://a.example/',
      eventTypes: ['device.silent'],
      secret: `whsec_${'A'.repeat(43)}=`,
      now: T0,
    });
    const events = Array.from({ length: EVENTS }, (_, index) => ({
      id: `evt_${index}`,
      accountId: account.id,
      type: 'device.silent' as const,
      deviceId: 1,
      body: '{}',
      raisedAt: T0,
    }));
    await store.raiseEvents({ events, now: T0 });
    return { store, events };
  };

  it('D41: four senders on their own pools share 600 deliveries: none held by two at once, none lost, each delivered once', async () => {
    const { store } = await seedOutbox();
    const held = new Set<number>();
    const sent: number[] = [];
    const sender = async (sending: KyselyFleetHoursStore, claimant: string) => {
      for (;;) {
        const claimed = await sending.claimDeliveries({ claimant, limit: 10, leaseSeconds: 60, now: T0 });
        if (claimed.length === 0) return;
        for (const { delivery } of claimed) {
          expect(held.has(delivery.id), `delivery ${delivery.id} claimed twice at once`).toBe(false);
          held.add(delivery.id);
        }
        await Promise.all(
          claimed.map(async ({ delivery }) => {
            sent.push(delivery.id);
            held.delete(delivery.id);
            const attempt = { attemptedAt: T0, status: 200, durationMs: 1, error: null, retryAfterSeconds: null };
            await sending.recordWebhookAttempt({ deliveryId: delivery.id, claimant, attempt, retrySchedule: [5] });
          }),
        );
      }
    };
    await Promise.all(stores.map((sending, index) => sender(sending, `sender-${index}`)));
    expect(sent).toHaveLength(EVENTS);
    expect(new Set(sent).size).toBe(EVENTS);
    const { rows } = await sql<{
      state: string;
      count: string;
    }>`select state, count(*)::text as count from webhook_deliveries group by state`.execute(db());
    expect(rows).toEqual([{ state: 'delivered', count: String(EVENTS) }]);
    expect(await store.webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  }, 60_000);

  it('D41: four senders reporting in batches (recordWebhookAttempts), every third delivery failing once: the serial outcome — each delivered, every attempt recorded once, none held by two at once', async () => {
    const { store, events } = await seedOutbox();
    // The serial expectation: event i's delivery fails once when i % 3 = 0 (retried 5 s later), then succeeds.
    const failsFirst = (eventId: string) => Number(eventId.slice('evt_'.length)) % 3 === 0;
    const expected = new Map(events.map((event) => [event.id, failsFirst(event.id) ? [500, 200] : [200]]));
    const held = new Set<number>();
    const tried = new Set<string>();
    const sender = async (sending: KyselyFleetHoursStore, claimant: string) => {
      for (;;) {
        // Claims look 10 s ahead, so a failed delivery is due again at once.
        const claimed = await sending.claimDeliveries({ claimant, limit: 12, leaseSeconds: 60, now: T0 + 10 });
        if (claimed.length === 0) return;
        for (const { delivery } of claimed) {
          expect(held.has(delivery.id), `delivery ${delivery.id} claimed twice at once`).toBe(false);
          held.add(delivery.id);
        }
        const reports = claimed.map(({ delivery }) => {
          const first = !tried.has(delivery.eventId);
          tried.add(delivery.eventId);
          const status = first && failsFirst(delivery.eventId) ? 500 : 200;
          return { deliveryId: delivery.id, attempt: { attemptedAt: T0, status, durationMs: 1, error: null, retryAfterSeconds: null } };
        });
        for (const { delivery } of claimed) held.delete(delivery.id);
        const recorded = await sending.recordWebhookAttempts({ claimant, reports, retrySchedule: [5] });
        expect(recorded.map((one) => one?.state)).toEqual(
          reports.map((report) => (report.attempt.status === 200 ? 'delivered' : 'pending')),
        );
      }
    };
    await Promise.all(stores.map((sending, index) => sender(sending, `sender-${index}`)));
    const { rows: deliveries } = await sql<{ event_id: string; state: string; attempts: number; claimant: string | null }>`
      select event_id, state, attempts, claimant from webhook_deliveries`.execute(db());
    expect(new Map(deliveries.map(({ event_id, ...rest }) => [event_id, rest]))).toEqual(
      new Map(events.map((event) => [event.id, { state: 'delivered', attempts: expected.get(event.id)!.length, claimant: null }])),
    );
    const { rows: attempts } = await sql<{ event_id: string; statuses: number[] }>`
      select event_id, array_agg(status order by id) as statuses from webhook_attempts group by event_id`.execute(db());
    expect(new Map(attempts.map((row) => [row.event_id, row.statuses]))).toEqual(expected);
    expect(await store.webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  }, 60_000);
});
