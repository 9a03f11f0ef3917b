import { describe, expect, it } from 'vitest';
import { fieldChanges, REDACTED } from './change-log.js';

describe('fieldChanges (D55)', () => {
  it('names only the fields whose values differ', () => {
    expect(fieldChanges({ name: 'A', imei: '1', tags: ['x'] }, { name: 'B', imei: '1', tags: ['x'] })).toEqual({ name: ['A', 'B'] });
  });
  it('a creation and a removal name every field, missing as null', () => {
    expect(fieldChanges(null, { name: 'A' })).toEqual({ name: [null, 'A'] });
    expect(fieldChanges({ name: 'A' }, null)).toEqual({ name: ['A', null] });
  });
  it('writes secrets as redacted, never their values', () => {
    const changes = fieldChanges({ secret: 'old' }, { secret: 'new' }, ['secret']);
    expect(changes).toEqual({ secret: [REDACTED, REDACTED] });
    expect(JSON.stringify(changes)).not.toMatch(/old|new/);
  });
});
