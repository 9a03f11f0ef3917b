/**
 * docs/operations.md cannot drift from the code: its configuration table is exactly the one the
 * settings table of `serve` gives (D30, P29), and its distributed-PostgreSQL (Citus) layout fits
 * the migrated schema — every table is placed, and every primary key, unique index and foreign key
 * of a distributed table includes its distribution column, as Citus requires.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The settings table is the server's internal one place (P29); the doc is checked against it.
import { SERVER_SETTINGS, settingEnvName, type ServerSetting } from '../packages/server/src/cli/server-settings.js';
import { PGlite } from '@electric-sql/pglite';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, verifyStore } from '@fleet-hours/storage-kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, trimmed. */
function section(name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(operations);
  if (!match) throw new Error(`docs/operations.md has no ${name} section`);
  return match[1]!.trim();
}

/** The rows of a markdown table, each cell trimmed, without the header and the rule. */
function tableRows(table: string): string[][] {
  return table
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('docs/operations.md', () => {
  it('lists every setting of serve with its flag, variable, default and meaning, in the order of the settings table (D30, P29)', () => {
    const expected = Object.values(SERVER_SETTINGS).map((setting: ServerSetting<unknown>) => [
      `\`--${setting.flag} ${setting.placeholder}\``,
      `\`${settingEnvName(setting)}\``,
      `\`${setting.shownDefault}\``,
      setting.description.replace(/\|/g, '\\|'),
    ]);
    expect(tableRows(section('settings'))).toEqual(expected);
  });
});

/** One row of the layout: a table, how Citus holds it, and its distribution column. */
interface Placement {
  readonly table: string;
  readonly kind: 'distributed' | 'reference' | 'local';
  readonly column: string | null;
}

describe('the Citus layout of docs/operations.md fits the migrated schema', () => {
  const layout: Placement[] = tableRows(section('citus-layout')).map(([table, kind, column]) => ({
    table: table!.replace(/`/g, ''),
    kind: kind as Placement['kind'],
    column: column === '—' ? null : column!.replace(/`/g, ''),
  }));
  let db: Awaited<ReturnType<typeof createPGliteDatabase>>;
  beforeAll(async () => {
    db = await createPGliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const tablesOfSchema = async () =>
    (
      await sql<{ name: string }>`
        select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`.execute(db)
    ).rows.map((row) => row.name);

  /** Key columns (not INCLUDE columns) of every unique index, primary keys included. */
  const uniqueIndexes = async () =>
    (
      await sql<{ table: string; index: string; columns: string[] }>`
        select t.relname as table, i.relname as index,
          array(select a.attname from unnest((ix.indkey::int2[])[0:ix.indnkeyatts - 1]) as k(attnum)
                join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as columns
        from pg_index ix
        join pg_class t on t.oid = ix.indrelid
        join pg_class i on i.oid = ix.indexrelid
        join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = current_schema() and ix.indisunique`.execute(db)
    ).rows;

  const foreignKeys = async () =>
    (
      await sql<{ table: string; name: string; columns: string[]; referenced: string; referencedColumns: string[] }>`
        select t.relname as table, c.conname as name, r.relname as referenced,
          array(select a.attname from unnest(c.conkey) as k(attnum) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as columns,
          array(select a.attname from unnest(c.confkey) as k(attnum) join pg_attribute a on a.attrelid = r.oid and a.attnum = k.attnum) as "referencedColumns"
        from pg_constraint c
        join pg_class t on t.oid = c.conrelid
        join pg_class r on r.oid = c.confrelid
        join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = current_schema() and c.contype = 'f'`.execute(db)
    ).rows;

  it('places every table of the schema, and no other', async () => {
    expect(layout.map((placement) => placement.table).sort()).toEqual(await tablesOfSchema());
  });

  it('distributes every per-device table (one with a device_id column) by device_id, co-located', async () => {
    const perDevice = (
      await sql<{ table: string }>`
        select c.relname as table from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
          and a.attname = 'device_id' and not a.attisdropped order by 1`.execute(db)
    ).rows.map((row) => row.table);
    expect(perDevice.length).toBeGreaterThanOrEqual(2);
    for (const table of perDevice)
      expect(layout.find((placement) => placement.table === table)).toEqual({ table, kind: 'distributed', column: 'device_id' });
  });

  it('every primary key and unique index of a distributed table includes its distribution column', async () => {
    const indexes = await uniqueIndexes();
    const distributed = layout.filter((placement) => placement.kind === 'distributed');
    expect(indexes.filter((index) => distributed.some((placement) => placement.table === index.table)).length).toBeGreaterThanOrEqual(
      distributed.length,
    );
    for (const index of indexes) {
      const placement = distributed.find((each) => each.table === index.table);
      if (placement) expect([index.index, index.columns.includes(placement.column!)]).toEqual([index.index, true]);
    }
  });

  it('a foreign key between distributed tables joins their distribution columns; others reference reference tables', async () => {
    const placementOf = (table: string) => layout.find((placement) => placement.table === table)!;
    for (const key of await foreignKeys()) {
      const [from, to] = [placementOf(key.table), placementOf(key.referenced)];
      if (from.kind !== 'distributed') continue;
      if (to.kind === 'reference') continue;
      expect([key.name, to.kind]).toEqual([key.name, 'distributed']);
      const position = key.columns.indexOf(from.column!);
      expect([key.name, position >= 0 && key.referencedColumns[position] === to.column]).toEqual([key.name, true]);
    }
  });

  it('D44, P49: no telemetry write and no import changes a row of a reference table (the targets of every statement they send)', async () => {
    const statements: string[] = [];
    let recording = false;
    const pglite = new PGlite();
    const recorded = await createPGliteDatabase({
      pglite: {
        query: (text: string, params?: unknown[]) => {
          if (recording) statements.push(text);
          return pglite.query(text, params);
        },
        close: () => pglite.close(),
        get closed() {
          return pglite.closed;
        },
        waitReady: pglite.waitReady,
      },
    });
    try {
      await migrateToLatest(recorded);
      const store = createKyselyStore(recorded);
      const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Truck',
        imei: '356307042441013',
        model: 'm',
        timeZone: 'Europe/Berlin',
      }))!;
      const other = (await store.createDevice({
        accountId: account.id,
        name: 'Loader',
        imei: '356307042441014',
        model: 'm',
        timeZone: 'UTC',
      }))!;
      const points = (from: number, count: number, speedKmh: number) =>
        Array.from({ length: count }, (_, index) => ({ deviceId: device.id, time: from + index * 10, ignition: true, speedKmh }));
      recording = true;
      const now = T0 + 86_400 * 40;
      // A first batch (its month's partition created on demand), a later one, a late one in between
      // (segments derived again), a batch of duplicates, one position by IMEI, and a batch of two devices.
      await store.writeTelemetry({ accountId: account.id, points: points(T0, 100, 30), now });
      await store.writeTelemetry({ accountId: account.id, points: points(T0 + 2_000, 100, 0), now });
      await store.writeTelemetry({ accountId: account.id, points: points(T0 + 1_005, 50, 12), now });
      await store.writeTelemetry({ accountId: account.id, points: points(T0, 10, 30), now });
      await store.writeTelemetry({
        accountId: account.id,
        points: [{ imei: device.imei, time: T0 + 40 * 86_400 - 60, ignition: true, speedKmh: 9 }],
        now,
      });
      await store.writeTelemetry({
        accountId: account.id,
        points: [...points(T0 + 5_000, 20, 50), { deviceId: other.id, time: T0, ignition: true, speedKmh: 3 }],
        now,
      });
      // Under the devices' locks in a transaction: figures cut in another zone (changed outside Fleet Hours) are rebuilt.
      // (This test's own SQL behind Fleet Hours' back is not recorded.)
      recording = false;
      await sql`update devices set time_zone = 'Asia/Tokyo' where id = ${device.id}`.execute(recorded);
      recording = true;
      await store.writeTelemetry({ accountId: account.id, points: points(T0 + 9_000, 20, 40), now });
      await store.importSegments({ deviceId: other.id, segments: [{ startedAt: T0 + 86_400, endedAt: T0 + 90_000, state: 'moving' }] });
      // A repair (D36) writes like a write: under the device's lock.
      await sql`delete from engine_segments where device_id = ${device.id} and started_at = (select min(started_at) from engine_segments where device_id = ${device.id})`.execute(
        recorded,
      );
      await verifyStore(recorded, { repair: true });
      const targets = new Set<string>();
      for (const text of statements)
        for (const match of text.matchAll(/\b(insert\s+into|update|delete\s+from|merge\s+into|truncate)\s+("?[a-z_][a-z0-9_]*"?)/gi)) {
          const before = text.slice(Math.max(0, match.index - 4), match.index).toLowerCase();
          const table = match[2]!.replace(/"/g, '');
          if (before.endsWith('for ') || before.endsWith('do ') || table.toLowerCase() === 'set') continue;
          targets.add(table);
        }
      // What these writes change, so that the check below is not vacuous.
      expect([...targets].sort()).toEqual([
        'device_positions',
        'device_states',
        'engine_day_figures',
        'engine_segments',
        'event_checks',
        'service_memos',
        'telemetry_points',
      ]);
      for (const table of targets) {
        const placement = layout.find((each) => each.table === table);
        expect([table, placement?.kind]).toEqual([table, 'distributed']);
      }
    } finally {
      await recorded.destroy();
    }
  });
});
