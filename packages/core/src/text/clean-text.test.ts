import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controlCharacterRefusal, escapeControlCharacters } from './clean-text.js';

/** The oracle: each code point checked by its Unicode general category and the bidirectional and line controls, one by one. */
function isControl(character: string): boolean {
  const code = character.codePointAt(0)!;
  if (/\p{Cc}/u.test(character)) return true; // C0, DEL, C1
  return code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x2028 && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** Text of any code points, crowded with the controls and the characters near them. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u001b', '\n', '\t', '\u007f', '\u0085', '\u009b', '\u00a0', '\u202e', '\u202f', '\u2066', '\u200f', '\u2028', '\\'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 20,
});

describe('names without control characters (D50)', () => {
  it('D50 refuses C0, C1 and bidirectional controls, naming the field, the text escaped and the first code point', () => {
    expect(controlCharacterRefusal('--name', 'Truck 14 – São Paulo 🚚')).toBeNull();
    expect(controlCharacterRefusal('--name', 'Truck\u001b[2J')).toBe(
      '--name must be text without control characters, got "Truck\\u001b[2J" (U+001B)',
    );
    expect(controlCharacterRefusal('name', 'exe\u202etxt')).toBe(
      'name must be text without control characters, got "exe\\u202etxt" (U+202E)',
    );
    expect(controlCharacterRefusal('label', 'a\u009bb\nc')).toBe(
      'label must be text without control characters, got "a\\u009bb\\u000ac" (U+009B)',
    );
  });

  it('D50 escapes every control character, keeps the rest and what is asked to be kept', () => {
    expect(escapeControlCharacters('Evil\u001b]0;x\u0007 \u202e\\')).toBe('Evil\\u001b]0;x\\u0007 \\u202e\\');
    expect(escapeControlCharacters('line\nnext\r', '\n')).toBe('line\nnext\\u000d');
  });

  it('D50 property: a text is refused exactly when it holds a control character, and its escape holds none', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const controls = [...text].filter(isControl);
        const refusal = controlCharacterRefusal('name', text);
        expect(refusal === null).toBe(controls.length === 0);
        if (refusal !== null)
          expect(refusal.endsWith(`(U+${controls[0]!.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`)).toBe(true);
        const escaped = escapeControlCharacters(text);
        expect([...escaped].some(isControl)).toBe(false);
        expect(escaped === text).toBe(controls.length === 0);
        // Escaped text is JSON's own escapes: it reads back as the text.
        expect(JSON.parse(`"${escapeControlCharacters(text.replaceAll('\\', '\\\\').replaceAll('"', '\\"'))}"`)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
