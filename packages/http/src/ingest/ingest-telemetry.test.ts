import { describe, expect, it } from 'vitest';
import { utc } from '../testing/fixture.js';
import { createIngestFixture } from '../testing/ingest-fixture.js';

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { status: number; code: string; message: string } }).error;

describe('POST /ingest/v1/telemetry', () => {
  it('stores an NDJSON batch and answers the counts and each device last_reported_at in its zone (D9, D20, D26)', async () => {
    const fixture = await createIngestFixture();
    const id = fixture.devices.idle.id;
    const t = fixture.nowSeconds - 3600;
    const body = [
      JSON.stringify({ device_id: id, time: new Date(t * 1000).toISOString(), ignition: true, speed_kmh: 0 }),
      '',
      '   ',
      JSON.stringify({ device_id: id, time: t + 120.9, ignition: true, speed_kmh: 40, note: 'unknown fields are ignored' }),
      JSON.stringify({ imei: fixture.devices.idle.imei, time: t + 240, ignition: false, speed_kmh: 0 }),
      '',
    ].join('\r\n');
    const response = await fixture.sendBatch(body);
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Limit')).toBe('6000');
    expect(response.headers.get('X-RateLimit-Remaining')).toBe('5999');
    expect(await response.json()).toEqual({
      accepted: 3,
      duplicates: 0,
      devices: [{ device_id: id, last_reported_at: '2026-12-01T12:04:15+01:00' }],
    });
    // The fraction is floored (D20); ids and IMEIs name the same device.
    expect(await fixture.pointsOf(id)).toEqual([
      { time: t, ignition: true, speedKmh: 0 },
      { time: t + 120, ignition: true, speedKmh: 40 },
      { time: t + 240, ignition: false, speedKmh: 0 },
    ]);
    // The meter reads what the points make (D2: 120 s idle, then 120 s moving).
    const meter = await fixture.request(`/api/v1/devices/${id}/meter`, fixture.keys.acme.key);
    expect(await meter.json()).toMatchObject({ engine_seconds: 240, idle_seconds: 120, moving_seconds: 120 });
  });

  it('takes a JSON array, and the same batch again is harmless: every point a duplicate (D21)', async () => {
    const fixture = await createIngestFixture();
    const id = fixture.devices.kathmandu.id;
    const t = fixture.nowSeconds - 600;
    const batch = [
      { device_id: id, time: t, ignition: true, speed_kmh: 10 },
      { device_id: id, time: '2026-12-01T17:37:15+05:45', ignition: true, speed_kmh: 2 },
    ];
    const first = await fixture.sendBatch(batch);
    expect(await first.json()).toEqual({
      accepted: 2,
      duplicates: 0,
      devices: [{ device_id: id, last_reported_at: '2026-12-01T17:37:15+05:45' }],
    });
    const again = await fixture.sendBatch(batch);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({
      accepted: 0,
      duplicates: 2,
      devices: [{ device_id: id, last_reported_at: '2026-12-01T17:37:15+05:45' }],
    });
    expect(await fixture.pointsOf(id)).toHaveLength(2);
  });

  it('answers an empty batch 200 with nothing accepted', async () => {
    const fixture = await createIngestFixture();
    const response = await fixture.sendBatch('\n\n');
    expect([response.status, await response.json()]).toEqual([200, { accepted: 0, duplicates: 0, devices: [] }]);
  });

  it('is not gated by plan: a starter account writes (D24)', async () => {
    const fixture = await createIngestFixture();
    const device = await fixture.store.createDevice({
      accountId: fixture.accounts.starter.id,
      name: 'Van',
      imei: '861000000000001',
      model: 'FMB920',
      registration: null,
      timeZone: 'UTC',
    });
    const response = await fixture.sendBatch(
      fixture.ndjson({ imei: '861000000000001', time: fixture.nowSeconds, ignition: true, speed_kmh: 1 }),
      fixture.tokens.starter.token,
    );
    expect(response.status).toBe(200);
    expect(await fixture.pointsOf(device!.id)).toHaveLength(1);
  });

  describe('credentials (D24, P25)', () => {
    const point = (fixture: Awaited<ReturnType<typeof createIngestFixture>>) =>
      fixture.ndjson({ device_id: fixture.devices.idle.id, time: fixture.nowSeconds, ignition: true, speed_kmh: 0 });

    it('answers 401 with the code that says what is wrong with the token', async () => {
      const fixture = await createIngestFixture();
      const codes = [];
      for (const token of [null, 'fhi_unknown', fixture.tokens.revoked.token, fixture.tokens.expired.token]) {
        const response = await fixture.sendBatch(point(fixture), token);
        expect(response.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="fleet-hours"/);
        codes.push(`${response.status} ${(await errorOf(response)).code}`);
      }
      expect(codes).toEqual([
        '401 missing_ingest_token',
        '401 unknown_ingest_token',
        '401 revoked_ingest_token',
        '401 expired_ingest_token',
      ]);
      expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
    });

    it('answers an API key 401 unknown_ingest_token asking for an ingest token, and an ingest token on the read API 401 unknown_api_key', async () => {
      const fixture = await createIngestFixture();
      const withKey = await fixture.sendBatch(point(fixture), fixture.keys.acme.key);
      expect([withKey.status, await errorOf(withKey)]).toEqual([
        401,
        {
          status: 401,
          code: 'unknown_ingest_token',
          message: 'An API key cannot be used here: send an ingest token as "Authorization: Bearer <INGEST_TOKEN>"',
        },
      ]);
      const read = await fixture.request('/api/v1/devices', fixture.tokens.acme.token);
      expect([read.status, (await errorOf(read)).code]).toEqual([401, 'unknown_api_key']);
    });

    it('counts per token over every ingestion route and answers 429 with Retry-After past the limit (D13, D14)', async () => {
      const fixture = await createIngestFixture({ rateLimits: { ingest: 2 } });
      expect((await fixture.sendBatch(point(fixture))).headers.get('X-RateLimit-Remaining')).toBe('1');
      const traccar = await fixture.app.request('/ingest/traccar', {
        method: 'POST',
        headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ position: { attributes: {} }, device: { uniqueId: 'x' } }),
      });
      expect(traccar.headers.get('X-RateLimit-Remaining')).toBe('0');
      const refused = await fixture.sendBatch(point(fixture));
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).code).toBe('rate_limited');
      expect(refused.headers.get('Retry-After')).toBe('45');
      // Another token has its own budget.
      const other = await fixture.sendBatch(
        fixture.ndjson({ device_id: fixture.devices.foreign.id, time: fixture.nowSeconds, ignition: false, speed_kmh: 0 }),
        fixture.tokens.other.token,
      );
      expect(other.status).toBe(200);
    });

    it('logs the route template and the token id, never the token', async () => {
      const fixture = await createIngestFixture();
      await fixture.sendBatch(point(fixture));
      expect(fixture.logs.at(-1)).toMatchObject({
        method: 'POST',
        route: '/ingest/v1/telemetry',
        status: 200,
        key_id: fixture.tokens.acme.id,
      });
      expect(JSON.stringify(fixture.logs)).not.toContain(fixture.tokens.acme.token);
    });
  });

  it('answers other methods 405 with Allow: POST, and unknown paths under /ingest 404', async () => {
    const fixture = await createIngestFixture();
    const get = await fixture.app.request('/ingest/v1/telemetry', { headers: { Authorization: `Bearer ${fixture.tokens.acme.token}` } });
    expect([get.status, get.headers.get('Allow'), (await errorOf(get)).code]).toEqual([405, 'POST', 'method_not_allowed']);
    const unknown = await fixture.app.request('/ingest/v2/telemetry', {
      method: 'POST',
      headers: { Authorization: `Bearer ${fixture.tokens.acme.token}` },
    });
    expect([unknown.status, (await errorOf(unknown)).code]).toEqual([404, 'not_found']);
  });

  describe('bad input: a clear 4xx naming the line or index and the field, nothing stored', () => {
    const cases: readonly (readonly [string, (id: number, now: number) => string | unknown[], number, string, string])[] = [
      [
        'a negative speed',
        (id, now) =>
          `${JSON.stringify({ device_id: id, time: now, ignition: true, speed_kmh: 1 })}\n\n${JSON.stringify({ device_id: id, time: now, ignition: true, speed_kmh: -3 })}`,
        400,
        'invalid_body',
        'line 3: speed_kmh must be a number ≥ 0, got -3',
      ],
      [
        'a speed as text',
        (id, now) => JSON.stringify({ device_id: id, time: now, ignition: true, speed_kmh: '12' }),
        400,
        'invalid_body',
        'line 1: speed_kmh must be a number ≥ 0, got "12"',
      ],
      [
        'NaN as text',
        (id, now) => `{"device_id": ${id}, "time": ${now}, "ignition": true, "speed_kmh": NaN}`,
        400,
        'invalid_body',
        'line 1: not valid JSON',
      ],
      [
        'Infinity as text',
        (id, now) => `{"device_id": ${id}, "time": ${now}, "ignition": true, "speed_kmh": Infinity}`,
        400,
        'invalid_body',
        'line 1: not valid JSON',
      ],
      [
        'a huge speed',
        (id, now) => `{"device_id": ${id}, "time": ${now}, "ignition": true, "speed_kmh": 1e400}`,
        400,
        'invalid_body',
        'line 1: speed_kmh must be a number ≥ 0, got Infinity',
      ],
      [
        'a huge time',
        (id) => `{"device_id": ${id}, "time": 1e300, "ignition": true, "speed_kmh": 1}`,
        400,
        'invalid_body',
        'line 1: time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got 1e+300',
      ],
      [
        'a huge device id',
        (_id, now) => `{"device_id": 1e20, "time": ${now}, "ignition": true, "speed_kmh": 1}`,
        400,
        'invalid_body',
        'line 1: device_id must be a positive integer, got 100000000000000000000',
      ],
      [
        'a device id as text',
        (id, now) => JSON.stringify({ device_id: String(id), time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        `line 1: device_id must be a positive integer, got "${'3'}"`,
      ],
      [
        'an ignition as text',
        (id, now) => JSON.stringify({ device_id: id, time: now, ignition: 'true', speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: ignition must be true or false, got "true"',
      ],
      [
        'a missing time',
        (id) => JSON.stringify({ device_id: id, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: time is missing',
      ],
      [
        'a time without offset',
        (id) => JSON.stringify({ device_id: id, time: '2026-12-01T10:00:00', ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: time must be an ISO 8601 instant with an offset or epoch seconds, got "2026-12-01T10:00:00"',
      ],
      [
        'a time 301 s ahead (D26)',
        (id, now) => JSON.stringify({ device_id: id, time: now + 301, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        `line 1: time must be at most 300 s ahead of the server clock, got ${'1796126716'} (301 s ahead)`,
      ],
      [
        'both device_id and imei',
        (id, now) => JSON.stringify({ device_id: id, imei: '350001500000000', time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: give device_id or imei, not both',
      ],
      [
        'neither device_id nor imei',
        (_id, now) => JSON.stringify({ time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: device_id is missing: name the device by device_id or imei',
      ],
      [
        'an imei as a number',
        (_id, now) => JSON.stringify({ imei: 350001500000000, time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: imei must be a non-empty string, got 350001500000000',
      ],
      [
        'a NUL in the imei (D37)',
        (_id, now) => JSON.stringify({ imei: '3500\u00001500', time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: imei must be text without NUL characters or unpaired surrogates, got "3500\\u00001500"',
      ],
      [
        'D50 a control character in the imei, quoted escaped',
        (_id, now) => JSON.stringify({ imei: '3500\u001b[2J\u202e', time: now, ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: imei must be text without control characters, got "3500\\u001b[2J\\u202e" (U+001B)',
      ],
      [
        'an unpaired surrogate in the imei (D37)',
        (_id, now) => `{"imei": "3500\\ud800", "time": ${now}, "ignition": true, "speed_kmh": 1}`,
        400,
        'invalid_body',
        'line 1: imei must be text without NUL characters or unpaired surrogates, got "3500\\ud800"',
      ],
      [
        "a time before 0001-01-02, the read API's first date (D37)",
        (id) => JSON.stringify({ device_id: id, time: '0001-01-01T00:00:00Z', ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T00:00:00Z"',
      ],
      [
        'D50 a time after 9999-12-30: the one range of every given instant speaks before the clock',
        (id) => JSON.stringify({ device_id: id, time: '9999-12-31T00:00:00Z', ignition: true, speed_kmh: 1 }),
        400,
        'invalid_body',
        'line 1: time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "9999-12-31T00:00:00Z"',
      ],
      ['a line that is not an object', () => '[1, 2]', 400, 'invalid_body', 'line 1: a point must be a JSON object, got an array'],
      ['a line cut short', (id) => `{"device_id": ${id}, "time": `, 400, 'invalid_body', 'line 1: not valid JSON'],
      [
        'an array element that is not an object',
        (id, now) => [{ device_id: id, time: now, ignition: true, speed_kmh: 1 }, 'x'],
        400,
        'invalid_body',
        'index 1: a point must be a JSON object, got "x"',
      ],
      [
        'an array element with a bad field',
        (id, now) => [
          { device_id: id, time: now, ignition: true, speed_kmh: 1 },
          { device_id: id, time: now, ignition: null, speed_kmh: 1 },
        ],
        400,
        'invalid_body',
        'index 1: ignition is missing',
      ],
      [
        'a missing device',
        (_id, now) => JSON.stringify({ device_id: 9999, time: now, ignition: true, speed_kmh: 1 }),
        422,
        'unknown_device',
        'line 1: device_id "9999" is not an active device of this account',
      ],
      [
        'an unknown imei',
        (_id, now) => [{ imei: 'nope', time: now, ignition: true, speed_kmh: 1 }],
        422,
        'unknown_device',
        'index 0: imei "nope" is not an active device of this account',
      ],
    ];
    it.each(cases)('%s', async (_name, makeBody, status, code, message) => {
      const fixture = await createIngestFixture();
      const id = fixture.devices.idle.id;
      const body = makeBody(id, fixture.nowSeconds);
      const response = await fixture.sendBatch(body as string | unknown[]);
      const error = await errorOf(response);
      expect([response.status, error.code]).toEqual([status, code]);
      if (message.endsWith('not valid JSON')) expect(error.message.startsWith(`${message}: `)).toBe(true);
      else expect(error.message).toBe(message.replace('"3"', `"${id}"`).replace('1796126716', String(fixture.nowSeconds + 301)));
      expect(await fixture.pointsOf(id)).toEqual([]);
    });

    it('answers a device of another account exactly as a missing one (D25)', async () => {
      const fixture = await createIngestFixture();
      const now = fixture.nowSeconds;
      const foreign = await fixture.sendBatch(
        fixture.ndjson({ device_id: fixture.devices.foreign.id, time: now, ignition: true, speed_kmh: 1 }),
      );
      const missing = await fixture.sendBatch(fixture.ndjson({ device_id: 999, time: now, ignition: true, speed_kmh: 1 }));
      const foreignError = await errorOf(foreign);
      const missingError = await errorOf(missing);
      expect(foreignError).toEqual({ ...missingError, message: missingError.message.replace('999', String(fixture.devices.foreign.id)) });
      expect(foreign.status).toBe(422);
      const byImei = await fixture.sendBatch(
        fixture.ndjson({ imei: fixture.devices.foreign.imei, time: now, ignition: true, speed_kmh: 1 }),
      );
      expect(await errorOf(byImei)).toEqual({
        status: 422,
        code: 'unknown_device',
        message: `line 1: imei "${fixture.devices.foreign.imei}" is not an active device of this account`,
      });
    });

    it('refuses a batch whose very last point fails, and stores none of it (atomic)', async () => {
      const fixture = await createIngestFixture();
      const { idle, kathmandu } = fixture.devices;
      const good = Array.from({ length: 500 }, (_, index) => ({
        device_id: index % 2 ? idle.id : kathmandu.id,
        time: fixture.nowSeconds - 5000 + index,
        ignition: true,
        speed_kmh: index % 50,
      }));
      for (const [last, status] of [
        [{ device_id: 4242, time: fixture.nowSeconds, ignition: true, speed_kmh: 1 }, 422],
        [{ device_id: idle.id, time: fixture.nowSeconds, ignition: true, speed_kmh: -1 }, 400],
        [{ device_id: idle.id, time: fixture.nowSeconds + 3600, ignition: true, speed_kmh: 1 }, 400],
      ] as const) {
        const response = await fixture.sendBatch(fixture.ndjson(...good, last));
        expect(response.status).toBe(status);
        expect((await errorOf(response)).message).toMatch(/^line 501: /);
      }
      expect(await fixture.pointsOf(idle.id)).toEqual([]);
      expect(await fixture.pointsOf(kathmandu.id)).toEqual([]);
    });

    it('refuses with 409 naming the device and the first conflicting instant when points fall in imported segments, and stores nothing (D23)', async () => {
      const fixture = await createIngestFixture();
      const { idle, kathmandu } = fixture.devices;
      const start = utc(2026, 11, 30, 8);
      await fixture.store.importSegments({ deviceId: idle.id, segments: [{ startedAt: start, endedAt: start + 3600, state: 'moving' }] });
      const response = await fixture.sendBatch([
        { device_id: kathmandu.id, time: start, ignition: true, speed_kmh: 1 },
        { device_id: idle.id, time: start + 1800, ignition: true, speed_kmh: 30 },
      ]);
      expect(response.status).toBe(409);
      const error = await errorOf(response);
      expect(error.code).toBe('conflict');
      expect(error.message).toContain(`Device ${idle.id}`);
      expect(error.message).toContain('"2026-11-30T08:30:00Z"');
      expect(await fixture.pointsOf(kathmandu.id)).toEqual([]);
    });

    it('answers 413 past 10,000 points (configurable), and past the byte limit by Content-Length or while streaming', async () => {
      const fixture = await createIngestFixture();
      const id = fixture.devices.idle.id;
      const lines = Array.from({ length: 10_001 }, (_, index) => ({
        device_id: id,
        time: fixture.nowSeconds - 20_000 + index,
        ignition: true,
        speed_kmh: 1,
      }));
      const tooMany = await fixture.sendBatch(fixture.ndjson(...lines));
      expect([tooMany.status, (await errorOf(tooMany)).message]).toEqual([
        413,
        'The batch holds more than 10000 points: send at most 10000 per request',
      ]);
      const tooManyArray = await fixture.sendBatch(lines);
      expect(tooManyArray.status).toBe(413);
      expect(await fixture.pointsOf(id)).toEqual([]);
      const exactly = await fixture.sendBatch(fixture.ndjson(...lines.slice(1)));
      expect(exactly.status).toBe(200);

      const declared = await fixture.sendBatch('x', fixture.tokens.acme.token, { 'Content-Length': String(5 * 1024 * 1024 + 1) });
      expect([declared.status, (await errorOf(declared)).code, declared.headers.get('Connection')]).toEqual([
        413,
        'payload_too_large',
        'close',
      ]);

      // A body without Content-Length that never ends: refused once it passes the limit, not buffered.
      let sent = 0;
      const chunk = new TextEncoder().encode(`${' '.repeat(1023)}\n`);
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const streamed = await fixture.app.request('/ingest/v1/telemetry', {
        method: 'POST',
        headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/x-ndjson' },
        body: endless,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(sent).toBeLessThan(5 * 1024 * 1024 + 64 * 1024 * 4);
    });

    it('takes its limits as options', async () => {
      const fixture = await createIngestFixture();
      const { createFleetHoursApp } = await import('../create-fleet-hours-app.js');
      const app = createFleetHoursApp({
        fleetHours: fixture.fleetHours,
        now: fixture.now,
        logger: () => {},
        ingest: { maxPoints: 2, maxBodyBytes: 1000 },
      });
      const send = (body: string) =>
        app.request('/ingest/v1/telemetry', {
          method: 'POST',
          headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/x-ndjson' },
          body,
        });
      const point = (second: number) =>
        JSON.stringify({ device_id: fixture.devices.idle.id, time: fixture.nowSeconds - second, ignition: true, speed_kmh: 0 });
      expect((await send([point(1), point(2), point(3)].join('\n'))).status).toBe(413);
      expect((await send(`${point(1)}\n${' '.repeat(1000)}`)).status).toBe(413);
      expect((await send([point(1), point(2)].join('\n'))).status).toBe(200);
      expect(() => createFleetHoursApp({ fleetHours: fixture.fleetHours, ingest: { maxPoints: 0 } })).toThrow(
        'Ingestion limit "maxPoints" must be a positive integer, got 0',
      );
      const without = createFleetHoursApp({ fleetHours: fixture.fleetHours, logger: () => {}, ingest: false });
      expect((await without.request('/ingest/v1/telemetry', { method: 'POST' })).status).toBe(404);
    });

    it('answers a body that is not NDJSON or JSON 400 naming the Content-Type, and bytes that are not UTF-8 400', async () => {
      const fixture = await createIngestFixture();
      const csv = await fixture.sendBatch('time,ignition', fixture.tokens.acme.token, { 'Content-Type': 'text/csv' });
      expect([csv.status, (await errorOf(csv)).message]).toEqual([
        400,
        'Content-Type must be "application/x-ndjson" or "application/json", got "text/csv"',
      ]);
      const notArray = await fixture.sendBatch('{"device_id": 1}', fixture.tokens.acme.token, { 'Content-Type': 'application/json' });
      expect((await errorOf(notArray)).message).toBe('The body must be a JSON array of points, got an object');
      const binary = await fixture.app.request('/ingest/v1/telemetry', {
        method: 'POST',
        headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/x-ndjson' },
        body: new Uint8Array([0xff, 0xfe, 0x00]),
      });
      expect([binary.status, (await errorOf(binary)).message]).toEqual([400, 'The body is not UTF-8 text']);
    });
  });
});
