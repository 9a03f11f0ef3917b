import { describe, expect, it } from 'vitest';
import { createIngestFixture, type IngestFixture } from '../testing/ingest-fixture.js';

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { status: number; code: string; message: string } }).error;

/** A Traccar time as its JSON forwarder writes dates: milliseconds and a `+00:00` offset. */
const traccarTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('Z', '+00:00');

/**
 * A body exactly as Traccar's JSON position forwarding posts it: every field of the position and
 * of the device, most of which Fleet Hours ignores.
 */
function traccarBody(input: {
  uniqueId: string;
  deviceTime: number | null;
  fixTime: number;
  knots: number;
  ignition?: unknown;
  outdated?: boolean;
}) {
  return {
    position: {
      id: 918_273,
      attributes: {
        priority: 0,
        sat: 11,
        event: 0,
        ...(input.ignition === undefined ? {} : { ignition: input.ignition }),
        motion: input.knots > 2,
        rssi: 4,
        io200: 0,
        power: 13.981,
        battery: 4.094,
        batteryLevel: 100,
        odometer: 184_233_120,
        hours: 12_345_600_000,
        distance: 42.17,
        totalDistance: 184_233_120.55,
      },
      deviceId: 17,
      protocol: 'teltonika',
      serverTime: traccarTime(input.fixTime + 2),
      deviceTime: input.deviceTime === null ? null : traccarTime(input.deviceTime),
      fixTime: traccarTime(input.fixTime),
      outdated: input.outdated ?? false,
      valid: true,
      latitude: 40.748_817,
      longitude: -73.985_428,
      altitude: 31.0,
      speed: input.knots,
      course: 271.0,
      address: null,
      accuracy: 0.0,
      network: null,
      geofenceIds: null,
    },
    device: {
      id: 17,
      attributes: {},
      groupId: 0,
      calendarId: 0,
      name: 'Truck 14',
      uniqueId: input.uniqueId,
      status: 'online',
      lastUpdate: traccarTime(input.fixTime + 2),
      positionId: 918_272,
      phone: null,
      model: 'FMB920',
      contact: null,
      category: 'truck',
      disabled: false,
      expirationTime: null,
    },
  };
}

const forward = (
  fixture: IngestFixture,
  body: unknown,
  token: string | null = fixture.tokens.acme.token,
  contentType = 'application/json',
) =>
  fixture.app.request('/ingest/traccar', {
    method: 'POST',
    headers: { 'Content-Type': contentType, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /ingest/traccar', () => {
  it('stores a forwarded position: the device by uniqueId, deviceTime, knots × 1.852, attributes.ignition', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 120;
    const response = await forward(
      fixture,
      traccarBody({ uniqueId: idle.imei!, deviceTime: t, fixTime: t - 30, knots: 10, ignition: true }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Limit')).toBe('6000');
    expect(await response.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      devices: [{ device_id: idle.id, last_reported_at: '2026-12-01T12:58:15+01:00' }],
    });
    expect(await fixture.pointsOf(idle.id)).toEqual([{ time: t, ignition: true, speedKmh: 18.52 }]);
    expect(fixture.logs.at(-1)).toMatchObject({ route: '/ingest/traccar', status: 200, key_id: fixture.tokens.acme.id });
  });

  it('uses fixTime when there is no deviceTime, and deviceTime of an outdated position whose fix is stale', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 600;
    expect(
      (await forward(fixture, traccarBody({ uniqueId: idle.imei!, deviceTime: null, fixTime: t, knots: 0, ignition: true }))).status,
    ).toBe(200);
    expect(
      (
        await forward(
          fixture,
          traccarBody({ uniqueId: idle.imei!, deviceTime: t + 60, fixTime: t - 86_400, knots: 0, ignition: false, outdated: true }),
        )
      ).status,
    ).toBe(200);
    expect(await fixture.pointsOf(idle.id)).toEqual([
      { time: t, ignition: true, speedKmh: 0 },
      { time: t + 60, ignition: false, speedKmh: 0 },
    ]);
  });

  it('answers a position without ignition 200 ignored and stores nothing, so that Traccar does not retry it', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const response = await forward(
      fixture,
      traccarBody({ uniqueId: idle.imei!, deviceTime: fixture.nowSeconds, fixTime: fixture.nowSeconds, knots: 3 }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      accepted: 0,
      ignored: 1,
      reason: 'The position has no position.attributes.ignition: it was not stored',
    });
    expect(await fixture.pointsOf(idle.id)).toEqual([]);
  });

  it('answers a position of a device that is not an active device of the account 422 unknown_device, the same for a foreign one (D25)', async () => {
    const fixture = await createIngestFixture();
    const t = fixture.nowSeconds;
    const unknown = await forward(
      fixture,
      traccarBody({ uniqueId: '999999999999999', deviceTime: t, fixTime: t, knots: 0, ignition: true }),
    );
    expect([unknown.status, await errorOf(unknown)]).toEqual([
      422,
      { status: 422, code: 'unknown_device', message: 'device.uniqueId "999999999999999" is not an active device of this account' },
    ]);
    const foreign = await forward(
      fixture,
      traccarBody({ uniqueId: fixture.devices.foreign.imei!, deviceTime: t, fixTime: t, knots: 0, ignition: true }),
    );
    expect(await errorOf(foreign)).toEqual({
      status: 422,
      code: 'unknown_device',
      message: `device.uniqueId "${fixture.devices.foreign.imei!}" is not an active device of this account`,
    });
  });

  it('answers bad positions 400 naming the field', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds;
    const body = (change: (position: Record<string, unknown>, device: Record<string, unknown>) => void) => {
      const made = traccarBody({ uniqueId: idle.imei!, deviceTime: t, fixTime: t, knots: 5, ignition: true });
      change(made.position as unknown as Record<string, unknown>, made.device as unknown as Record<string, unknown>);
      return made;
    };
    const cases: [unknown, string][] = [
      ['{"position": ', 'The body is not valid JSON: send Traccar\'s JSON position forwarding, { "position": …, "device": … }'],
      [[1], 'The body must be a JSON object with position and device, got an array'],
      [{ device: { uniqueId: 'x' } }, 'position is missing'],
      [body((_p, device) => delete device['uniqueId']), 'device.uniqueId is missing'],
      [body((_p, device) => (device['uniqueId'] = 42)), 'device.uniqueId must be a non-empty string, got 42'],
      // D50: an identifier with a bidirectional override or an escape names no device: refused, quoted escaped.
      [
        body((_p, device) => (device['uniqueId'] = '35630704\u202e2441013')),
        'device.uniqueId must be text without control characters, got "35630704\\u202e2441013" (U+202E)',
      ],
      [
        body((position) => (position['deviceTime'] = '9999-12-31T00:00:00.000+0000')),
        'position.deviceTime must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "9999-12-31T00:00:00.000+0000"',
      ],
      [body((position) => (position['speed'] = -1)), 'position.speed must be a number of knots ≥ 0, got -1'],
      [body((position) => (position['speed'] = '5')), 'position.speed must be a number of knots ≥ 0, got "5"'],
      [body((position) => delete position['speed']), 'position.speed is missing'],
      [
        body((position) => ((position['attributes'] as Record<string, unknown>)['ignition'] = 'on')),
        'position.attributes.ignition must be true or false, got "on"',
      ],
      [
        body((position) => (position['deviceTime'] = 'yesterday')),
        'position.deviceTime must be an ISO 8601 instant with an offset or epoch seconds, got "yesterday"',
      ],
      [
        body((position) => (position['deviceTime'] = traccarTime(t + 3600))),
        `position.deviceTime must be at most 300 s ahead of the server clock, got "${traccarTime(t + 3600)}" (3600 s ahead)`,
      ],
    ];
    for (const [sent, message] of cases) {
      const response = await forward(fixture, sent);
      expect([response.status, await errorOf(response)]).toEqual([400, { status: 400, code: 'invalid_body', message }]);
    }
    const xml = await forward(fixture, '<position/>', fixture.tokens.acme.token, 'application/xml');
    expect((await errorOf(xml)).message).toBe(
      'Content-Type must be "application/json" (Traccar\'s forward.type json), got "application/xml"',
    );
    expect(await fixture.pointsOf(idle.id)).toEqual([]);
  });

  it('needs an ingest token in the Authorization header (forward.header), and answers other methods 405', async () => {
    const fixture = await createIngestFixture();
    const t = fixture.nowSeconds;
    const body = traccarBody({ uniqueId: fixture.devices.idle.imei!, deviceTime: t, fixTime: t, knots: 0, ignition: true });
    expect((await errorOf(await forward(fixture, body, null))).code).toBe('missing_ingest_token');
    expect((await errorOf(await forward(fixture, body, fixture.keys.acme.key))).code).toBe('unknown_ingest_token');
    const get = await fixture.app.request('/ingest/traccar', { headers: { Authorization: `Bearer ${fixture.tokens.acme.token}` } });
    expect([get.status, get.headers.get('Allow')]).toEqual([405, 'POST']);
  });
});
