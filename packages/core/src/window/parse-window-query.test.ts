import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../errors/errors.js';
import { parseWindowQuery, type WindowQueryParameters } from './parse-window-query.js';
import { thrownBy } from '../testing/refusal.js';

const refusal = (parameters: WindowQueryParameters): InvalidParameterError =>
  thrownBy(InvalidParameterError, () => parseWindowQuery(parameters));

describe('parseWindowQuery() (D7, P11)', () => {
  it('parses from and to as local dates, given as one value or as the list a router hands over', () => {
    const dates = parseWindowQuery({ from: '2026-03-01', to: ['2026-03-08'] });
    expect([dates.from?.toString(), dates.to?.toString()]).toEqual(['2026-03-01', '2026-03-08']);
  });

  it('leaves a date that is not given undefined, for the defaults of D5', () => {
    expect(parseWindowQuery({})).toEqual({});
    expect(parseWindowQuery({ from: undefined, to: [] })).toEqual({});
    expect(parseWindowQuery({ to: '2026-03-08' }).from).toBeUndefined();
  });

  it('ignores other parameters, repeated or not', () => {
    const parameters: Record<string, string[]> = { from: ['2026-03-01'], unit: ['hours', 'days'], page: ['2'] };
    expect(parseWindowQuery(parameters).from?.toString()).toBe('2026-03-01');
  });

  it('refuses a malformed date, naming the parameter', () => {
    expect(refusal({ from: '2026-3-1' })).toMatchObject({
      parameter: 'from',
      message: 'Cannot parse from "2026-3-1": expected a date as YYYY-MM-DD',
    });
    expect(refusal({ to: '03/01/2026' }).parameter).toBe('to');
    expect(refusal({ from: '' }).parameter).toBe('from');
  });

  it('refuses an impossible date such as 2025-02-30, naming the parameter', () => {
    expect(refusal({ from: '2025-02-30', to: '2025-03-05' })).toMatchObject({
      parameter: 'from',
      message: 'Cannot parse from "2025-02-30": no such day',
    });
    expect(refusal({ from: '2025-02-01', to: '2025-02-30' }).parameter).toBe('to');
  });

  it('refuses a repeated parameter, even with equal values, before reading its value', () => {
    expect(refusal({ from: ['2026-03-01', '2026-03-02'] })).toMatchObject({
      parameter: 'from',
      message: 'Parameter from is given 2 times: give it once',
    });
    expect(refusal({ to: ['2026-03-01', '2026-03-01', 'x'] })).toMatchObject({
      parameter: 'to',
      message: 'Parameter to is given 3 times: give it once',
    });
  });

  it('checks from before to: when both are bad the error names from', () => {
    expect(refusal({ from: 'x', to: 'y' }).parameter).toBe('from');
    expect(refusal({ from: 'x', to: ['a', 'b'] }).parameter).toBe('from');
  });

  it('refuses a from after to, naming from; equal dates are one day', () => {
    const error = refusal({ from: '2026-03-09', to: '2026-03-08' });
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error).toMatchObject({
      parameter: 'from',
      code: 'invalid_parameter',
      status: 400,
      message: 'Parameter from "2026-03-09" is after to "2026-03-08"',
    });
    expect(() => parseWindowQuery({ from: '2026-03-08', to: '2026-03-08' })).not.toThrow();
  });

  it('refuses dates outside 0001-01-02 … 9999-12-30, naming the parameter, and takes both ends (P26)', () => {
    expect(refusal({ from: '0001-01-01' })).toMatchObject({
      parameter: 'from',
      message: 'Parameter from "0001-01-01" is outside the supported dates 0001-01-02 to 9999-12-30',
    });
    expect(refusal({ to: '9999-12-31' })).toMatchObject({ parameter: 'to' });
    expect(refusal({ from: '0000-06-01', to: '2026-01-01' })).toMatchObject({ parameter: 'from' });
    const dates = parseWindowQuery({ from: '0001-01-02', to: '9999-12-30' });
    expect([dates.from?.toString(), dates.to?.toString()]).toEqual(['0001-01-02', '9999-12-30']);
  });
});
