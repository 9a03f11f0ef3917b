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
export const session = { apiKey: '', generation: 0 };
export class Stale extends Error {}
export class ApiProblem extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
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
 * @returns {Promise<any>} The JSON body: each caller knows the shape of its endpoint's.
 */
export async function api(topic, path, query) {
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
        headers: { Authorization: `Bearer ${session.apiKey}`, Accept: 'application/json' },
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
    if (response.ok) {
      const body = await response.json();
      setNotice(topic, '');
      return body;
    }
    /** @type {{ code?: string, message?: string }} */
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
};
/** @param {unknown} error */
export function describeProblem(error) {
  if (!(error instanceof ApiProblem)) return `Something went wrong in this page: ${error instanceof Error ? error.message : String(error)}`;
  const words = WORDS[error.code] || 'The request failed';
  return `${words} (${error.status}${error.message ? `: ${error.message}` : ''})`;
}
