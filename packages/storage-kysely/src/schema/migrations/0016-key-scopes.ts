import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D51: an API key has a scope, `read` or `manage`. Every key made before is `read` (the default),
 * so nothing it could do changes; a check refuses any other value.
 */
export const keyScopesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table api_keys
        add column scope text not null default 'read'
          constraint api_keys_scope_check check (scope in ('read', 'manage'))`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`alter table api_keys drop column scope`.execute(db);
  },
};
