import { createFleetHours } from '@fleet-hours/core';
import { CommandError } from './cli-errors.js';
import type { DatabaseTarget } from './database-target.js';
import { openDatabase, type OpenedDatabase } from './open-database.js';

/** One structured log entry of the server. */
export type ServerLogEntry = Readonly<Record<string, unknown>>;

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** An open database (the caller closes it), or where to open one (migrated, closed with the server). */
  readonly database: OpenedDatabase | DatabaseTarget;
  /** Default 8080; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Receives one entry per request (the access log). */
  readonly log?: (entry: ServerLogEntry) => void;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/** A server that is listening. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly port: number;
  readonly database: OpenedDatabase;
  /** Stops accepting connections, lets open requests finish, then closes a database it opened. */
  close(): Promise<void>;
}

/**
 * Serves the Fleet Hours API over a database: the composition root of the reference server.
 * Rate-limit counters live in the database, so several instances share them (D15).
 *
 * @param options The database, address and logger.
 * @returns The running server.
 * @throws {CommandError} When the address cannot be listened on (e.g. the port is taken).
 * @example
 * ```ts
 * import { startServer } from '@fleet-hours/server';
 * const server = await startServer({ database: { kind: 'postgres', url: process.env.DATABASE_URL! }, port: 8080 });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const ownsDatabase = !('store' in options.database);
  const database = 'store' in options.database ? options.database : await openDatabase(options.database, { migrate: true });
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8080;
  try {
    const { createFleetHoursApp, serve } = await import('@fleet-hours/http');
    const now = options.now ?? Date.now;
    const fleetHours = createFleetHours({ store: database.store, now });
    const log = options.log;
    const app = createFleetHoursApp({
      fleetHours,
      now,
      ...(database.rateLimitStore ? { rateLimitStore: database.rateLimitStore } : {}),
      ...(log ? { logger: (entry: object) => log(entry as ServerLogEntry) } : {}),
    });
    const server = await serve({ app, port, hostname: host, handleSignals: false });
    let closing: Promise<void> | null = null;
    return {
      url: server.url,
      port: server.port,
      database,
      close() {
        closing ??= (async () => {
          try {
            await server.close();
          } finally {
            if (ownsDatabase) await database.close();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    if (ownsDatabase) await database.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new CommandError(`Cannot listen on ${host}:${port}: the port is in use (choose another with --port)`);
    if (code === 'EACCES') throw new CommandError(`Cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new CommandError(`Cannot listen on ${host}:${port}: no such local address`);
    throw error;
  }
}
