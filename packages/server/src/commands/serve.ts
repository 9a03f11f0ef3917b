import type { CliIo, TextSink } from '../cli/cli-io.js';
import { readHost, readPort } from '../cli/option-values.js';
import { describeDatabaseTarget, type DatabaseTarget } from '../database/database-target.js';
import type { DatabaseOpener } from '../database/open-database.js';
import { startServer } from '../server/start-server.js';

/**
 * `serve [--port 8080] [--host 127.0.0.1]`: migrates, serves, logs JSON lines on stdout, and on
 * SIGTERM/SIGINT stops accepting connections, finishes open requests, closes the database and
 * returns 0.
 */
export async function serveCommand(input: {
  readonly io: CliIo;
  readonly target: DatabaseTarget;
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  readonly openDatabase: DatabaseOpener;
}): Promise<number> {
  const { io, target } = input;
  const port = typeof input.options.port === 'string' ? readPort(input.options.port) : 8080;
  const host = readHost(input.options.host);
  const log = _jsonLineLogger(io.stdout, io.now);
  const stop = io.waitForStop();

  log({ msg: 'starting', database: describeDatabaseTarget(target) });
  const database = await input.openDatabase(target, { migrate: true });
  let server;
  try {
    server = await startServer({ database, port, host, log, now: io.now });
  } catch (error) {
    await database.close();
    throw error;
  }
  log({ msg: 'listening', url: server.url, port: server.port, host, database: describeDatabaseTarget(target) });

  const signal = await stop;
  log({ msg: 'stopping', signal });
  try {
    await server.close();
  } finally {
    await database.close();
  }
  log({ msg: 'stopped' });
  return 0;
}

/** Writes one JSON object per line: the server's own messages, and the access log (`msg: 'request'`). */
function _jsonLineLogger(sink: TextSink, now: () => number): (entry: object) => void {
  return (entry) => {
    const status = (entry as { status?: unknown }).status;
    const level = typeof status === 'number' && status >= 500 ? 'error' : 'info';
    sink.write(`${JSON.stringify({ time: new Date(now()).toISOString(), level, ...('method' in entry ? { msg: 'request' } : {}), ...entry })}\n`);
  };
}
