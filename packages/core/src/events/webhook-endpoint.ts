import { InvalidParameterError } from '../errors/errors.js';
import { SUBSCRIBABLE_EVENT_TYPES, type EventType } from './decide-events.js';

/**
 * Checks an endpoint's URL (D41): `https`, or `http` only for a loopback host (`localhost`,
 * `127.0.0.0/8`, `[::1]`); no user or password in it; at most 2,000 characters.
 *
 * @param text The URL as given.
 * @returns The URL, normalised.
 * @throws {InvalidParameterError} Naming `url`.
 * @example
 * ```ts
 * import { checkWebhookUrl } from '@fleet-hours/core';
 * checkWebhookUrl('https://ops.example.com/hooks'); // 'https://ops.example.com/hooks'
 * checkWebhookUrl('http://ops.example.com/hooks'); // throws InvalidParameterError: url must be https (http only for a loopback host)
 * ```
 */
export function checkWebhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidParameterError('url', 'url must be an absolute https URL');
  }
  if (text.length > 2000) throw new InvalidParameterError('url', 'url must be at most 2000 characters');
  if (url.username !== '' || url.password !== '') throw new InvalidParameterError('url', 'url must not hold a user or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || isLoopbackAddress(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new InvalidParameterError('url', 'url must be https (http only for a loopback host)');
  }
  return url.href;
}

/**
 * Checks the event types an endpoint subscribes to (D40): known types, `webhook.test` aside.
 *
 * @param types The types as given; empty or absent: every type.
 * @returns The types, without repeats, in the contract's order.
 * @throws {InvalidParameterError} Naming `events`.
 * @example
 * ```ts
 * import { checkWebhookEventTypes } from '@fleet-hours/core';
 * checkWebhookEventTypes(['device.silent', 'service.overdue']); // ['service.overdue', 'device.silent']
 * ```
 */
export function checkWebhookEventTypes(types: readonly string[] | undefined): EventType[] {
  if (types === undefined || types.length === 0) return [...SUBSCRIBABLE_EVENT_TYPES];
  for (const type of types) {
    if (!SUBSCRIBABLE_EVENT_TYPES.includes(type as EventType)) {
      const shown = type.length > 40 ? `${type.slice(0, 40)}…` : type;
      throw new InvalidParameterError('events', `events "${shown}" is not one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`);
    }
  }
  return SUBSCRIBABLE_EVENT_TYPES.filter((type) => types.includes(type));
}

/**
 * Whether a webhook secret has the Standard Webhooks form (D41): `whsec_` and the base64 of 24 to
 * 64 bytes.
 *
 * @param secret The secret.
 * @returns `true` when it has.
 * @example
 * ```ts
 * import { isWebhookSecret } from '@fleet-hours/core';
 * isWebhookSecret(`whsec_${btoa('x'.repeat(32))}`); // true
 * isWebhookSecret('whsec_short'); // false
 * ```
 */
export function isWebhookSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match || match[1]!.length % 4 !== 0) return false;
  const bytes = (match[1]!.length / 4) * 3 - (match[1]!.match(/=/g)?.length ?? 0);
  return bytes >= 24 && bytes <= 64;
}

/**
 * Whether an IP address is loopback: `127.0.0.0/8`, `::1`, or either mapped into IPv6.
 *
 * @param address A resolved IPv4 or IPv6 address.
 * @returns `true` for loopback.
 */
export function isLoopbackAddress(address: string): boolean {
  const v4 = _ipv4(address);
  if (v4) return v4[0] === 127;
  const v6 = _ipv6(address);
  if (v6 === null || !v6.slice(0, 5).every((part) => part === 0)) return false;
  if (v6[5] === 0xffff) return v6[6]! >> 8 === 127;
  return v6[5] === 0 && v6[6] === 0 && v6[7] === 1;
}

function _ipv4(address: string): number[] | null {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return null;
  return parts.map(Number);
}

function _ipv6(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = _ipv4(tail[1]!);
    if (!v4) return null;
    text = `${text.slice(0, -tail[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string) => (half === '' ? [] : half.split(':'));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => Number.parseInt(group, 16));
}
