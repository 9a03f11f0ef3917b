import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseRetryAfter, signingSecrets, webhookHeaders, type ClaimedDelivery, type AttemptReport } from '@fleet-hours/core';
import { Webhook } from 'standardwebhooks';
import { describeConnectionFailure } from '../http-client/describe-connection-failure.js';
import { publicLookup, RefusedAddressError, refuseNonPublicHost } from './public-address.js';

/** How one request is sent (D41). */
export interface SendOptions {
  /** How long a request may take, in ms (D41: 15 s). */
  readonly timeoutMs: number;
  /** Let requests reach loopback, private and every other non-public address (D48: tests, a receiver on the same host). */
  readonly allowPrivateAddresses: boolean;
  /** The clock, epoch milliseconds (the instant an answer came). Default `Date.now`. */
  readonly now?: () => number;
  /** Keep-alive agents whose connections are reused (D41). Default: Node's global agents. */
  readonly agents?: { readonly http: HttpAgent; readonly https: HttpsAgent };
}

/**
 * Sends one claimed delivery: the event's stored body, signed per Standard Webhooks with every
 * secret in use (D41: both for 24 h after a rotation), to the endpoint's URL, within the timeout.
 * Never throws: every outcome is an attempt report. An error never holds a secret.
 *
 * @param claimed The delivery, its event and its endpoint.
 * @param attemptedAt Epoch seconds: the `webhook-timestamp` of this attempt.
 * @param options The timeout and whether private addresses may be reached.
 * @returns What to record of the attempt.
 */
export async function sendWebhook(claimed: ClaimedDelivery, attemptedAt: number, options: SendOptions): Promise<AttemptReport> {
  const { event, endpoint } = claimed;
  const signatures = signingSecrets(endpoint, attemptedAt).map((secret) =>
    _signer(secret).sign(event.id, new Date(attemptedAt * 1000), event.body),
  );
  const headers = webhookHeaders({ eventId: event.id, attemptedAt, signatures });
  const started = performance.now();
  const report = (status: number | null, error: string | null, retryAfterSeconds: number | null = null): AttemptReport => ({
    attemptedAt,
    status,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    error,
    retryAfterSeconds,
  });
  try {
    const url = new URL(endpoint.url);
    if (!options.allowPrivateAddresses) refuseNonPublicHost(url);
    const response = await _post(url, headers, event.body, options);
    const status = response.statusCode ?? 0;
    const ok = status >= 200 && status < 300;
    const retryAfter = _header(response, 'retry-after');
    return report(status, ok ? null : `answered HTTP ${status}`, _retryAfter(retryAfter, attemptedAt, options.now ?? Date.now));
  } catch (error) {
    return report(null, _describe(error, options.timeoutMs));
  }
}

function _post(url: URL, headers: Record<string, string>, body: string, options: SendOptions): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'fleet-hours-webhooks' },
        lookup: options.allowPrivateAddresses ? undefined : publicLookup,
        ...(options.agents === undefined ? {} : { agent: url.protocol === 'https:' ? options.agents.https : options.agents.http }),
        timeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        // The answer's body is not read for meaning: drained, so the socket can be reused.
        response.resume();
        response.on('end', () => resolve(response));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', reject);
    request.end(body);
  });
}

/** The signers of the secrets in use, each made (its key decoded) once; bounded, the oldest dropped first. */
const _signers = new Map<string, Webhook>();
const _SIGNERS_KEPT = 1000;

function _signer(secret: string): Webhook {
  let signer = _signers.get(secret);
  if (signer === undefined) {
    signer = new Webhook(secret);
    if (_signers.size >= _SIGNERS_KEPT) _signers.delete(_signers.keys().next().value!);
    _signers.set(secret, signer);
  }
  return signer;
}

/**
 * `Retry-After` as seconds from `attemptedAt` (P51): an HTTP date as it reads; a number of seconds
 * counted from the answer, rounded up — `attemptedAt` is the whole second the attempt started in, so
 * counting from it could retry up to a second (and the request's time) early.
 */
function _retryAfter(value: string | null, attemptedAt: number, now: () => number): number | null {
  const asked = parseRetryAfter(value, attemptedAt);
  if (asked === null || !/^\s*\d+\s*$/.test(value!)) return asked;
  return Math.max(asked, Math.ceil(now() / 1000 + asked) - attemptedAt);
}

function _header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return typeof value === 'string' ? value : null;
}

/** An attempt's error for people: what failed, never a secret or a stack. */
function _describe(error: unknown, timeoutMs: number): string {
  // D48: the setting as serve, demo and webhooks test take it, the commands whose senders print or record this.
  if (error instanceof RefusedAddressError) return `refused: ${error.message} (allow it with --webhook-allow-private-addresses on)`;
  return describeConnectionFailure(error, timeoutMs);
}
