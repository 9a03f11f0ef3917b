import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D47, P62: the pending deliveries by endpoint, then by when they are due. A claim with an
 * endpoint's share walks the endpoints that have pending deliveries (one probe each) and takes the
 * oldest due rows of each one under its share, so an endpoint with a large backlog at its share
 * costs a claim nothing, where a walk of the due rows in time order would read its whole backlog.
 */
export const webhookEndpointDueMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index webhook_deliveries_endpoint_due_idx on webhook_deliveries (endpoint_id, next_attempt_at, id) where state = 'pending'`.execute(
      db,
    );
  },

  async down(db: Kysely<unknown>) {
    await sql`drop index webhook_deliveries_endpoint_due_idx`.execute(db);
  },
};
