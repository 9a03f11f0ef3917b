import { describe, expect, it } from 'vitest';
import { createIngestFixture, type IngestFixture } from '../testing/ingest-fixture.js';

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { status: number; code: string; message: string } }).error;

/** The parameters Traccar Client sends with every position (OsmAnd protocol). */
const clientParameters = (id: string, extra: Record<string, string>) =>
  new URLSearchParams({
    id,
    lat: '40.748817',
    lon: '-73.985428',
    bearing: '271.0',
    altitude: '31.0',
    accuracy: '4.8',
    batt: '87.0',
    charge: 'false',
    ...extra,
  });

const get = (fixture: IngestFixture, query: URLSearchParams | string, token = fixture.tokens.acme.token) =>
  fixture.app.request(`/ingest/osmand/${token}?${String(query)}`);

describe('GET|POST /ingest/osmand/{token}', () => {
  it('stores a position sent as a query string: id is the imei, timestamp in epoch seconds, speed in knots', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 90;
    const response = await get(fixture, clientParameters(idle.imei!, { timestamp: String(t), speed: '20', ignition: 'true' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Remaining')).toBe('5999');
    expect(await response.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      devices: [{ device_id: idle.id, last_reported_at: '2026-12-01T12:58:45+01:00' }],
    });
    expect(await fixture.pointsOf(idle.id)).toEqual([{ time: t, ignition: true, speedKmh: 37.04 }]);
  });

  it('takes a POST as Traccar Client sends it (parameters in the query string, epoch milliseconds), a form body, deviceid and ISO times', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    const t = fixture.nowSeconds - 300;
    const client = await fixture.app.request(
      `/ingest/osmand/${fixture.tokens.acme.token}?${String(clientParameters(idle.imei!, { timestamp: String(t * 1000 + 731), speed: '0.0', ignition: 'true' }))}`,
      {
        method: 'POST',
      },
    );
    expect(client.status).toBe(200);
    const form = await fixture.app.request(`/ingest/osmand/${fixture.tokens.acme.token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        deviceid: idle.imei!,
        timestamp: new Date((t + 60) * 1000).toISOString(),
        speed: '5',
        ignition: 'false',
        hdop: '0.9',
      }).toString(),
    });
    expect(form.status).toBe(200);
    expect(await fixture.pointsOf(idle.id)).toEqual([
      { time: t, ignition: true, speedKmh: 0 },
      { time: t + 60, ignition: false, speedKmh: 9.26 },
    ]);
  });

  it('uses the server clock without a timestamp, and ignores a position without ignition (200, not stored)', async () => {
    const fixture = await createIngestFixture();
    const { idle } = fixture.devices;
    expect((await get(fixture, clientParameters(idle.imei!, { speed: '1', ignition: 'TRUE' }))).status).toBe(200);
    expect(await fixture.pointsOf(idle.id)).toEqual([{ time: fixture.nowSeconds, ignition: true, speedKmh: 1.852 }]);
    const ignored = await get(fixture, clientParameters(idle.imei!, { speed: '1', timestamp: String(fixture.nowSeconds - 10) }));
    expect([ignored.status, await ignored.json()]).toEqual([
      200,
      { accepted: 0, ignored: 1, reason: 'The position has no ignition parameter: it was not stored' },
    ]);
    expect(await fixture.pointsOf(idle.id)).toHaveLength(1);
  });

  it('answers bad parameters 400 naming the parameter, and an unknown id 422', async () => {
    const fixture = await createIngestFixture();
    const imei = fixture.devices.idle.imei!;
    const cases: [URLSearchParams, number, string][] = [
      [new URLSearchParams({ speed: '1', ignition: 'true' }), 400, 'id is missing: give the tracker id as id or deviceid'],
      [clientParameters(imei, { speed: '1', ignition: 'yes' }), 400, 'ignition must be true or false, got "yes"'],
      [clientParameters(imei, { ignition: 'true' }), 400, 'speed is missing: give the speed in knots'],
      [clientParameters(imei, { speed: '-2', ignition: 'true' }), 400, 'speed must be a number of knots ≥ 0, got "-2"'],
      [clientParameters(imei, { speed: 'NaN', ignition: 'true' }), 400, 'speed must be a number of knots ≥ 0, got "NaN"'],
      [clientParameters(imei, { speed: '1e400', ignition: 'true' }), 400, 'speed must be a number of knots ≥ 0, got "1e400"'],
      [
        clientParameters(imei, { speed: '1', ignition: 'true', timestamp: 'noon' }),
        400,
        'timestamp must be an ISO 8601 instant with an offset or epoch seconds, got "noon"',
      ],
      [
        clientParameters(imei, { speed: '1', ignition: 'true', timestamp: String((fixture.nowSeconds + 900) * 1000) }),
        400,
        `timestamp must be at most 300 s ahead of the server clock, got ${fixture.nowSeconds + 900} (900 s ahead)`,
      ],
      [clientParameters('000', { speed: '1', ignition: 'true' }), 422, 'id "000" is not an active device of this account'],
    ];
    for (const [query, status, message] of cases) {
      const response = await get(fixture, query);
      const error = await errorOf(response);
      expect([response.status, error.message]).toEqual([status, message]);
      expect(error.message).not.toContain(fixture.tokens.acme.token);
    }
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
  });

  it('reads the token from the path only: an unknown, revoked or missing one is 401, a token in the header is not read (D24)', async () => {
    const fixture = await createIngestFixture();
    const query = clientParameters(fixture.devices.idle.imei!, { speed: '1', ignition: 'true' });
    const codes = [];
    for (const token of ['fhi_guess', fixture.tokens.revoked.token, fixture.keys.acme.key, ''])
      codes.push((await errorOf(await get(fixture, query, token))).code);
    expect(codes).toEqual(['unknown_ingest_token', 'revoked_ingest_token', 'unknown_ingest_token', 'missing_ingest_token']);
    const headerOnly = await fixture.app.request(`/ingest/osmand/?${String(query)}`, {
      headers: { Authorization: `Bearer ${fixture.tokens.acme.token}` },
    });
    expect((await errorOf(headerOnly)).code).toBe('missing_ingest_token');
  });

  it('never writes the token to the log or into an error message', async () => {
    const fixture = await createIngestFixture();
    const { token } = fixture.tokens.acme;
    const imei = fixture.devices.idle.imei!;
    await get(fixture, clientParameters(imei, { speed: '1', ignition: 'true' }));
    await get(fixture, clientParameters(imei, { speed: 'x', ignition: 'true' }));
    const put = await fixture.app.request(`/ingest/osmand/${token}`, { method: 'PUT' });
    expect([put.status, put.headers.get('Allow')]).toEqual([405, 'GET, POST']);
    const deeper = await fixture.app.request(`/ingest/osmand/${token}/more`);
    expect(deeper.status).toBe(401);
    const withToken = await fixture.app.request(`/ingest/osmand/${token}/more`, { headers: { Authorization: `Bearer ${token}` } });
    const notFound = await errorOf(withToken);
    expect(notFound.code).toBe('not_found');
    expect(notFound.message).not.toContain(token);
    expect(fixture.logs.map((entry) => entry.route)).toEqual([
      '/ingest/osmand/{token}',
      '/ingest/osmand/{token}',
      '/ingest/osmand/{token}',
      '/ingest/*',
      '/ingest/*',
    ]);
    expect(JSON.stringify(fixture.logs)).not.toContain(token);
  });
});
