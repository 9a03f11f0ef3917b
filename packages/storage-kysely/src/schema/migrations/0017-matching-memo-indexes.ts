import { sql, type Kysely, type Migration } from 'kysely';

/** The bits of the statuses in `service_memos.statuses` (migration 0015), each with its index's name. */
const STATUS_INDEXES = [
  [1, 'service_memos_account_ok_idx'],
  [2, 'service_memos_account_due_soon_idx'],
  [4, 'service_memos_account_overdue_idx'],
] as const;

/**
 * P75 (D49): a filtered service page reads only the rows of `service_memos` that may match, each
 * set by a partial index ordered by `(account_id, device_id)`: the rows remembered, at their
 * version, to have a status (one index per status bit), and the rows with nothing remembered at
 * their version; and by `(account_id, statuses_until)` the rows remembered at their version with
 * an `until`, for those whose `until` has passed (the `until` in its predicate keeps a branch of the
 * statuses, which does not imply it, on its own index). They replace the index of every row by
 * `(account_id, device_id)` of migration 0015, which only the filtered walk read. A change of
 * `version` or of what is remembered is no longer an update within the row's page (HOT): it
 * writes the row's entries in the indexes it belongs to.
 */
export const matchingMemoIndexesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const [bit, name] of STATUS_INDEXES)
      await sql`
        create index ${sql.id(name)} on service_memos (account_id, device_id)
         where remembered_at_version = version and (statuses & ${sql.lit(bit)}) <> 0`.execute(db);
    await sql`
      create index service_memos_account_unknown_idx on service_memos (account_id, device_id)
       where (remembered_at_version is distinct from version or statuses is null)`.execute(db);
    await sql`
      create index service_memos_account_until_idx on service_memos (account_id, statuses_until)
       where remembered_at_version = version and statuses_until is not null`.execute(db);
    await sql`drop index service_memos_account_device_idx`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`create index service_memos_account_device_idx on service_memos (account_id, device_id)`.execute(db);
    await sql`drop index service_memos_account_until_idx`.execute(db);
    await sql`drop index service_memos_account_unknown_idx`.execute(db);
    for (const [, name] of STATUS_INDEXES) await sql`drop index ${sql.id(name)}`.execute(db);
  },
};
