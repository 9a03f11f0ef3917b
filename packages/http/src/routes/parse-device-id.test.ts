import { describe, expect, it } from 'vitest';
import { MAX_DEVICE_ID, parseDeviceId } from './parse-device-id.js';

describe('parseDeviceId()', () => {
  it('reads positive integers in canonical decimal form up to the PostgreSQL integer range (P9)', () => {
    expect(parseDeviceId('1')).toBe(1);
    expect(parseDeviceId('42')).toBe(42);
    expect(parseDeviceId('2147483647')).toBe(MAX_DEVICE_ID);
  });

  it.each([
    '',
    '0',
    '-1',
    '+1',
    '1.5',
    '1.0',
    '1e3',
    '0x10',
    '007',
    ' 1',
    '1 ',
    'abc',
    '2147483648',
    '9999999999',
    '99999999999999999999',
    '١',
  ])('refuses %j', (text) => {
    expect(parseDeviceId(text)).toBeNull();
  });
});
