import { describe, it } from 'vitest';
import { createTestDatabase } from '../support/cli.js';
import { describeCliEndToEnd } from './_cli-scenario.js';

const adminUrl = process.env.DATABASE_URL;

if (adminUrl) {
  // A fresh database per run (CREATE DATABASE fh_e2e_<random>), dropped at the end.
  describeCliEndToEnd('PostgreSQL server', async () => {
    const database = await createTestDatabase(adminUrl);
    return { args: ['--database-url', database.url], sharedWhileServing: true, cleanup: () => database.drop() };
  });
} else {
  describe('fleet-hours CLI and server end to end: PostgreSQL server', () => {
    it.skip('needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)', () => {});
  });
}
