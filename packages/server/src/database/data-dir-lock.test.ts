import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir, LOCK_FILE_NAME } from './data-dir-lock.js';

const root = mkdtempSync(join(tmpdir(), 'fleet-hours-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lockDataDir()', () => {
  it('creates the directory and a lock file with the pid, removed on release (P18)', () => {
    const dir = join(root, 'a', 'b');
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
  });

  it('refuses a directory held by another running process, naming it', () => {
    const dir = join(root, 'held');
    const other = lockDataDir(dir, process.pid);
    try {
      // A pid of a running process other than the one asking: our parent.
      expect(() => lockDataDir(dir, process.ppid)).toThrow(`is in use by process ${process.pid}`);
    } finally {
      other.release();
    }
  });

  it('takes over a lock left by a process that has ended', () => {
    const dir = join(root, 'stale');
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    lockDataDir(join(dir)).release();
    writeFileSync(join(dir, LOCK_FILE_NAME), `${ended.stdout}\n`);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });
});
