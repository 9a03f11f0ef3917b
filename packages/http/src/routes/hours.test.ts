import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';

const hoursOf = async (fixture: Awaited<ReturnType<typeof createFixture>>, deviceId: number, query = '') => {
  const response = await fixture.request(`/api/v1/devices/${deviceId}/hours${query}`, fixture.keys.acme.key);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('GET /api/v1/devices/{id}/hours', () => {
  it('counts a 23-hour DST day whole: America/New_York 2026-03-08 is 82 800 s (D4, D8)', async () => {
    const fixture = await createFixture();
    const { status, body } = await hoursOf(fixture, fixture.devices.newYork.id, '?from=2026-03-08&to=2026-03-08');
    expect(status).toBe(200);
    expect(body).toEqual({
      device_id: fixture.devices.newYork.id,
      from: '2026-03-08T00:00:00-05:00',
      to: '2026-03-08T23:59:59-04:00',
      timezone: 'America/New_York',
      engine_seconds: 82_800,
      moving_seconds: 79_200,
      idle_seconds: 3_600,
    });
  });

  it('counts a 25-hour DST day whole: America/New_York 2026-11-01 is 90 000 s', async () => {
    const fixture = await createFixture();
    const { body } = await hoursOf(fixture, fixture.devices.newYork.id, '?from=2026-11-01&to=2026-11-01');
    expect(body).toMatchObject({
      from: '2026-11-01T00:00:00-04:00',
      to: '2026-11-01T23:59:59-05:00',
      engine_seconds: 90_000,
      moving_seconds: 86_400,
      idle_seconds: 3_600,
    });
  });

  it('resolves days in a +05:45 zone: Asia/Kathmandu', async () => {
    const fixture = await createFixture();
    const { body } = await hoursOf(fixture, fixture.devices.kathmandu.id, '?from=2026-06-10&to=2026-06-10');
    expect(body).toEqual({
      device_id: fixture.devices.kathmandu.id,
      from: '2026-06-10T00:00:00+05:45',
      to: '2026-06-10T23:59:59+05:45',
      timezone: 'Asia/Kathmandu',
      engine_seconds: 7_200,
      moving_seconds: 7_200,
      idle_seconds: 0,
    });
  });

  it('keeps engine_seconds = moving_seconds + idle_seconds', async () => {
    const fixture = await createFixture();
    const { body } = await hoursOf(fixture, fixture.devices.newYork.id, '?from=2026-03-01&to=2026-11-30');
    expect(body.engine_seconds).toBe((body.moving_seconds as number) + (body.idle_seconds as number));
  });

  it('defaults to the seven local days before now, ending now (D5)', async () => {
    const fixture = await createFixture();
    const { body } = await hoursOf(fixture, fixture.devices.newYork.id);
    // The fixture's now is 2026-12-01T12:00:15Z = 07:00:15 EST.
    expect(body).toMatchObject({
      from: '2026-11-24T00:00:00-05:00',
      to: '2026-12-01T07:00:15-05:00',
      engine_seconds: 7_200,
      moving_seconds: 7_200,
    });
  });

  it('ends at now when only from is given (D5)', async () => {
    const fixture = await createFixture();
    const { body } = await hoursOf(fixture, fixture.devices.newYork.id, '?from=2026-11-28');
    expect(body).toMatchObject({ from: '2026-11-28T00:00:00-05:00', to: '2026-12-01T07:00:15-05:00', engine_seconds: 7_200 });
  });

  it('clamps a window older than 365 days instead of refusing it, and reports the window applied (D6)', async () => {
    const fixture = await createFixture();
    const { status, body } = await hoursOf(fixture, fixture.devices.newYork.id, '?from=2020-01-01&to=2026-11-30');
    expect(status).toBe(200);
    // Every New York segment lies in the window: 3 March days + 3 November days + an evening + 2 hours.
    expect(body).toMatchObject({
      from: '2025-11-30T00:00:00-05:00',
      to: '2026-11-30T23:59:59-05:00',
      engine_seconds: 86_400 + 82_800 + 86_400 + 86_400 + 90_000 + 86_400 + 12_600 + 7_200,
      idle_seconds: 6 * 3_600,
    });
  });

  it.each([
    ['a malformed from', '?from=2026-3-8', 'from', /Cannot parse from "2026-3-8"/],
    ['an impossible date', '?from=2025-02-30&to=2025-03-02', 'from', /no such day/],
    ['an impossible to', '?to=2026-13-01', 'to', /Cannot parse to "2026-13-01"/],
    ['an empty from', '?from=', 'from', /Cannot parse from ""/],
    ['a repeated from', '?from=2026-03-01&from=2026-03-02', 'from', /from is given 2 times/],
    ['a repeated to', '?to=2026-03-01&to=2026-03-01', 'to', /to is given 2 times/],
    ['from after to', '?from=2026-03-09&to=2026-03-08', 'from', /from "2026-03-09" is after to "2026-03-08"/],
    ['from after today in the device zone', '?from=2026-12-02', 'from', /after today \(2026-12-01\)/],
  ])('answers 400 invalid_parameter naming the parameter for %s (D7)', async (_name, query, parameter, message) => {
    const fixture = await createFixture();
    const { status, body } = await hoursOf(fixture, fixture.devices.newYork.id, query);
    expect(status).toBe(400);
    const error = (body as { error: { status: number; code: string; message: string } }).error;
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(error.message).toMatch(message);
    expect(error.message).toContain(parameter);
  });

  it('answers the same 400 for a bad query whatever the device id, so it reveals nothing about ids (D7, D11, P11)', async () => {
    const fixture = await createFixture();
    const texts = await Promise.all(
      [fixture.devices.newYork.id, fixture.devices.foreign.id, 999, 'abc'].map(async (id) => {
        const response = await fixture.request(`/api/v1/devices/${id}/hours?from=2026-02-30`, fixture.keys.acme.key);
        expect(response.status).toBe(400);
        return response.text();
      }),
    );
    expect(new Set(texts).size).toBe(1);
  });

  it('ignores unknown query parameters, repeated or not (D7)', async () => {
    const fixture = await createFixture();
    const { status, body } = await hoursOf(
      fixture,
      fixture.devices.newYork.id,
      '?from=2026-03-08&to=2026-03-08&unit=hours&unit=days&page=2',
    );
    expect(status).toBe(200);
    expect(body.engine_seconds).toBe(82_800);
  });
});
