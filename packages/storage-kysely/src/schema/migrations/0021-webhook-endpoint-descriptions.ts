import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P99: a webhook endpoint may have a description, optional text for people (the write checks it:
 * at most 200 characters, no control characters). Every endpoint made before has none.
 */
export const webhookEndpointDescriptionsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table webhook_endpoints add column description text`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`alter table webhook_endpoints drop column description`.execute(db);
  },
};
