import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D55, D65 (P136): a change's actor may be a server's poller of an AEMP source (`aemp_poller`),
 * with the source as its label (`aemp:{id}`) and no fingerprint: the readings a poll stores are
 * written down like any other change.
 */
export const aempPollerActorMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table audit_entries drop constraint audit_entries_actor_kind_check`.execute(db);
    await sql`alter table audit_entries drop constraint audit_entries_actor_check`.execute(db);
    await sql`
      alter table audit_entries
        add constraint audit_entries_actor_kind_check check (actor_kind in ('api_key', 'cli', 'aemp_poller')),
        add constraint audit_entries_actor_check check (
          (actor_kind = 'api_key') = (actor_label is not null and actor_fingerprint_prefix is not null)
          and (actor_kind = 'cli') = (actor_label is null and actor_fingerprint_prefix is null)
          and (actor_kind <> 'aemp_poller' or (actor_label is not null and actor_fingerprint_prefix is null))
        )`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`delete from audit_entries where actor_kind = 'aemp_poller'`.execute(db);
    await sql`alter table audit_entries drop constraint audit_entries_actor_check`.execute(db);
    await sql`alter table audit_entries drop constraint audit_entries_actor_kind_check`.execute(db);
    await sql`
      alter table audit_entries
        add constraint audit_entries_actor_kind_check check (actor_kind in ('api_key', 'cli')),
        add constraint audit_entries_actor_check check (
          (actor_kind = 'api_key') = (actor_label is not null and actor_fingerprint_prefix is not null)
          and (actor_kind = 'cli') = (actor_label is null and actor_fingerprint_prefix is null)
        )`.execute(db);
  },
};
