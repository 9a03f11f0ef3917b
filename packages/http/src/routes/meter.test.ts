import { describe, expect, it } from 'vitest';
import { createFixture, utc } from '../testing/fixture.js';

describe('GET /api/v1/devices/{id}/meter', () => {
  it('answers { device_id, timezone, since, as_of, engine/moving/idle seconds, hour meter } over every segment up to now (D3, D38)', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.newYork.id;
    const response = await fixture.request(`/api/v1/devices/${id}/meter`, fixture.keys.acme.key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      device_id: id,
      timezone: 'America/New_York',
      since: '2026-03-07T00:00:00-05:00',
      as_of: '2026-12-01T07:00:15-05:00',
      engine_seconds: 86_400 + 82_800 + 86_400 + 86_400 + 90_000 + 86_400 + 12_600 + 7_200,
      moving_seconds: 86_400 + 82_800 + 86_400 + 86_400 + 90_000 + 86_400 + 12_600 + 7_200 - 6 * 3_600,
      idle_seconds: 6 * 3_600,
      // No reading: the hour meter is the meter, uncalibrated (D38).
      hour_meter_seconds: 86_400 + 82_800 + 86_400 + 86_400 + 90_000 + 86_400 + 12_600 + 7_200,
      hour_meter_read_at: null,
    });
  });

  it('answers since null and zeros for a device without segments', async () => {
    const fixture = await createFixture();
    const response = await fixture.request(`/api/v1/devices/${fixture.devices.idle.id}/meter`, fixture.keys.acme.key);
    expect(await response.json()).toEqual({
      device_id: fixture.devices.idle.id,
      timezone: 'Europe/Berlin',
      since: null,
      as_of: '2026-12-01T13:00:15+01:00',
      engine_seconds: 0,
      moving_seconds: 0,
      idle_seconds: 0,
      hour_meter_seconds: 0,
      hour_meter_read_at: null,
    });
  });

  it('counts the hour meter from the latest reading at or before now, plus the engine time since; the other fields keep their meaning (D38)', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.newYork.id;
    const now = fixture.clock.nowMs / 1000;
    const read = async () =>
      (await (await fixture.request(`/api/v1/devices/${id}/meter`, fixture.keys.acme.key)).json()) as Record<string, unknown>;
    const before = await read();
    await fixture.store.addHourMeterReading({ deviceId: id, readAt: utc(2026, 11, 2, 5), readingSeconds: 12_500 * 3_600, now });
    await fixture.store.addHourMeterReading({ deviceId: id, readAt: utc(2026, 3, 1), readingSeconds: 9_000 * 3_600, now });
    // A reading stamped after now does not count yet.
    await fixture.store.addHourMeterReading({ deviceId: id, readAt: now + 60, readingSeconds: 1, now });
    expect(await read()).toEqual({
      ...before,
      // Monday 2 November (24 h) and 28 November (2 h) after the reading of Monday 00:00 EST.
      hour_meter_seconds: 12_500 * 3_600 + 86_400 + 7_200,
      hour_meter_read_at: '2026-11-02T00:00:00-05:00',
    });
  });

  it('counts a still-running segment up to now, and keeps counting as the clock moves', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.idle.id;
    await fixture.store.importSegments({
      deviceId: id,
      segments: [{ startedAt: fixture.clock.nowMs / 1000 - 600, endedAt: null, state: 'idle' }],
    });
    const read = async () =>
      (await (await fixture.request(`/api/v1/devices/${id}/meter`, fixture.keys.acme.key)).json()) as Record<string, unknown>;
    expect(await read()).toMatchObject({ since: '2026-12-01T12:50:15+01:00', engine_seconds: 600, idle_seconds: 600 });
    fixture.clock.advance(90_000);
    expect(await read()).toMatchObject({ engine_seconds: 690, as_of: '2026-12-01T13:01:45+01:00' });
    expect(utc(2026, 12, 1, 12, 1, 45) * 1000).toBe(fixture.clock.nowMs);
  });
});
