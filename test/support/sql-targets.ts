/**
 * The two databases a CLI end-to-end test runs on, with a way to run SQL on each while no CLI
 * process holds it (to change derived data behind Fleet Hours' back): an embedded data directory,
 * and a fresh database on DATABASE_URL's server when it is set (otherwise that suite is skipped,
 * saying why).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPGliteDatabase } from '@fleet-hours/storage-kysely';
import { sql } from 'kysely';
import postgres from 'postgres';
import { describe, it } from 'vitest';
import { createTestDatabase } from './cli.js';

/** A database the CLI is pointed at. */
export interface SqlTarget {
  /** The CLI's arguments that name it: `--data-dir …` or `--database-url …`. */
  readonly args: readonly string[];
  /** Runs SQL on the database while no CLI process holds it. */
  readonly execute: (statement: string) => Promise<void>;
  readonly cleanup: () => Promise<void>;
}

/**
 * Runs `describeOn(name, makeTarget)` for the embedded database and, with DATABASE_URL, for a
 * PostgreSQL server.
 *
 * @param title The suite's title, for the skip message without DATABASE_URL.
 * @param describeOn Declares the suite on one database.
 */
export function describeOnEveryDatabase(title: string, describeOn: (name: string, makeTarget: () => Promise<SqlTarget>) => void): void {
  describeOn('embedded PGlite', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-sql-')), 'data');
    return {
      args: ['--data-dir', dataDir],
      async execute(statement) {
        const db = await createPGliteDatabase({ dataDir });
        try {
          await sql.raw(statement).execute(db);
        } finally {
          await db.destroy();
        }
      },
      cleanup: async () => rmSync(join(dataDir, '..'), { recursive: true, force: true }),
    };
  });
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    describe(`${title}: PostgreSQL server`, () => {
      it.skip('needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)', () => {});
    });
    return;
  }
  describeOn('PostgreSQL server', async () => {
    const database = await createTestDatabase(adminUrl);
    return {
      args: ['--database-url', database.url],
      async execute(statement) {
        const client = postgres(database.url, { max: 1, onnotice: () => {} });
        try {
          await client.unsafe(statement);
        } finally {
          await client.end();
        }
      },
      cleanup: () => database.drop(),
    };
  });
}
