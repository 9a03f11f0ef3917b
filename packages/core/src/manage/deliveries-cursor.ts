import { InvalidParameterError } from '../errors/errors.js';
import type { WebhookAttempt } from '../events/webhook-records.js';

/** A cursor of an endpoint's attempts (P82): the last attempt shown, for this endpoint and filter only. */
export function encodeDeliveriesCursor(endpointId: number, failedOnly: boolean, last: WebhookAttempt): string {
  return btoa(JSON.stringify([1, endpointId, failedOnly ? 1 : 0, last.attemptedAt, last.id]))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export function decodeDeliveriesCursor(text: string, endpointId: number, failedOnly: boolean): { attemptedAt: number; id: number } {
  const refuse = () =>
    new InvalidParameterError('cursor', 'Parameter cursor is not a cursor of this list: give the next_cursor of a previous page of it');
  if (text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) throw refuse();
  let value: unknown;
  try {
    value = JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(value) || value.length !== 5) throw refuse();
  const [version, endpoint, failed, attemptedAt, id] = value as unknown[];
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (version !== 1 || endpoint !== endpointId || failed !== (failedOnly ? 1 : 0) || !whole(attemptedAt) || !whole(id)) throw refuse();
  return { attemptedAt, id };
}
