import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PGliteDialect } from './pglite-dialect.js';

interface Database {
  items: { id: number; label: string };
}

describe('PGliteDialect', () => {
  let pglite: PGlite;
  let db: Kysely<Database>;
  beforeAll(async () => {
    pglite = new PGlite();
    db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite, closeOnDestroy: false }) });
    await sql`create table items (id integer primary key, label text not null)`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await pglite?.close();
  });
  beforeEach(async () => {
    await sql`truncate items`.execute(db);
  });

  const labels = async () => (await db.selectFrom('items').select('label').orderBy('id').execute()).map((row) => row.label);

  it('runs queries through Kysely with PostgreSQL SQL and reports affected rows', async () => {
    const inserted = await db
      .insertInto('items')
      .values([
        { id: 1, label: 'a' },
        { id: 2, label: 'b' },
      ])
      .executeTakeFirst();
    expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
    const updated = await db.updateTable('items').set({ label: 'c' }).where('id', '=', 2).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(1n);
    expect(await labels()).toEqual(['a', 'c']);
  });

  it('a transaction commits, and a failing one rolls back whole', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 1, label: 'kept' }).execute();
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 2, label: 'dropped' }).execute();
        await trx.insertInto('items').values({ id: 1, label: 'duplicate key' }).execute();
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await labels()).toEqual(['kept']);
  });

  it('concurrent work takes turns on the one connection: nothing runs inside another transaction', async () => {
    const order: string[] = [];
    const slow = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 1, label: 'uncommitted' }).execute();
      order.push('inserted');
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push('rolling back');
      throw new Error('roll back');
    });
    // Started while the transaction is open: it must wait, and never see the uncommitted row.
    const count = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const rows = await labels();
      order.push(`counted ${rows.length}`);
      return rows;
    })();
    await expect(slow).rejects.toThrow('roll back');
    expect(await count).toEqual([]);
    expect(order).toEqual(['inserted', 'rolling back', 'counted 0']);
  });

  it('supports savepoints in a controlled transaction', async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto('items').values({ id: 1, label: 'outer' }).execute();
    const savepoint = await trx.savepoint('inner').execute();
    await savepoint.insertInto('items').values({ id: 2, label: 'inner' }).execute();
    await savepoint.rollbackToSavepoint('inner').execute();
    await trx.commit().execute();
    expect(await labels()).toEqual(['outer']);
  });

  it('streams a result in chunks', async () => {
    await db
      .insertInto('items')
      .values(Array.from({ length: 5 }, (_, index) => ({ id: index, label: `item ${index}` })))
      .execute();
    const chunks: number[] = [];
    for await (const row of db.selectFrom('items').select('id').orderBy('id').stream(2)) chunks.push(row.id);
    expect(chunks).toEqual([0, 1, 2, 3, 4]);
  });

  it('closeOnDestroy: false leaves the PGlite instance open for its owner', async () => {
    const other = new Kysely<Database>({ dialect: new PGliteDialect({ pglite, closeOnDestroy: false }) });
    await sql`select 1`.execute(other);
    await other.destroy();
    expect(pglite.closed).toBe(false);
    expect(await labels()).toEqual([]);
  });
});
