import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D53, P85: the keys of idempotent POSTs, one row per account and key. The primary key is what
 * makes a claim atomic: `insert … on conflict (account_id, key) do update … where` lets one of any
 * number of concurrent claims write the row and the others wait on it, then see it. `created_at`
 * starts the key's 24 h and, while `response_status` is null (the request runs), its lease (P84);
 * its index serves the upkeep that removes expired keys. An account's keys go with it.
 */
export const idempotencyKeysMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table idempotency_keys (
        account_id integer not null references accounts (id) on delete cascade,
        key text not null constraint idempotency_keys_key_check check (char_length(key) between 1 and 255),
        fingerprint text not null,
        claim_id text not null,
        created_at timestamptz not null,
        response_status integer,
        response_headers jsonb,
        response_body text,
        primary key (account_id, key),
        constraint idempotency_keys_response_check
          check ((response_status is null) = (response_headers is null) and (response_status is null) = (response_body is null))
      )`.execute(db);
    await sql`create index idempotency_keys_created_at_idx on idempotency_keys (created_at)`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table idempotency_keys`.execute(db);
  },
};
