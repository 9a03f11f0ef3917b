/**
 * The characters no name may hold and no terminal may receive raw (D50): C0 controls (escape,
 * newline, tab…), DEL, C1 controls (a terminal may read U+009B as an escape sequence), the
 * bidirectional marks, embeddings, overrides and isolates (U+202E turns `exe.txt` into `txt.exe`),
 * and the line and paragraph separators.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is for (D50).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

/** `U+001B`: a code point as a message names it. */
const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why a name cannot be stored (D50), as the refusal naming the field or option, or `null` when it
 * is clean. The text quoted in the message is escaped, so the refusal itself is safe to print.
 *
 * @param field The field or option as the person typed it, e.g. `--name` or `name`.
 * @param text The name.
 * @returns `--name must be text without control characters, got "Truck\u001b[2J" (U+001B)`, or `null`.
 * @example
 * ```ts
 * import { controlCharacterRefusal } from '@fleet-hours/core';
 * controlCharacterRefusal('--name', 'Truck 14'); // null
 * controlCharacterRefusal('--name', 'Truck\u202e41'); // '--name must be text without control characters, got "Truck\\u202e41" (U+202E)'
 * ```
 */
export function controlCharacterRefusal(field: string, text: string): string | null {
  const found = CONTROL.exec(text);
  if (found === null) return null;
  const escaped = escapeControlCharacters(text);
  // A message quotes the name, not a whole request body.
  const shown = escaped.length > 60 ? `${escaped.slice(0, 57)}…` : escaped;
  return `${field} must be text without control characters, got "${shown}" (${codePoint(found[0])})`;
}

/**
 * A text as it may reach a terminal (D50): every control character of {@link controlCharacterRefusal}
 * written as its escape, `\u001b`, `\u202e`; everything else, backslashes included, unchanged.
 *
 * @param text The text, e.g. a name stored before names were checked.
 * @param keep Characters left as they are, e.g. `'\n'` for the lines of a command's output.
 * @example
 * ```ts
 * import { escapeControlCharacters } from '@fleet-hours/core';
 * escapeControlCharacters('Truck\u001b[2J'); // 'Truck\\u001b[2J'
 * ```
 */
export function escapeControlCharacters(text: string, keep = ''): string {
  return text.replace(CONTROLS, (character) =>
    keep.includes(character) ? character : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
