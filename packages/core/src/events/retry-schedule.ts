import type { EpochSeconds } from '../types.js';

/** The default delays between attempts (D41): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

/** The longest `Retry-After` honoured, in seconds (P51): one day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** How long an endpoint may fail without a success before it is disabled (D41): five days. */
export const ENDPOINT_FAILURE_DISABLE_SECONDS = 5 * 86_400;

/**
 * When to try a delivery again after a failed attempt (D41, D47): the schedule's delay for that
 * attempt counted from the end of the attempt (`finishedAt`; a request that hung until its timeout
 * waits the whole delay after it), or the receiver's `Retry-After` when it asks for later (counted
 * from `attemptedAt`, up to a day, P51); `null` once the schedule is spent (the delivery has failed).
 *
 * @param input How many attempts have failed (this one included), when this one was made and when
 *   it ended (default: when it was made), the receiver's `Retry-After` in seconds (`null`: none)
 *   and the schedule.
 * @returns Epoch seconds of the next attempt, or `null`.
 * @example
 * ```ts
 * import { nextAttemptAt } from '@fleet-hours/core';
 * nextAttemptAt({ failedAttempts: 1, attemptedAt: 1000, retryAfterSeconds: null }); // 1005
 * nextAttemptAt({ failedAttempts: 1, attemptedAt: 1000, finishedAt: 1015, retryAfterSeconds: null }); // 1020
 * nextAttemptAt({ failedAttempts: 1, attemptedAt: 1000, retryAfterSeconds: 60 }); // 1060
 * nextAttemptAt({ failedAttempts: 8, attemptedAt: 1000, retryAfterSeconds: null }); // null
 * ```
 */
export function nextAttemptAt(input: {
  readonly failedAttempts: number;
  readonly attemptedAt: EpochSeconds;
  readonly finishedAt?: EpochSeconds;
  readonly retryAfterSeconds: number | null;
  readonly schedule?: readonly number[];
}): EpochSeconds | null {
  const schedule = input.schedule ?? DEFAULT_RETRY_SCHEDULE_SECONDS;
  const delay = schedule[input.failedAttempts - 1];
  if (delay === undefined || input.failedAttempts < 1) return null;
  const asked = input.retryAfterSeconds === null ? 0 : Math.min(input.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  const ended = Math.max(input.attemptedAt, input.finishedAt ?? input.attemptedAt);
  return Math.max(ended + delay, input.attemptedAt + asked);
}

/**
 * When an attempt ended, epoch seconds (D47): its `finishedAt`, else `attemptedAt` plus its
 * duration rounded up to a whole second (`attemptedAt` is the second the attempt began in, so that
 * end may be up to a second before the real one: the sender reports `finishedAt`).
 *
 * @param attempt The attempt's start, duration and, when the sender knows it, end.
 * @returns Epoch seconds.
 * @example
 * ```ts
 * import { attemptEndedAt } from '@fleet-hours/core';
 * attemptEndedAt({ attemptedAt: 1000, durationMs: 15_000.4 }); // 1016
 * attemptEndedAt({ attemptedAt: 1000, durationMs: 12, finishedAt: 1001 }); // 1001
 * ```
 */
export function attemptEndedAt(attempt: {
  readonly attemptedAt: EpochSeconds;
  readonly durationMs: number;
  readonly finishedAt?: EpochSeconds;
}): EpochSeconds {
  return attempt.finishedAt ?? attempt.attemptedAt + Math.ceil(Math.max(0, attempt.durationMs) / 1000);
}

/**
 * Reads a `Retry-After` header: whole seconds, or an HTTP date (then the seconds from `now`).
 *
 * @param value The header, or `null`.
 * @param now Epoch seconds.
 * @returns Seconds, at least 0, or `null` when absent or unreadable.
 * @example
 * ```ts
 * import { parseRetryAfter } from '@fleet-hours/core';
 * parseRetryAfter('120', 0); // 120
 * parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0); // 60
 * parseRetryAfter('soon', 0); // null
 * ```
 */
export function parseRetryAfter(value: string | null, now: EpochSeconds): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(ms)) return null;
  return Math.max(0, Math.ceil(ms / 1000) - now);
}

/** Why an endpoint was disabled (D41): it answered 410, or it failed for five days. */
export type EndpointDisabledReason = 'gone' | 'failing' | 'operator';

/**
 * What an attempt does to its endpoint (D41): a 2xx clears its failing streak; a 410 disables it;
 * any other failure starts the streak (or keeps it) and disables the endpoint once the streak is
 * five days old.
 *
 * @param input The attempt's HTTP status (`null`: no answer), the start of the endpoint's failing
 *   streak (`null`: none), and when the attempt was made.
 * @returns The new streak start and, when the endpoint must be disabled, why.
 * @example
 * ```ts
 * import { endpointAfterAttempt } from '@fleet-hours/core';
 * endpointAfterAttempt({ status: 410, failingSince: null, now: 100 }); // { failingSince: 100, disable: 'gone' }
 * endpointAfterAttempt({ status: 204, failingSince: 50, now: 100 }); // { failingSince: null, disable: null }
 * ```
 */
export function endpointAfterAttempt(input: {
  readonly status: number | null;
  readonly failingSince: EpochSeconds | null;
  readonly now: EpochSeconds;
}): { readonly failingSince: EpochSeconds | null; readonly disable: EndpointDisabledReason | null } {
  if (input.status !== null && input.status >= 200 && input.status < 300) return { failingSince: null, disable: null };
  const failingSince = input.failingSince ?? input.now;
  if (input.status === 410) return { failingSince, disable: 'gone' };
  return { failingSince, disable: input.now - failingSince >= ENDPOINT_FAILURE_DISABLE_SECONDS ? 'failing' : null };
}

/**
 * Checks a retry schedule given as a setting: one or more whole numbers of seconds, each at least 1.
 *
 * @param text Delays separated by commas, each `5s`, `5m`, `2h` or a bare number of seconds.
 * @returns The delays in seconds.
 * @throws {RangeError} Naming the delay it cannot read.
 * @example
 * ```ts
 * import { parseRetrySchedule } from '@fleet-hours/core';
 * parseRetrySchedule('5s,5m,30m,2h'); // [5, 300, 1800, 7200]
 * ```
 */
export function parseRetrySchedule(text: string): number[] {
  const units: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600 };
  return text.split(',').map((part) => {
    const match = /^\s*(\d{1,9})(s|m|h)?\s*$/.exec(part);
    const seconds = match ? Number(match[1]) * units[match[2] ?? '']! : 0;
    if (!match || seconds < 1)
      throw new RangeError(
        `Cannot read the retry delay "${part.trim()}": give whole seconds (5, 5s), minutes (5m) or hours (2h), at least 1 s`,
      );
    return seconds;
  });
}

/**
 * A delivery's state after its `attempts`-th attempt (D41): delivered on a 2xx, failed on a 410
 * or once the schedule is spent, else pending until the next attempt, whose delay counts from the
 * end of this one (D47, `attemptEndedAt`). Every store applies it.
 *
 * @param attempts The attempts made, this one included.
 * @param attempt The attempt: when, how long, when it ended, its status (`null`: no answer) and the receiver's `Retry-After`.
 * @param retrySchedule The delays between attempts.
 * @returns The delivery's state, attempts and next attempt.
 * @example
 * ```ts
 * import { deliveryAfterAttempt } from '@fleet-hours/core';
 * deliveryAfterAttempt(1, { attemptedAt: 100, durationMs: 12, finishedAt: 100, status: 500, retryAfterSeconds: null }, [5]); // { state: 'pending', attempts: 1, nextAttemptAt: 105 }
 * ```
 */
export function deliveryAfterAttempt(
  attempts: number,
  attempt: {
    readonly attemptedAt: number;
    readonly durationMs: number;
    readonly finishedAt?: number;
    readonly status: number | null;
    readonly retryAfterSeconds: number | null;
  },
  retrySchedule: readonly number[],
): { readonly state: 'pending' | 'delivered' | 'failed'; readonly attempts: number; readonly nextAttemptAt: EpochSeconds | null } {
  if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300)
    return { state: 'delivered', attempts, nextAttemptAt: null };
  const next =
    attempt.status === 410
      ? null
      : nextAttemptAt({
          failedAttempts: attempts,
          attemptedAt: attempt.attemptedAt,
          finishedAt: attemptEndedAt(attempt),
          retryAfterSeconds: attempt.retryAfterSeconds,
          schedule: retrySchedule,
        });
  return next === null ? { state: 'failed', attempts, nextAttemptAt: null } : { state: 'pending', attempts, nextAttemptAt: next };
}
