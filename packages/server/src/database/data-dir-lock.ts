import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommandError } from '../cli/cli-errors.js';

/** The lock file's name inside an embedded database directory. */
export const LOCK_FILE_NAME = 'fleet-hours.lock';

/** A held lock on a data directory. */
export interface DataDirLock {
  /** Removes the lock file; safe to call more than once. */
  release(): void;
}

/**
 * Claims an embedded database directory for this process. PGlite is a single-process database:
 * two processes writing one directory corrupt it, so a second `fleet-hours` on the same
 * directory (e.g. `keys revoke` while `serve` runs) is refused with a clear message instead.
 * A lock left by a process that no longer runs is taken over.
 *
 * @param dataDir The directory (created when missing).
 * @param pid This process's id.
 * @returns The lock; also released when the process exits.
 * @throws {CommandError} When a running process holds the directory.
 */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(path, `${pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = Number.parseInt(readLockHolder(path), 10);
      if (Number.isSafeInteger(holder) && holder !== pid && isRunning(holder)) {
        throw new CommandError(
          `The embedded database in ${dataDir} is in use by process ${holder} (another fleet-hours, e.g. serve). ` +
            'It allows one process at a time: stop that one first, or use a PostgreSQL server with --database-url',
        );
      }
      unlinkQuietly(path); // stale: its process is gone
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    unlinkQuietly(path);
  };
  process.on('exit', release);
  return { release };
}

function readLockHolder(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
