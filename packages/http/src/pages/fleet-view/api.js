// @ts-check
/** Talking to the API with the key the user typed: waits and retries on 429, 503 and a network that is down, telling so on screen. */
import { $, el } from './dom.js';

/** @typedef {import('./types.js').Query} Query */

// The API lives beside the page, wherever the app is mounted ("/" alone, "/fleet" in a host app).
export const base = location.pathname.replace(/\/+$/, '');
// --- Talking to the API ------------------------------------------------------------------------
/**
 * The key in use, and how many times it changed: answers and waits that belong to an older key
 * (an older generation) are dropped.
 */
export const session = { apiKey: '', generation: 0, clockSkewMs: 0 };

/**
 * Keeps how far the server's clock is from this browser's, from an answer's `Date` header: "now"
 * sent to the server is the server's now, so that a reading taken now is never refused as being
 * in the future by a browser clock that runs ahead. The header is whole seconds, floored: the
 * estimate errs into the past.
 * @param {Response} response
 */
function noteServerClock(response) {
  const date = Date.parse(response.headers.get('Date') || '');
  if (!Number.isNaN(date)) session.clockSkewMs = date - Date.now();
}
/** The server's now as an instant in UTC, whole seconds: "2026-11-25T15:00:00Z". */
export const serverNow = () => new Date(Math.floor((Date.now() + session.clockSkewMs) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
export class Stale extends Error {}
export class ApiProblem extends Error {
  /** @param {number} status @param {string} code @param {string} message @param {string | null} [field] The body's field at fault (400 invalid_field). */
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field || null;
  }
}

// Waiting notices ("rate limited, retrying in 12 s") and problems, one per topic.
/** @type {Map<string, string>} */
export const notices = new Map();
/** @type {Map<string, string>} */
export const problems = new Map();
/** @param {string} topic @param {string} text */
export function setNotice(topic, text) {
  if (text) notices.set(topic, text);
  else notices.delete(topic);
  $('status').textContent = Array.from(notices.values()).join(' · ');
}
/** @param {string} topic @param {string} text */
export function setProblem(topic, text) {
  if (text) problems.set(topic, text);
  else problems.delete(topic);
  const box = $('problem');
  box.textContent = '';
  problems.forEach((message) => box.appendChild(el('p', {}, [message])));
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** @param {string} topic @param {number} seconds @param {(left: number) => string} describe @param {number} myGeneration */
async function countdown(topic, seconds, describe, myGeneration) {
  for (let left = seconds; left > 0; left -= 1) {
    if (myGeneration !== session.generation) throw new Stale();
    setNotice(topic, describe(left));
    await sleep(1000);
  }
  if (myGeneration !== session.generation) throw new Stale();
  setNotice(topic, `${topic}: retrying now`);
}
/** @param {Response} response @param {number} fallback */
function retryAfterSeconds(response, fallback) {
  const value = (response.headers.get('Retry-After') || '').trim();
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const at = Date.parse(value);
  return Number.isNaN(at) ? fallback : Math.max(1, Math.ceil((at - Date.now()) / 1000));
}

/**
 * GET one API path with the key. Waits and retries on 429 and 503 as Retry-After says, and while
 * the network is down, telling so on screen; any other error becomes an ApiProblem.
 * @param {string} topic
 * @param {string} path
 * @param {Query} [query]
 * @param {boolean} [csv] Ask for the list's CSV (`Accept: text/csv`): the whole list as one file.
 * @returns {Promise<any>} The JSON body: each caller knows the shape of its endpoint's; for CSV, `{ blob, fileName }`.
 */
export async function api(topic, path, query, csv) {
  const myGeneration = session.generation;
  const search = new URLSearchParams();
  const given = query || {};
  Object.keys(given).forEach((name) => {
    const value = given[name];
    if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  });
  const url = base + path + (search.toString() ? `?${search.toString()}` : '');
  let networkDelay = 2;
  for (;;) {
    if (myGeneration !== session.generation) throw new Stale();
    let response;
    try {
      response = await fetch(url, {
        headers: { Authorization: `Bearer ${session.apiKey}`, Accept: csv ? 'text/csv' : 'application/json' },
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (_error) {
      await countdown(
        topic,
        networkDelay,
        (left) => `${topic}: cannot reach the server (is the network down?), retrying in ${left} s`,
        myGeneration,
      );
      networkDelay = Math.min(networkDelay * 2, 60);
      continue;
    }
    if (myGeneration !== session.generation) throw new Stale();
    noteServerClock(response);
    if (response.ok) {
      const named = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') || '');
      const body = csv ? { blob: await response.blob(), fileName: named ? named[1] : 'fleet-hours.csv' } : await response.json();
      setNotice(topic, '');
      return body;
    }
    /** @type {{ code?: string, message?: string, field?: string }} */
    let error = {};
    try {
      error = (await response.json()).error || {};
    } catch (_ignored) {
      /* not JSON: a proxy's page */
    }
    if (response.status === 429) {
      await countdown(topic, retryAfterSeconds(response, 60), (left) => `${topic}: rate limited, retrying in ${left} s`, myGeneration);
      continue;
    }
    if (response.status === 503) {
      await countdown(
        topic,
        retryAfterSeconds(response, 10),
        (left) => `${topic}: the service is unavailable (503), retrying in ${left} s`,
        myGeneration,
      );
      continue;
    }
    setNotice(topic, '');
    throw new ApiProblem(response.status, error.code || '', error.message || response.statusText || '');
  }
}

/**
 * Every item of a paged fleet endpoint, following next_cursor.
 * @template T
 * @param {string} topic
 * @param {string} path
 * @param {Query} query
 * @returns {Promise<T[]>}
 */
export async function allPages(topic, path, query) {
  /** @type {T[]} */
  const items = [];
  const seen = new Set();
  let cursor = null;
  do {
    /** @type {{ data: T[], next_cursor: string | null }} */
    const page = await api(topic, path, Object.assign({}, query, { cursor: cursor }));
    page.data.forEach((item) => items.push(item));
    cursor = page.next_cursor;
    if (cursor !== null && seen.has(cursor)) throw new Error('the server sent the same page cursor twice');
    seen.add(cursor);
  } while (cursor !== null && cursor !== undefined);
  return items;
}

/**
 * A new Idempotency-Key (D53) for one intent of the user: a random UUID. `crypto.randomUUID` exists
 * only on secure origins (https, localhost); a page served over plain http on a network address
 * makes the same from `crypto.getRandomValues`, which every origin has.
 */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] || 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] || 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** @typedef {{ method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string, ifMatch?: string | null }} Write */

/**
 * Sends one write (D52) with the key: a JSON body, the intent's `Idempotency-Key` on a POST (D53)
 * and `If-Match` where given (D54). Waits and retries as {@link api} does on 429 and 503; a POST,
 * which its key makes safe to send again, also while the network is down and while the first
 * request with its key still runs (409 `idempotency_key_in_use`): the retry gets the first
 * request's answer. Any other refusal is an ApiProblem, with the field at fault.
 * @param {string} topic
 * @param {Write} write
 * @returns {Promise<any>} The JSON body; null for 204.
 */
export async function send(topic, write) {
  const myGeneration = session.generation;
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${session.apiKey}`, Accept: 'application/json' };
  if (write.body !== undefined) headers['Content-Type'] = 'application/json';
  if (write.idempotencyKey) headers['Idempotency-Key'] = write.idempotencyKey;
  if (write.ifMatch) headers['If-Match'] = write.ifMatch;
  const retrySafe = write.method === 'POST' && Boolean(write.idempotencyKey);
  let delay = 1;
  for (;;) {
    if (myGeneration !== session.generation) throw new Stale();
    let response;
    try {
      response = await fetch(base + write.path, {
        method: write.method,
        headers: headers,
        body: write.body === undefined ? undefined : JSON.stringify(write.body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (_error) {
      if (!retrySafe) throw new ApiProblem(0, 'network_error', 'no answer came; read the figures again before trying once more');
      await countdown(topic, delay, (left) => `${topic}: cannot reach the server, retrying in ${left} s`, myGeneration);
      delay = Math.min(delay * 2, 30);
      continue;
    }
    if (myGeneration !== session.generation) throw new Stale();
    noteServerClock(response);
    if (response.ok) {
      setNotice(topic, '');
      return response.status === 204 ? null : await response.json();
    }
    /** @type {{ code?: string, message?: string, field?: string }} */
    let error = {};
    try {
      error = (await response.json()).error || {};
    } catch (_ignored) {
      /* not JSON: a proxy's page */
    }
    if (response.status === 429 || response.status === 503) {
      const reason = response.status === 429 ? 'rate limited' : 'the service is unavailable (503)';
      await countdown(topic, retryAfterSeconds(response, 10), (left) => `${topic}: ${reason}, retrying in ${left} s`, myGeneration);
      continue;
    }
    if (response.status === 409 && error.code === 'idempotency_key_in_use' && retrySafe) {
      await countdown(topic, 1, () => `${topic}: the same request is still running, waiting for its answer`, myGeneration);
      continue;
    }
    setNotice(topic, '');
    throw new ApiProblem(response.status, error.code || '', error.message || response.statusText || '', error.field);
  }
}

/** @type {Record<string, string>} */
const WORDS = {
  missing_api_key: 'Enter an API key to see the fleet',
  unknown_api_key: 'The server does not know this key: check that it was copied whole',
  revoked_api_key: 'The key is revoked: ask the account holder for a new one',
  expired_api_key: 'The key has expired: ask the account holder for a new one',
  multiple_credentials: 'The request carried more than one key',
  plan_without_api_access: "This account's plan does not include API access",
  invalid_parameter: 'The server refused the request',
  device_not_found: 'That vehicle is not on this account any more',
  not_found: 'This server does not offer this part of the API',
  internal_error: 'The server failed to answer',
  insufficient_scope: 'This key may only read: changes need a key with the manage scope',
  invalid_field: 'The server refused a field',
  invalid_body: 'The server refused the request',
  conflict: 'That clashes with what is already there',
  precondition_failed: 'It changed meanwhile',
  idempotency_key_reused: 'The server refused a repeated request',
  network_error: 'The server did not answer',
};
/** @param {unknown} error */
export function describeProblem(error) {
  if (!(error instanceof ApiProblem)) return `Something went wrong in this page: ${error instanceof Error ? error.message : String(error)}`;
  const words = WORDS[error.code] || 'The request failed';
  return `${words} (${error.status}${error.message ? `: ${error.message}` : ''})`;
}
