/**
 * The pure parts of webhook delivery (D41) through the core's public functions: the retry
 * schedule and `Retry-After` (P51), disabling an endpoint, the Standard Webhooks body and headers,
 * the secrets in use during a rotation, and the checks of an endpoint's URL, event types, secret
 * and resolved address (P52).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptEndedAt,
  checkWebhookEventTypes,
  checkWebhookUrl,
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  deliveryAfterAttempt,
  endpointAfterAttempt,
  ENDPOINT_FAILURE_DISABLE_SECONDS,
  InvalidParameterError,
  isLoopbackAddress,
  isWebhookSecret,
  nextAttemptAt,
  parseRetryAfter,
  parseRetrySchedule,
  signingSecrets,
  webhookBody,
  webhookHeaders,
} from '../index.js';
import { thrownBy } from '../testing/refusal.js';

describe('nextAttemptAt() (D41)', () => {
  it('follows the default schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const delays = DEFAULT_RETRY_SCHEDULE_SECONDS.map((_, index) =>
      nextAttemptAt({ failedAttempts: index + 1, attemptedAt: 0, retryAfterSeconds: null }),
    );
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(nextAttemptAt({ failedAttempts: 8, attemptedAt: 0, retryAfterSeconds: null })).toBeNull();
  });

  it('honours a Retry-After longer than the schedule, up to a day, and never retries sooner than the schedule (P51)', () => {
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 100, retryAfterSeconds: 60 })).toBe(160);
    expect(nextAttemptAt({ failedAttempts: 2, attemptedAt: 100, retryAfterSeconds: 1 })).toBe(400);
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 0, retryAfterSeconds: 10 ** 9 })).toBe(86_400);
  });

  it('takes a configured schedule', () => {
    const schedule = parseRetrySchedule('1,2s,1m');
    expect(schedule).toEqual([1, 2, 60]);
    expect(
      [1, 2, 3, 4].map((failedAttempts) => nextAttemptAt({ failedAttempts, attemptedAt: 10, retryAfterSeconds: null, schedule })),
    ).toEqual([11, 12, 70, null]);
    expect(thrownBy(RangeError, () => parseRetrySchedule('5,soon')).message).toContain('"soon"');
    expect(thrownBy(RangeError, () => parseRetrySchedule('0')).message).toContain('at least 1 s');
  });

  it('never schedules an attempt before the failed one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.nat(10 ** 9),
        fc.option(fc.nat(10 ** 7)),
        (failedAttempts, attemptedAt, retryAfterSeconds) => {
          const next = nextAttemptAt({ failedAttempts, attemptedAt, retryAfterSeconds });
          expect(next).toBeGreaterThanOrEqual(attemptedAt + DEFAULT_RETRY_SCHEDULE_SECONDS[failedAttempts - 1]!);
        },
      ),
    );
  });
});

describe("a retry's delay from the end of the attempt (D47)", () => {
  it('counts the delay from finishedAt; Retry-After from the start; the end is never before the start', () => {
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 100, finishedAt: 115, retryAfterSeconds: null })).toBe(120);
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 100, finishedAt: 115, retryAfterSeconds: 30 })).toBe(130);
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 100, finishedAt: 115, retryAfterSeconds: 10 })).toBe(120);
    expect(nextAttemptAt({ failedAttempts: 1, attemptedAt: 100, finishedAt: 90, retryAfterSeconds: null })).toBe(105);
    expect(nextAttemptAt({ failedAttempts: 8, attemptedAt: 100, finishedAt: 115, retryAfterSeconds: null })).toBeNull();
  });

  it('takes the end from the duration, rounded up, when the report does not say it', () => {
    expect(attemptEndedAt({ attemptedAt: 100, durationMs: 15_000 })).toBe(115);
    expect(attemptEndedAt({ attemptedAt: 100, durationMs: 15_000.4 })).toBe(116);
    expect(attemptEndedAt({ attemptedAt: 100, durationMs: 0 })).toBe(100);
    expect(attemptEndedAt({ attemptedAt: 100, durationMs: 40_000, finishedAt: 120 })).toBe(120);
    const timedOut = { attemptedAt: 100, durationMs: 15_000.4, finishedAt: 116, status: null, retryAfterSeconds: null };
    expect(deliveryAfterAttempt(1, timedOut, [5])).toEqual({ state: 'pending', attempts: 1, nextAttemptAt: 121 });
  });

  it('property: against an oracle in milliseconds, the next attempt is the first whole second at least the delay after the real end, or the Retry-After from the start when later', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.option(fc.nat(200_000)),
        (failedAttempts, startMs, durationMs, retryAfterSeconds) => {
          // As a sender reports it: the second the attempt began in, and the clock after the answer rounded up.
          const attemptedAt = Math.floor(startMs / 1000);
          const finishedAt = Math.ceil((startMs + durationMs) / 1000);
          const delayMs = DEFAULT_RETRY_SCHEDULE_SECONDS[failedAttempts - 1]! * 1000;
          let oracle = attemptedAt + Math.min(retryAfterSeconds ?? 0, 86_400);
          while (oracle * 1000 < startMs + durationMs + delayMs) oracle += 1;
          expect(nextAttemptAt({ failedAttempts, attemptedAt, finishedAt, retryAfterSeconds })).toBe(oracle);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('parseRetryAfter()', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('120', 0)).toBe(120);
    expect(parseRetryAfter(' 0 ', 0)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0)).toBe(60);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 600)).toBe(0);
    expect(parseRetryAfter('-5', 0)).toBeNull();
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0)).toBeNull();
  });
});

describe('endpointAfterAttempt() (D41)', () => {
  it('disables an endpoint that answers 410 at once', () => {
    expect(endpointAfterAttempt({ status: 410, failingSince: null, now: 100 })).toEqual({ failingSince: 100, disable: 'gone' });
  });

  it('disables an endpoint after five days without a success, and a 2xx clears the streak', () => {
    const start = 1000;
    expect(endpointAfterAttempt({ status: 500, failingSince: null, now: start })).toEqual({ failingSince: start, disable: null });
    expect(
      endpointAfterAttempt({ status: null, failingSince: start, now: start + ENDPOINT_FAILURE_DISABLE_SECONDS - 1 }).disable,
    ).toBeNull();
    expect(endpointAfterAttempt({ status: 429, failingSince: start, now: start + ENDPOINT_FAILURE_DISABLE_SECONDS }).disable).toBe(
      'failing',
    );
    expect(endpointAfterAttempt({ status: 299, failingSince: start, now: start + 10 ** 6 })).toEqual({ failingSince: null, disable: null });
  });
});

describe('webhookBody() and webhookHeaders() (D40, D41)', () => {
  it('builds { type, timestamp, data } with a UTC timestamp in seconds', () => {
    const body = webhookBody({ type: 'device.silent', raisedAt: 1_795_618_800, data: { device_id: 7 } });
    expect(JSON.parse(body)).toEqual({ type: 'device.silent', timestamp: '2026-11-25T15:00:00Z', data: { device_id: 7 } });
  });

  it('sends the Standard Webhooks headers, every signature separated by a space', () => {
    expect(webhookHeaders({ eventId: 'evt_x', attemptedAt: 1_795_627_591, signatures: ['v1,a'] })).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'evt_x',
      'webhook-timestamp': '1795627591',
      'webhook-signature': 'v1,a',
    });
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', () => {
    const endpoint = { secret: 'whsec_new', previousSecret: 'whsec_old', previousSecretExpiresAt: 86_500 };
    expect(signingSecrets(endpoint, 86_499)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, 86_500)).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new', previousSecret: null, previousSecretExpiresAt: null }, 0)).toEqual(['whsec_new']);
  });
});

describe('endpoint checks (D41, P52)', () => {
  it('checkWebhookUrl() takes https anywhere and http only for a loopback host', () => {
    expect(checkWebhookUrl('https://ops.example.com/hooks')).toBe('https://ops.example.com/hooks');
    expect(checkWebhookUrl('http://127.0.0.1:9000/in')).toBe('http://127.0.0.1:9000/in');
    expect(checkWebhookUrl('http://localhost/in')).toBe('http://localhost/in');
    expect(checkWebhookUrl('http://[::1]:8/in')).toBe('http://[::1]:8/in');
    for (const bad of ['http://ops.example.com/', 'ftp://127.0.0.1/', 'hooks', 'https://user:pw@ops.example.com/']) {
      expect(thrownBy(InvalidParameterError, () => checkWebhookUrl(bad)).parameter).toBe('url');
    }
  });

  it('checkWebhookEventTypes() takes known types (every one by default) and names an unknown one', () => {
    expect(checkWebhookEventTypes(undefined)).toEqual(['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting']);
    expect(checkWebhookEventTypes(['device.reporting', 'service.due_soon', 'device.reporting'])).toEqual([
      'service.due_soon',
      'device.reporting',
    ]);
    expect(thrownBy(InvalidParameterError, () => checkWebhookEventTypes(['webhook.test'])).message).toContain('"webhook.test"');
  });

  it('isWebhookSecret() takes whsec_ and the base64 of 24 to 64 bytes', () => {
    const secret = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
    expect([23, 24, 64, 65].map((bytes) => isWebhookSecret(secret(bytes)))).toEqual([false, true, true, false]);
    expect(isWebhookSecret(secret(32).replace('whsec_', ''))).toBe(false);
  });

  it('isLoopbackAddress() takes 127.0.0.0/8 and ::1, also mapped into IPv6 (D41: http only for a loopback host)', () => {
    expect(['127.9.9.9', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(isLoopbackAddress('10.0.0.1')).toBe(false);
  });
});
