import { controlCharacterRefusal } from '@fleet-hours/core';
import { isStorableText } from '@fleet-hours/core/adapter';
import { describeValue } from './describe-value.js';

/**
 * D37: why a text field of a request cannot be stored, as the 400 message naming it, or `null`
 * when it can. PostgreSQL refuses a NUL in text (`invalid byte sequence for encoding "UTF8": 0x00`),
 * and a lone surrogate is not Unicode text: either would otherwise reach the database and fail
 * there, a 500. Every text field that a request hands to the store passes here where it is parsed.
 * D50: a device's identifier is a name a person typed into a tracker or a forwarder; one with a
 * control character (C0, C1, a bidirectional override) names no device (the CLI refuses such
 * names) and is refused too, its quote escaped.
 *
 * @param field The field as the client named it: `imei`, `device.uniqueId`, `id`.
 * @param text Its value.
 * @returns `id must be text without NUL characters or unpaired surrogates, got "35\u0000…"`, or `null`.
 */
export function unstorableText(field: string, text: string): string | null {
  if (!isStorableText(text)) return `${field} must be text without NUL characters or unpaired surrogates, got ${describeValue(text)}`;
  return controlCharacterRefusal(field, text);
}
