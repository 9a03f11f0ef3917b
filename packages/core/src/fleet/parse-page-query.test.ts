import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../errors/errors.js';
import { FLEET_PAGE_SIZES, parsePageQuery, type FleetEndpoint, type PageQueryParameters } from './parse-page-query.js';
import { thrownBy } from '../testing/refusal.js';

const refusal = (parameters: PageQueryParameters, endpoint: FleetEndpoint = 'hours'): InvalidParameterError =>
  thrownBy(InvalidParameterError, () => parsePageQuery(parameters, endpoint));

describe('parsePageQuery() (D32)', () => {
  it('FLEET_PAGE_SIZES: 100 devices by default and 500 at most, /hours/daily 20 and 100 (D32, D39)', () => {
    expect(FLEET_PAGE_SIZES).toEqual({
      hours: { default: 100, max: 500 },
      daily: { default: 20, max: 100 },
      meter: { default: 100, max: 500 },
      service: { default: 100, max: 500 },
      // D60: a year of days per device, as the daily series.
      utilization: { default: 20, max: 100 },
      // P87: entries of the change log (D55).
      audit: { default: 50, max: 500 },
    });
  });

  it('leaves limit undefined when it is not given, for the endpoint default, and passes the cursor through', () => {
    expect(parsePageQuery({}, 'hours')).toEqual({ cursor: undefined });
    expect(parsePageQuery({ cursor: ['abc'], from: ['x'] } as PageQueryParameters, 'meter')).toEqual({ cursor: 'abc' });
  });

  it('reads limit from 1 to the endpoint maximum, as one value or the list a router hands over', () => {
    expect(parsePageQuery({ limit: '1' }, 'hours').limit).toBe(1);
    expect(parsePageQuery({ limit: ['500'] }, 'hours').limit).toBe(500);
    expect(parsePageQuery({ limit: '500' }, 'meter').limit).toBe(500);
    expect(parsePageQuery({ limit: '100' }, 'daily').limit).toBe(100);
    expect(parsePageQuery({ limit: '007' }, 'daily').limit).toBe(7);
  });

  it.each([
    ['0', 'hours', /Parameter limit "0" is out of range: give a whole number from 1 to 500/],
    ['501', 'hours', /Parameter limit "501" is out of range: give a whole number from 1 to 500/],
    ['501', 'meter', /from 1 to 500/],
    ['101', 'daily', /Parameter limit "101" is out of range: give a whole number from 1 to 100/],
    ['-1', 'hours', /Cannot parse limit "-1": give a whole number from 1 to 500/],
    ['1.5', 'hours', /Cannot parse limit "1.5"/],
    ['1e2', 'hours', /Cannot parse limit "1e2"/],
    ['', 'daily', /Cannot parse limit "": give a whole number from 1 to 100/],
    [' 5', 'hours', /Cannot parse limit " 5"/],
    ['ten', 'hours', /Cannot parse limit "ten"/],
    ['99999999999999999999', 'hours', /Cannot parse limit "99999999999999999999"/],
  ] as const)('refuses limit "%s" on %s, naming limit', (limit, endpoint, message) => {
    const error = refusal({ limit }, endpoint);
    expect(error.parameter).toBe('limit');
    expect(error.message).toMatch(message);
  });

  it('refuses a repeated limit or cursor, like a repeated date (D7)', () => {
    expect(refusal({ limit: ['10', '10'] })).toMatchObject({
      parameter: 'limit',
      message: 'Parameter limit is given 2 times: give it once',
    });
    expect(refusal({ cursor: ['a', 'b', 'c'] })).toMatchObject({
      parameter: 'cursor',
      message: 'Parameter cursor is given 3 times: give it once',
    });
  });

  it('checks limit before cursor', () => {
    expect(refusal({ limit: '0', cursor: ['a', 'b'] }).parameter).toBe('limit');
  });
});
