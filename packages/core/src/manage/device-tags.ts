import { InvalidFieldError, InvalidParameterError } from '../errors/errors.js';
import { controlCharacterRefusal } from '../text/clean-text.js';

/**
 * Device tags (D61, P93): what a tag is, in one place, for the device writes (`tags` of a body, the
 * CLI's `--tag`) and the `tag=` parameter of the lists that keep the devices having it.
 */

/** The most tags a device has (D61). */
export const DEVICE_TAGS_MAX = 20;

/** The longest tag, in characters (code points) (D61). */
export const DEVICE_TAG_MAX = 64;

/**
 * One tag as a person typed it, checked (D61, P93): a string, trimmed, in Unicode NFC (so that a
 * tag typed composed or decomposed is one tag), 1–64 characters, without control characters (D50).
 * Case is kept and counts: `Crane` and `crane` are two tags.
 *
 * @param value The value given.
 * @param field The field or parameter as the person gave it, for the message (`tags[2]`, `tag`).
 * @returns The tag, or why not.
 */
function _tag(value: unknown, field: string): { readonly tag: string } | { readonly refusal: string } {
  if (typeof value !== 'string') return { refusal: `${field} must be a string` };
  const refusal = controlCharacterRefusal(field, value);
  if (refusal !== null) return { refusal };
  const tag = value.trim().normalize('NFC');
  if (tag === '') return { refusal: `${field} must not be empty` };
  if ([...tag].length > DEVICE_TAG_MAX) return { refusal: `${field} must be at most ${DEVICE_TAG_MAX} characters` };
  return { tag };
}

/**
 * The `tags` of a device write (D61, P93): an array of at most {@link DEVICE_TAGS_MAX} tags, each
 * checked as {@link parseTagParameter} checks one, none twice (after trimming). The order given is
 * kept; an empty array removes every tag.
 *
 * @param value The `tags` of the body (or the CLI's `--tag` options).
 * @returns The tags.
 * @throws {InvalidFieldError} Naming `tags`.
 * @example
 * ```ts
 * import { readDeviceTags } from '@fleet-hours/core';
 * readDeviceTags([' north ', 'Crane']); // ['north', 'Crane']
 * ```
 */
export function readDeviceTags(value: unknown): readonly string[] {
  if (!Array.isArray(value)) throw new InvalidFieldError('tags', 'tags must be an array of strings');
  if (value.length > DEVICE_TAGS_MAX)
    throw new InvalidFieldError('tags', `tags must hold at most ${DEVICE_TAGS_MAX} tags, got ${value.length}`);
  const tags: string[] = [];
  for (const [index, each] of value.entries()) {
    const checked = _tag(each, `tags[${index}]`);
    if ('refusal' in checked) throw new InvalidFieldError('tags', checked.refusal);
    if (tags.includes(checked.tag)) throw new InvalidFieldError('tags', `tags holds "${checked.tag}" twice: give each tag once`);
    tags.push(checked.tag);
  }
  return Object.freeze(tags);
}

/**
 * The `tag` query parameter of a device list or fleet page (D61): given at most once, one tag as
 * a device write takes it (trimmed, NFC, 1–64 characters, no control characters).
 *
 * @param value The parameter's values as a router hands them over (`c.req.queries('tag')`).
 * @returns The tag, or `undefined` when not given.
 * @throws {InvalidParameterError} Naming `tag`.
 * @example
 * ```ts
 * import { parseTagParameter } from '@fleet-hours/core';
 * parseTagParameter(['north']); // 'north'
 * parseTagParameter(undefined); // undefined
 * ```
 */
export function parseTagParameter(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const values = typeof value === 'string' ? [value] : value;
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new InvalidParameterError('tag', 'Parameter tag is repeated: give one tag');
  const checked = _tag(values[0], 'Parameter tag');
  if ('refusal' in checked) throw new InvalidParameterError('tag', checked.refusal);
  return checked.tag;
}
