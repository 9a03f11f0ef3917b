import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  answerAdapterError,
  answerClientError,
  answerExpectation,
  answerMissingHost,
  lacksHost,
  type BelowRouterRefusal,
} from './answer-below-router.js';
import type { AccessLogEntry } from '../middleware/access-log/index.js';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** The app to serve: `createFleetHoursApp(…)`, or a host app it is mounted in. */
  // Any Hono app, whatever its env and schema, or anything with its fetch: only fetch is used.
  // biome-ignore lint/suspicious/noExplicitAny: a Hono app's env type varies; any of them fits.
  readonly app: { readonly fetch: (request: Request, env: any) => Response | Promise<Response> };
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
  /**
   * The largest request line and headers accepted, in bytes; larger ones are answered 431
   * `headers_too_large` (D29). Default Node's, 16 384.
   */
  readonly maxHeaderBytes?: number;
  /**
   * How long a connection may take to send a complete request line and headers, in ms: one that has
   * not — headers that never finish, nothing but blank lines, nothing at all — is answered 408
   * `request_timeout` and closed (D37). Default 10 000.
   */
  readonly headersTimeoutMs?: number;
  /**
   * Receives an access-log entry for each request refused below the app — by Node's HTTP parser or
   * the adapter — which the app's own access log never sees (D29). Default: none.
   */
  readonly logger?: (entry: AccessLogEntry) => void;
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
 * Requests refused before they reach the app — a malformed request line or header, headers too
 * large, a missing or invalid `Host`, a backslash in the path, `OPTIONS *`, an `Expect` other than
 * `100-continue` — are answered with the JSON error body (D16) and a fitting 4xx: 400
 * `bad_request`, 408 `request_timeout`, 413 `payload_too_large`, 417 `expectation_failed`, 431
 * `headers_too_large`, then the connection is closed (D29). They reach no route and no budget, so
 * they carry no rate-limit headers.
 *
 * At the wire's edges (D37): a connection that has not sent complete headers within
 * `headersTimeoutMs` is answered 408 `request_timeout` and closed; a complete request is answered
 * even when the client half-closes after it, and before the 400 of any bytes after it that are not
 * a request; no answer quotes a token a path may carry (an OsmAnd URL).
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
  const maxHeaderBytes = options.maxHeaderBytes ?? 16_384;
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  const onRefused = options.logger ? _refusalLogger(options.logger) : undefined;
  const fetch = options.app.fetch;

  return new Promise((resolve, reject) => {
    let closing: Promise<void> | undefined;
    // Responses not yet finished: on close they are sent with `Connection: close`, so a kept-alive
    // connection ends with its last response instead of idling until the shutdown timeout.
    const unfinished = new Set<ServerResponse>();

    // Node's own Host check answers with an empty body: the missing Host is answered here instead (D29).
    const server = createServer(
      {
        requireHostHeader: false,
        maxHeaderSize: maxHeaderBytes,
        // D37: Node checks the deadline every `connectionsCheckingInterval` (default 30 s, on top of a
        // 60 s deadline); checked often, a slow connection is answered within a moment of its deadline.
        headersTimeout: headersTimeoutMs,
        requestTimeout: Math.max(_NODE_REQUEST_TIMEOUT_MS, headersTimeoutMs),
        connectionsCheckingInterval: _checkingIntervalMs(headersTimeoutMs),
      },
      (request, response) => {
        if (lacksHost(request)) return answerMissingHost(request, response, onRefused);
        // The adapter's error handler answers requests it cannot turn into a URL (D29); it is told which request.
        const listener = getRequestListener(fetch, { hostname, errorHandler: (error) => answerAdapterError(error, request, onRefused) });
        return listener(request, response);
      },
    );
    // D37: a client that half-closes after a complete request still gets its answer (Node's
    // default ends the connection at the client's FIN, before the response is written).
    (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
    server.on('clientError', (error: Error, socket) => answerClientError(error, socket, maxHeaderBytes, onRefused));
    server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => answerExpectation(request, response, onRefused));
    server.listen(options.port ?? 3000, hostname, () => {
      const info = server.address() as AddressInfo;
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

/** Node's own deadline for a whole request (headers and body), kept: ingestion bounds its bodies itself. */
const _NODE_REQUEST_TIMEOUT_MS = 300_000;

/** How often Node looks for connections past their headers deadline: a tenth of it, at most a quarter second. */
function _checkingIntervalMs(headersTimeoutMs: number): number {
  return Math.max(10, Math.min(250, Math.floor(headersTimeoutMs / 10)));
}

type _ClosableServer = { closeIdleConnections?: () => void; closeAllConnections?: () => void };

function _closeIdleConnections(server: unknown): void {
  (server as _ClosableServer).closeIdleConnections?.();
}

function _closeAllConnections(server: unknown): void {
  (server as _ClosableServer).closeAllConnections?.();
}

function _refusalLogger(logger: (entry: AccessLogEntry) => void): (refusal: BelowRouterRefusal) => void {
  return (refusal) => {
    try {
      logger({
        time: new Date().toISOString(),
        request_id: refusal.requestId,
        method: refusal.method ?? '-',
        route: null,
        status: refusal.status,
        duration_ms: 0,
        key_id: null,
        client_address: refusal.clientAddress,
        error_code: refusal.code,
      });
    } catch {
      // Logging never fails an answer.
    }
  };
}

function _urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
