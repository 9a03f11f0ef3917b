import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliJson } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-fresh-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('fleet-hours on a data directory that has never been migrated', () => {
  it('migrates before any command, so the first command an operator runs just works (P19)', async () => {
    const dataDir = join(work, 'never-migrated');
    expect(await runCliJson(['accounts', 'list', '--data-dir', dataDir], { cwd: work })).toEqual({ data: [] });
    expect(await runCliJson(['accounts', 'create', '--name', 'First', '--data-dir', dataDir], { cwd: work })).toEqual({
      id: 1,
      name: 'First',
      plan: 'business',
    });
    expect(await runCliJson(['accounts', 'list', '--data-dir', dataDir], { cwd: work })).toEqual({
      data: [{ id: 1, name: 'First', plan: 'business' }],
    });
  });
});
