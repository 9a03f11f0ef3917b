import { describe, expect, it } from 'vitest';
import { utc } from '../testing/fixture.js';
import { createServiceFixture } from '../testing/service-fixture.js';

const limitHeaders = (response: Response) => ({
  status: response.status,
  limit: response.headers.get('X-RateLimit-Limit'),
  remaining: response.headers.get('X-RateLimit-Remaining'),
  retryAfter: response.headers.get('Retry-After'),
});

describe('GET /api/v1/devices/{id}/service (D39)', () => {
  it('answers { device_id, timezone, as_of, hour_meter_seconds, data }: every schedule by ascending id, ok, due_soon and overdue, snake_case, instants with the offset (D9)', async () => {
    const fixture = await createServiceFixture();
    const response = await fixture.request(`/api/v1/devices/${fixture.devices.newYork.id}/service`, fixture.keys.acme.key);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual(fixture.bodies.newYork);
    // Field for field in the order of the contract.
    expect(text).toBe(JSON.stringify(fixture.bodies.newYork));
  });

  it('shows null calendar fields for a schedule without interval_days, and a last-done hour meter from the meter on an uncalibrated device (D38, D39)', async () => {
    const fixture = await createServiceFixture();
    const body = await (await fixture.request(`/api/v1/devices/${fixture.devices.kathmandu.id}/service`, fixture.keys.acme.key)).text();
    expect(body).toBe(JSON.stringify(fixture.bodies.kathmandu));
  });

  it('answers an empty data for a device without schedules, its hour meter still shown (D38)', async () => {
    const fixture = await createServiceFixture();
    await fixture.store.removeServiceSchedule({ scheduleId: fixture.bodies.idle.data[0]!.id });
    const response = await fixture.request(`/api/v1/devices/${fixture.devices.idle.id}/service`, fixture.keys.acme.key);
    expect(await response.json()).toEqual({ ...fixture.bodies.idle, data: [] });
  });

  it('reflects a new reading and late engine time at once: every value is computed at read time (D38, D39)', async () => {
    const fixture = await createServiceFixture();
    const { id } = fixture.devices.newYork;
    const read = async () =>
      (await (await fixture.request(`/api/v1/devices/${id}/service`, fixture.keys.acme.key)).json()) as typeof fixture.bodies.newYork;
    // A reading an hour before the oil's last service, 10 h above the hour meter there (the first
    // reading and 24 h of engine time): it re-bases everything after it.
    await fixture.store.addHourMeterReading({
      deviceId: id,
      readAt: utc(2026, 11, 2, 4),
      readingSeconds: 36_000_000 + 86_400 + 36_000,
      now: fixture.clock.nowMs / 1000,
    });
    const rebased = await read();
    expect(rebased.hour_meter_seconds).toBe(fixture.hourMeters.newYork + 36_000);
    expect(rebased.data[0]).toMatchObject({ last_done_hour_meter_seconds: 36_090_000 + 36_000, remaining_seconds: 806_400, status: 'ok' });
    // The schedule with an explicit last-done value keeps it; its remaining time shrinks.
    expect(rebased.data[1]).toMatchObject({ last_done_hour_meter_seconds: 35_900_000, remaining_seconds: 76_400 - 36_000 });
    // Late engine time, 20 h on 29 November: the filter is now overdue.
    await fixture.store.importSegments({
      deviceId: id,
      segments: [{ startedAt: utc(2026, 11, 29, 0), endedAt: utc(2026, 11, 29, 20), state: 'moving' }],
    });
    const later = await read();
    expect(later.hour_meter_seconds).toBe(fixture.hourMeters.newYork + 36_000 + 72_000);
    expect(later.data[1]).toMatchObject({ remaining_seconds: 76_400 - 36_000 - 72_000, status: 'overdue' });
  });

  it('answers a device of another account, an unknown device and ids that are not positive integers with the same 404, byte for byte (D11, D16)', async () => {
    const fixture = await createServiceFixture();
    const answers = await Promise.all(
      [fixture.devices.foreign.id, 999, 0, -1, 'abc', '1.0', '01', ''].map(async (id) => {
        const response = await fixture.request(`/api/v1/devices/${id}/service`, fixture.keys.acme.key);
        return { id, status: response.status, limit: response.headers.get('X-RateLimit-Limit'), text: await response.text() };
      }),
    );
    for (const answer of answers) expect(answer).toMatchObject({ status: 404, limit: '30' });
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(JSON.parse(answers[0]!.text)).toEqual({ error: { status: 404, code: 'device_not_found', message: expect.any(String) } });
    // The other account sees its own device.
    expect((await fixture.request(`/api/v1/devices/${fixture.devices.foreign.id}/service`, fixture.keys.other.key)).status).toBe(200);
  });

  it('checks in the order 401 → 403 → 429 → 404, and answers other methods 405 with Allow (D11, D17)', async () => {
    const fixture = await createServiceFixture({ rateLimits: { service: 1 } });
    const path = (id: number | string) => `/api/v1/devices/${id}/service`;
    const missing = await fixture.request(path(999), null);
    expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([401, 'missing_api_key']);
    const starter = await fixture.request(path(999), fixture.keys.starter.key);
    expect([starter.status, ((await starter.json()) as { error: { code: string } }).error.code]).toEqual([403, 'plan_without_api_access']);
    const post = await fixture.request(path(fixture.devices.newYork.id), fixture.keys.acme.key, { method: 'POST' });
    expect([post.status, post.headers.get('Allow')]).toEqual([405, 'GET, HEAD']);
    expect(limitHeaders(await fixture.request(path(999), fixture.keys.acme.key))).toMatchObject({ status: 404, remaining: '0' });
    expect(limitHeaders(await fixture.request(path(999), fixture.keys.acme.key))).toMatchObject({ status: 429, retryAfter: '45' });
  });

  it('answers HEAD with the headers of GET and no body, counted on the same budget (D17)', async () => {
    const fixture = await createServiceFixture();
    const path = `/api/v1/devices/${fixture.devices.newYork.id}/service`;
    const head = await fixture.request(path, fixture.keys.acme.key, { method: 'HEAD' });
    expect(limitHeaders(head)).toEqual({ status: 200, limit: '30', remaining: '29', retryAfter: null });
    expect(head.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(await head.text()).toBe('');
    expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toMatchObject({ status: 200, remaining: '28' });
  });

  it('allows 30 requests a minute per key by default, on a budget of its own, and refuses the 31st with Retry-After (D13, D14)', async () => {
    const fixture = await createServiceFixture();
    const path = `/api/v1/devices/${fixture.devices.newYork.id}/service`;
    for (let count = 1; count <= 30; count += 1) {
      expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toEqual({
        status: 200,
        limit: '30',
        remaining: String(30 - count),
        retryAfter: null,
      });
    }
    // Per route template, not per device id; the meter and the fleet page have their own budgets.
    const refused = await fixture.request(`/api/v1/devices/${fixture.devices.kathmandu.id}/service`, fixture.keys.acme.key);
    expect(limitHeaders(refused)).toEqual({ status: 429, limit: '30', remaining: '0', retryAfter: '45' });
    expect(refused.headers.get('X-RateLimit-Reset')).toBe('45');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(limitHeaders(await fixture.request(`/api/v1/devices/${fixture.devices.newYork.id}/meter`, fixture.keys.acme.key))).toMatchObject(
      {
        status: 200,
        remaining: '29',
      },
    );
    expect(limitHeaders(await fixture.request('/api/v1/service', fixture.keys.acme.key))).toMatchObject({ status: 200, limit: '60' });
    expect(limitHeaders(await fixture.request(path, fixture.keys.acmeSecond.key))).toMatchObject({ status: 200, remaining: '29' });
    fixture.clock.advance(45_000);
    expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toMatchObject({ status: 200, remaining: '29' });
  });

  it("takes its limit from the app's rateLimits.service (D13)", async () => {
    const fixture = await createServiceFixture({ rateLimits: { service: 2 } });
    const path = `/api/v1/devices/${fixture.devices.newYork.id}/service`;
    expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toMatchObject({ status: 200, limit: '2', remaining: '1' });
    expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toMatchObject({ status: 200, limit: '2', remaining: '0' });
    expect(limitHeaders(await fixture.request(path, fixture.keys.acme.key))).toMatchObject({ status: 429, limit: '2', retryAfter: '45' });
  });
});
