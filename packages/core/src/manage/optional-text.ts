import { InvalidFieldError } from '../errors/errors.js';
import { controlCharacterRefusal } from '../text/clean-text.js';

/**
 * An optional free text of a write (an ingest token's label, a webhook endpoint's description):
 * checked as a name (D50), trimmed, at most `max` characters; absent, `null`, empty or blank: none.
 *
 * @param field The field by its name in the API's body, as a refusal names it.
 * @param value The value given.
 * @param max The longest text, in characters.
 * @returns The text, or `null` for none.
 * @throws {InvalidFieldError} Not a string, a control character, or longer than `max`.
 */
export function readOptionalText(field: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new InvalidFieldError(field, `${field} must be a string or null`);
  const refusal = controlCharacterRefusal(field, value);
  if (refusal !== null) throw new InvalidFieldError(field, refusal);
  const text = value.trim();
  if (text.length > max) throw new InvalidFieldError(field, `${field} must be at most ${max} characters`);
  return text === '' ? null : text;
}
