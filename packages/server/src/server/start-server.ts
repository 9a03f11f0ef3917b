import { createFleetHours } from '@fleet-hours/core';
import type { AccessLogEntry, RunningServer } from '@fleet-hours/http';
import { CommandError } from '../cli/cli-errors.js';
import type { DatabaseTarget } from '../database/database-target.js';
import { openDatabase, type OpenedDatabase } from '../database/open-database.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** An open database (the caller closes it), or where to open one (migrated, closed with the server). */
  readonly database: OpenedDatabase | DatabaseTarget;
  /** Default 8080; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Receives one entry per request (the access log). Default: one JSON line per request on stdout. */
  readonly log?: (entry: AccessLogEntry) => void;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Serves the Fleet Hours API over a database: the composition root of the reference server, with
 * the fleet view at `/` and the reference at `/docs`.
 * Rate-limit counters live in the database, so several instances share them (D15).
 *
 * It installs no signal handlers: the caller decides when to stop (the CLI waits for SIGTERM or
 * SIGINT through `CliIo.waitForStop`) and calls `close()`, which stops accepting connections, lets
 * open requests finish, then closes a database it opened.
 *
 * @param options The database, address and logger.
 * @returns The running server, as `@fleet-hours/http`'s `serve()` describes it.
 * @throws {CommandError} When the address cannot be listened on (e.g. the port is in use; the
 *   socket error, with its `code`, is the `cause`), or the database cannot be opened.
 * @example
 * ```ts
 * import { startServer } from '@fleet-hours/server';
 * // Or { kind: 'postgres', url: process.env.DATABASE_URL! }; port 0 picks a free port.
 * const server = await startServer({ database: { kind: 'pglite-memory' }, port: 0 });
 * console.log(server.url); // e.g. http://127.0.0.1:41213
 * await server.close(); // finishes open requests, then closes the database it opened
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
    const app = createFleetHoursApp({
      fleetHours: createFleetHours({ store: database.store, now }),
      now,
      // The reference server shows the fleet view at / (issue 12); the library leaves it off by default.
      fleetView: true,
      ...(database.rateLimitStore ? { rateLimitStore: database.rateLimitStore } : {}),
      ...(options.log ? { logger: options.log } : {}),
    });
    return await serve({
      app,
      port,
      hostname: host,
      handleSignals: false,
      ...(ownsDatabase ? { onClose: () => database.close() } : {}),
    });
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw _listenError(error, host, port);
  }
}

function _listenError(error: unknown, host: string, port: number): unknown {
  const reason = _LISTEN_FAILURES.get((error as { code?: unknown } | null)?.code);
  return reason ? new CommandError(`Cannot listen on ${host}:${port}: ${reason}`, { cause: error }) : error;
}

// By the socket error's code: why an address cannot be listened on.
const _LISTEN_FAILURES: ReadonlyMap<unknown, string> = new Map([
  ['EADDRINUSE', 'the port is in use (choose another with --port)'],
  ['EACCES', 'permission denied (ports below 1024 need privileges)'],
  ['EADDRNOTAVAIL', 'no such local address'],
  ['ENOTFOUND', 'no such local address'],
]);
