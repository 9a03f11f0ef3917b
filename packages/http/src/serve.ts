import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveOnNode } from '@hono/node-server';
import type { Hono } from 'hono';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** The app to serve: `createFleetHoursApp(…)`, or a host app it is mounted in. */
  // Any Hono app, whatever its env and schema: only its fetch is used.
  readonly app: Hono<any, any, any>;
  /** TCP port; `0` picks a free one (read it from the result). Default 3000. */
  readonly port?: number;
  /** Address to listen on. Default `127.0.0.1`: pass `0.0.0.0` (or `::`) to accept other machines. */
  readonly hostname?: string;
  /** Close gracefully on SIGTERM and SIGINT, then exit the process. Default `true`. */
  readonly handleSignals?: boolean;
  /** Runs once the server has stopped, before the process exits on a signal: close database pools here. */
  readonly onClose?: () => Promise<void> | void;
  /** How long in-flight requests may take to finish on close before their connections are cut, in ms. Default 10 000. */
  readonly shutdownTimeoutMs?: number;
}

/** A server started by {@link serve}. */
export interface RunningServer {
  /** The base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The port actually bound (useful with `port: 0`). */
  readonly port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `shutdownTimeoutMs`), closes
   * idle keep-alive connections, then runs `onClose`. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Serves an app on Node with `@hono/node-server` and graceful shutdown.
 *
 * With `handleSignals` (the default), the first SIGTERM or SIGINT closes the server as `close()`
 * does and then exits with code 0 (1 when closing failed); a second signal exits at once with 1.
 *
 * @param options The app, where to listen, and shutdown behaviour.
 * @returns Once listening: the URL, the port and `close()`.
 * @throws When the port cannot be bound (the promise rejects, e.g. with `EADDRINUSE`).
 * @example
 * ```ts
 * // not executed: listens on port 8080 until the process stops
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * import { createFleetHoursApp, serve } from '@fleet-hours/http';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const server = await serve({ app: createFleetHoursApp({ fleetHours }), port: 8080 });
 * console.log(`Listening on ${server.url}`);
 * ```
 */
export function serve(options: ServeOptions): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;

  return new Promise((resolve, reject) => {
    let closing: Promise<void> | undefined;
    // Responses not yet finished: on close they are sent with `Connection: close`, so a kept-alive
    // connection ends with its last response instead of idling until the shutdown timeout.
    const unfinished = new Set<ServerResponse>();

    const server = serveOnNode({ fetch: options.app.fetch, port: options.port ?? 3000, hostname }, (info: AddressInfo) => {
      server.off('error', reject);

      const close = (): Promise<void> => {
        closing ??= (async () => {
          removeSignalHandlers();
          for (const response of unfinished) if (!response.headersSent) response.setHeader('Connection', 'close');
          await new Promise<void>((closed, failed) => {
            const cut = setTimeout(() => _closeAllConnections(server), shutdownTimeoutMs);
            cut.unref();
            server.close((error) => {
              clearTimeout(cut);
              if (error) failed(error);
              else closed();
            });
            _closeIdleConnections(server);
          });
          await options.onClose?.();
        })();
        return closing;
      };

      const onSignal = (): void => {
        if (closing) process.exit(1);
        close().then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
            process.exit(1);
          },
        );
      };
      const signals = options.handleSignals === false ? [] : (['SIGTERM', 'SIGINT'] as const);
      for (const signal of signals) process.on(signal, onSignal);
      function removeSignalHandlers(): void {
        for (const signal of signals) process.off(signal, onSignal);
      }

      resolve({ url: `http://${_urlHost(info.address)}:${info.port}`, port: info.port, close });
    });
    server.once('error', reject);
    server.on('request', (_request: unknown, response: ServerResponse) => {
      if (closing) response.setHeader('Connection', 'close');
      unfinished.add(response);
      response.once('close', () => unfinished.delete(response));
    });
  });
}

type _ClosableServer = { closeIdleConnections?: () => void; closeAllConnections?: () => void };

function _closeIdleConnections(server: unknown): void {
  (server as _ClosableServer).closeIdleConnections?.();
}

function _closeAllConnections(server: unknown): void {
  (server as _ClosableServer).closeAllConnections?.();
}

function _urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
