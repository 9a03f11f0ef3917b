import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/cli-errors.js';
import { describeDatabaseTarget, redactUrl, resolveDatabaseTarget } from './database-target.js';

const flags = (overrides: { databaseUrl?: string; dataDir?: string } = {}) => ({
  databaseUrl: undefined,
  dataDir: undefined,
  json: false,
  ...overrides,
});

describe('resolveDatabaseTarget()', () => {
  it('uses the embedded database in ./.fleet-hours when nothing is set', () => {
    expect(resolveDatabaseTarget(flags(), {}, '/srv/fleet')).toEqual({ kind: 'pglite', dataDir: '/srv/fleet/.fleet-hours' });
  });

  it('reads DATABASE_URL, then FLEET_HOURS_DATA_DIR, ignoring empty values', () => {
    expect(resolveDatabaseTarget(flags(), { DATABASE_URL: 'postgres://u@h/db' }, '/srv')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(resolveDatabaseTarget(flags(), { DATABASE_URL: '', FLEET_HOURS_DATA_DIR: 'data' }, '/srv')).toEqual({
      kind: 'pglite',
      dataDir: '/srv/data',
    });
    expect(resolveDatabaseTarget(flags(), { FLEET_HOURS_DATA_DIR: '/var/lib/fh' }, '/srv')).toEqual({
      kind: 'pglite',
      dataDir: '/var/lib/fh',
    });
  });

  it('lets an option on the command line beat the environment', () => {
    const env = { DATABASE_URL: 'postgres://u@h/db', FLEET_HOURS_DATA_DIR: '/env-dir' };
    expect(resolveDatabaseTarget(flags({ dataDir: 'here' }), env, '/srv')).toEqual({ kind: 'pglite', dataDir: '/srv/here' });
    expect(resolveDatabaseTarget(flags({ databaseUrl: 'postgresql://x@y/z' }), env, '/srv')).toEqual({
      kind: 'postgres',
      url: 'postgresql://x@y/z',
    });
  });

  it('refuses both options at once, an empty one, and a URL that is not PostgreSQL', () => {
    expect(() => resolveDatabaseTarget(flags({ databaseUrl: 'postgres://u@h/db', dataDir: 'd' }), {}, '/')).toThrow(UsageError);
    expect(() => resolveDatabaseTarget(flags({ dataDir: ' ' }), {}, '/')).toThrow('--data-dir must not be empty');
    expect(() => resolveDatabaseTarget(flags({ databaseUrl: 'mysql://u:pw@h/db' }), {}, '/')).toThrow(
      '--database-url must be a PostgreSQL connection string such as postgres://user@host:5432/dbname, got "mysql://u:***@h/db"',
    );
  });
});

describe('describeDatabaseTarget() and redactUrl()', () => {
  it('never shows a password', () => {
    expect(describeDatabaseTarget({ kind: 'postgres', url: 'postgres://fleet:s3cret@db:5432/fh' })).toBe(
      'PostgreSQL postgres://fleet:***@db:5432/fh',
    );
    expect(redactUrl('postgres://fleet@db/fh')).toBe('postgres://fleet@db/fh');
    expect(redactUrl('connect to postgres://a:b@c failed')).toBe('connect to postgres://a:***@c failed');
    expect(describeDatabaseTarget({ kind: 'pglite', dataDir: '/d' })).toBe('embedded PGlite in /d');
    expect(describeDatabaseTarget({ kind: 'pglite-memory' })).toBe('embedded PGlite in memory');
  });
});
