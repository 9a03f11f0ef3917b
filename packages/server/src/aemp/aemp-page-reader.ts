import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AempFetchError, parseRetryAfter, type AempNode, type AempSourceAuth } from '@fleet-hours/core';
import { describeConnectionFailure } from '../http-client/describe-connection-failure.js';
import { publicLookup, RefusedAddressError, refuseNonPublicHost } from '../webhooks/public-address.js';
import { parseAempPageBody, UnreadablePageError } from './aemp-page-body.js';

/** How a source is signed in to (basic, bearer, OAuth2 client credentials): core's type; the secrets are used here and never put in a message. */
export type AempAuth = AempSourceAuth;

/** How a source's pages are read (D65, D66, D48). */
export interface AempReaderOptions {
  readonly auth: AempAuth | null;
  /** What `Accept` asks for: XML (default) or JSON. */
  readonly format?: 'xml' | 'json';
  /** The least time between two requests of one URL (`min_interval_per_url_seconds`). */
  readonly minIntervalPerUrlSeconds: number;
  /** Let requests reach non-public addresses, and http on the loopback address (D48: tests). */
  readonly allowPrivateAddresses: boolean;
  /** The longest a poll waits before a request (`Retry-After`, the minimum interval); more ends the poll. Default 60. */
  readonly maxWaitSeconds?: number;
  /** How many times one page is asked again after 429 or 503. Default 3. */
  readonly maxRetries?: number;
  /** How long a request may take, in ms. Default 30 s. */
  readonly timeoutMs?: number;
  /** Epoch milliseconds now. Default `Date.now`. */
  readonly now?: () => number;
  /** Waits; default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The most bytes of one answer read (a page of a feed is far smaller). */
const _MAX_BODY_BYTES = 32 * 1024 * 1024;
/** A token is taken anew this long before it expires. */
const _TOKEN_MARGIN_MS = 30_000;

interface _Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A source's page reader for `pollAempSource` (D65, D66). It keeps, across polls, an OAuth2 token
 * (taken when missing or about to expire, and once again after a 401) and the time each URL was
 * last asked (requests of one URL at least the minimum interval apart). 429 and 503 are asked again
 * after their `Retry-After` when it is within `maxWaitSeconds` (at most `maxRetries` times); a longer
 * or missing `Retry-After` ends the poll, recorded, and the next poll starts afresh. Requests go
 * only to https, and only to public addresses (D48), unless allowed.
 */
export function aempPageReader(options: AempReaderOptions): { readonly fetchPage: (url: string) => Promise<AempNode> } {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWaitMs = (options.maxWaitSeconds ?? 60) * 1000;
  const intervalMs = options.minIntervalPerUrlSeconds * 1000;
  const lastAsked = new Map<string, number>();
  let token: { readonly value: string; readonly expiresAt: number } | null = null;

  const send = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string) =>
    _send(method, url, headers, body, options);

  /** Waits until the URL may be asked again, then notes it asked. */
  const pace = async (url: string, atLeastMs = 0) => {
    const waitMs = Math.max(atLeastMs, (lastAsked.get(url) ?? Number.NEGATIVE_INFINITY) + intervalMs - now());
    if (waitMs > maxWaitMs)
      throw new AempFetchError(
        null,
        `the next request would wait ${Math.ceil(waitMs / 1000)} s, longer than a poll waits (${maxWaitMs / 1000} s)`,
        Math.ceil(waitMs / 1000),
      );
    if (waitMs > 0) await sleep(waitMs);
    lastAsked.set(url, now());
  };

  const bearer = async (fresh: boolean): Promise<string> => {
    const auth = options.auth as Extract<AempAuth, { kind: 'oauth2_client_credentials' }>;
    if (!fresh && token !== null && now() < token.expiresAt - _TOKEN_MARGIN_MS) return token.value;
    token = null;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (auth.scope) form.set('scope', auth.scope);
    // RFC 6749 §2.3.1: the client's id and secret, form-encoded, as HTTP Basic.
    const client = `${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`;
    const answer = await send(
      'POST',
      auth.tokenUrl,
      {
        authorization: `Basic ${Buffer.from(client).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      form.toString(),
    );
    if (answer.status !== 200) throw new AempFetchError(answer.status, `the token endpoint answered HTTP ${answer.status}`);
    const granted = _json(answer.body) as { access_token?: unknown; expires_in?: unknown } | null;
    if (typeof granted?.access_token !== 'string' || granted.access_token === '')
      throw new AempFetchError(answer.status, 'the token endpoint gave no access_token');
    const lifetime = typeof granted.expires_in === 'number' && granted.expires_in > 0 ? granted.expires_in : 3600;
    token = { value: granted.access_token, expiresAt: now() + lifetime * 1000 };
    return token.value;
  };

  const authorization = async (fresh: boolean): Promise<Record<string, string>> => {
    const auth = options.auth;
    if (auth === null) return {};
    if (auth.kind === 'basic') return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
    if (auth.kind === 'bearer') return { authorization: `Bearer ${auth.token}` };
    return { authorization: `Bearer ${await bearer(fresh)}` };
  };

  const accept = options.format === 'json' ? 'application/json' : 'application/xml';

  return {
    async fetchPage(url) {
      let refreshed = false;
      let retries = 0;
      let waitMs = 0;
      for (;;) {
        await pace(url, waitMs);
        const answer = await send('GET', url, { accept, ...(await authorization(refreshed)) });
        if (answer.status === 401 && options.auth?.kind === 'oauth2_client_credentials' && !refreshed) {
          refreshed = true; // D66: a token refused is taken anew, once.
          waitMs = 0;
          continue;
        }
        if (answer.status === 429 || answer.status === 503) {
          const header = answer.headers['retry-after'];
          const asked = parseRetryAfter(typeof header === 'string' ? header : null, Math.floor(now() / 1000));
          if (asked === null) throw new AempFetchError(answer.status, `answered HTTP ${answer.status} without Retry-After`);
          if (retries >= (options.maxRetries ?? 3))
            throw new AempFetchError(answer.status, `answered HTTP ${answer.status} ${retries + 1} times`);
          retries += 1;
          waitMs = asked * 1000;
          continue;
        }
        if (answer.status < 200 || answer.status > 299) throw new AempFetchError(answer.status, `answered HTTP ${answer.status}`);
        try {
          return parseAempPageBody(answer.body, _header(answer.headers, 'content-type'));
        } catch (error) {
          if (error instanceof UnreadablePageError) throw new AempFetchError(answer.status, error.message);
          throw error;
        }
      }
    },
  };
}

/** One request (D48: https, public addresses; else only when allowed), its answer read whole, within the bounds. */
function _send(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  options: AempReaderOptions,
): Promise<_Answer> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise<_Answer>((resolve, reject) => {
    const target = new URL(url);
    const loopback = target.hostname === '127.0.0.1' || target.hostname === '[::1]';
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && options.allowPrivateAddresses && loopback))
      throw new AempFetchError(null, 'refused: only https URLs are read');
    if (!options.allowPrivateAddresses) refuseNonPublicHost(target);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      target,
      {
        method,
        headers: {
          ...headers,
          'user-agent': 'fleet-hours-aemp',
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        lookup: options.allowPrivateAddresses ? undefined : publicLookup,
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > _MAX_BODY_BYTES) request.destroy(new AempFetchError(response.statusCode ?? null, 'the page is larger than 32 MiB'));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', reject);
    request.end(body);
  }).catch((error: unknown) => {
    throw error instanceof AempFetchError ? error : new AempFetchError(null, _describe(error, timeoutMs));
  });
}

/** A failure to connect, for the poll's record: what failed, never a secret. */
function _describe(error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedAddressError) return `refused: ${error.message}`;
  return describeConnectionFailure(error, timeoutMs);
}

function _header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}

function _json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
