import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ChangeOrigin, createFleetHours, createMemoryStore, type Device, type HourMeterReading } from '@fleet-hours/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AempAuth } from './aemp-page-reader.js';
import { aempSourcePoller, type AempSourceSettings } from './aemp-source-poller.js';
import { AT, closeMockOems, jsonPage, type Machine, NS_2016, NS_2019, startMockOem as oem, xml, xmlPage } from '../testing/mock-oem.js';

const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const H = 3600;
const AT_SECONDS = Date.parse(AT) / 1000;

afterEach(closeMockOems);

/** An account with machines P1…P3, a poller over a memory store with a clock that sleeps by moving on. */
async function setUp(options: { readonly maxWaitSeconds?: number; readonly allowPrivateAddresses?: boolean } = {}) {
  const store = createMemoryStore();
  const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
  const devices: Device[] = [];
  for (const pin of ['P1', 'P2', 'P3'])
    devices.push((await store.createDevice({ accountId: account.id, name: pin, imei: pin, model: 'm', timeZone: 'UTC', pin }))!);
  let offset = 0;
  const waits: number[] = [];
  const now = () => Date.parse('2026-11-28T12:00:00Z') + offset;
  const fleetHours = createFleetHours({ store, now });
  const poller = aempSourcePoller({
    store,
    writes: fleetHours.manage,
    origin: CLI,
    allowPrivateAddresses: options.allowPrivateAddresses ?? true,
    ...(options.maxWaitSeconds === undefined ? {} : { maxWaitSeconds: options.maxWaitSeconds }),
    now,
    sleep: async (ms) => {
      waits.push(ms);
      offset += ms;
    },
  });
  const source = (url: string, auth: AempAuth | null = null, more: Partial<AempSourceSettings> = {}): AempSourceSettings => ({
    id: 7,
    accountId: account.id,
    url,
    auth,
    minIntervalPerUrlSeconds: 0,
    ...more,
  });
  const rows = async <T>(pick: (reading: HourMeterReading) => T) =>
    (await store.listHourMeterReadings({ deviceIds: devices.map((device) => device.id) })).map((reading) => [
      devices.find((device) => device.id === reading.deviceId)!.pin,
      reading.readAt,
      reading.readingSeconds,
      pick(reading),
    ]);
  const readings = () => rows((reading) => reading.source);
  const idle = () => rows((reading) => reading.idleSeconds);
  return { poller, source, readings, idle, waits };
}

describe('AEMP poll against a mock OEM server (D65, D66)', () => {
  it('D66: Takeuchi: starts at /Fleet/0, 2016 namespace, next equal to self ends the walk', async () => {
    const { base, requests } = await oem((base) => ({
      '/Fleet/0': xml(xmlPage({ ns: NS_2016, self: `${base}/Fleet/0`, next: `${base}/Fleet/1`, machines: [{ pin: 'P1', hours: 10 }] })),
      '/Fleet/1': xml(xmlPage({ ns: NS_2016, self: `${base}/Fleet/1`, next: `${base}/Fleet/1`, machines: [{ pin: 'P2', hours: 20.5 }] })),
    }));
    const { poller, source, readings } = await setUp();
    const record = await poller.poll(source(`${base}/Fleet/0`));
    expect(record).toMatchObject({ pages: 2, equipmentSeen: 2, matched: 2, readingsStored: 2, error: null, stop: 'next_is_self' });
    expect(requests.map((request) => [request.path, request.accept])).toEqual([
      ['/Fleet/0', 'application/xml'],
      ['/Fleet/1', 'application/xml'],
    ]);
    expect(await readings()).toEqual([
      ['P1', AT_SECONDS, 10 * H, 'aemp:7'],
      ['P2', AT_SECONDS, 20.5 * H, 'aemp:7'],
    ]);
  });

  it('D66: 2019 namespace with a prefix, links/rel in lower case, relative hrefs, datetime as attribute or child; an empty page after the last ends the walk', async () => {
    const { base } = await oem(() => ({
      '/aemp/Fleet/1': xml(
        xmlPage({
          ns: NS_2019,
          prefix: 'aemp',
          lower: true,
          self: '/aemp/Fleet/1',
          next: '2',
          machines: [{ pin: 'P1', hours: 1, datetime: 'child' }],
        }),
      ),
      '/aemp/Fleet/2': xml(
        xmlPage({ ns: NS_2019, next: '/aemp/Fleet/3', machines: [{ pin: 'p2', hours: 2, datetime: 'attribute' }, { pin: 'Z' }] }),
      ),
      '/aemp/Fleet/3': xml(xmlPage({ ns: NS_2019, next: '/aemp/Fleet/4', machines: [] })),
    }));
    const { poller, source, readings } = await setUp();
    const record = await poller.poll(source(`${base}/aemp/Fleet/1`));
    expect(record).toMatchObject({
      pages: 3,
      equipmentSeen: 3,
      matched: 2,
      unmatched: [{ pin: 'Z', oemName: 'Acme', serialNumber: null }],
      readingsStored: 2,
      stop: 'empty_page',
    });
    expect((await readings()).map((reading) => reading[0])).toEqual(['P1', 'P2']);
  });

  it('D66: JSON when the source asks for it by Accept', async () => {
    const { base, requests } = await oem((base) => ({
      '/Fleet/1': (request, response) =>
        request.headers.accept === 'application/json'
          ? response
              .writeHead(200, { 'content-type': 'application/json' })
              .end(jsonPage({ self: `${base}/Fleet/1`, machines: [{ pin: 'P3', hours: 3.25 }] }))
          : response.writeHead(406).end(),
    }));
    const { poller, source, readings } = await setUp();
    const record = await poller.poll(source(`${base}/Fleet/1`, null, { format: 'json' }));
    expect(record).toMatchObject({ pages: 1, readingsStored: 1, error: null, stop: 'no_next' });
    expect(requests[0]!.accept).toBe('application/json');
    expect(await readings()).toEqual([['P3', AT_SECONDS, 3.25 * H, 'aemp:7']]);
  });

  it('P156: the idle hours a source gives are kept with the reading stored, from XML (attribute or child) and JSON; a value stored already keeps its idle', async () => {
    const LATER = '2026-11-28T11:00:00Z';
    let xmlMachines: Machine[] = [
      { pin: 'P1', hours: 10, idle: 2 },
      { pin: 'P2', hours: 20, idle: 3.25, datetime: 'child' },
    ];
    const { base } = await oem((base) => ({
      '/Fleet/1': xml(() => xmlPage({ ns: NS_2019, prefix: 'aemp', self: `${base}/Fleet/1`, machines: xmlMachines })),
      '/json/Fleet/1': (_request, response) =>
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(jsonPage({ self: `${base}/json/Fleet/1`, machines: [{ pin: 'P3', hours: 5, idle: 1.5 }] })),
    }));
    const { poller, source, idle } = await setUp();
    expect((await poller.poll(source(`${base}/Fleet/1`))).readingsStored).toBe(2);
    expect((await poller.poll(source(`${base}/json/Fleet/1`, null, { format: 'json' }))).readingsStored).toBe(1);
    xmlMachines = [
      { pin: 'P1', hours: 10, idle: 4, at: LATER },
      { pin: 'P2', hours: 21, idle: 3.5, datetime: 'child', at: LATER },
    ];
    expect((await poller.poll(source(`${base}/Fleet/1`))).readingsStored).toBe(1);
    expect(await idle()).toEqual([
      ['P1', AT_SECONDS, 10 * H, 2 * H],
      ['P2', AT_SECONDS + H, 21 * H, 3.5 * H],
      ['P2', AT_SECONDS, 20 * H, 3.25 * H],
      ['P3', AT_SECONDS, 5 * H, 1.5 * H],
    ]);
  });

  it('D65, D66: Komatsu: equipment without CumulativeOperatingHours is matched, not read; 429 with Retry-After is waited out and asked again', async () => {
    let asked = 0;
    const { base, requests } = await oem((base) => ({
      '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, next: `${base}/Fleet/2`, machines: [{ pin: 'P1' }, { pin: 'P2', hours: 4 }] })),
      '/Fleet/2': (request, response, body) =>
        ++asked === 1
          ? response.writeHead(429, { 'retry-after': '7' }).end()
          : xml(xmlPage({ self: `${base}/Fleet/2`, machines: [{ pin: 'P3', hours: 5 }] }))(request, response, body),
    }));
    const { poller, source, readings, waits } = await setUp();
    const record = await poller.poll(source(`${base}/Fleet/1`));
    expect(record).toMatchObject({ pages: 2, equipmentSeen: 3, matched: 3, readingsStored: 2, error: null });
    expect(requests.map((request) => request.path)).toEqual(['/Fleet/1', '/Fleet/2', '/Fleet/2']);
    expect(waits).toEqual([7000]);
    expect((await readings()).map((reading) => reading[0])).toEqual(['P2', 'P3']);
  });

  it('D66, P127: a Retry-After beyond what a poll waits, or none, ends the poll recorded; the next poll starts afresh', async () => {
    let retryAfter: string | null = '3600';
    const { base } = await oem((base) => ({
      '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, next: `${base}/Fleet/2`, machines: [{ pin: 'P1', hours: 1 }] })),
      '/Fleet/2': (request, response, body) =>
        retryAfter === 'ok'
          ? xml(xmlPage({ machines: [{ pin: 'P2', hours: 2 }] }))(request, response, body)
          : response.writeHead(503, retryAfter === null ? {} : { 'retry-after': retryAfter }).end(),
    }));
    const { poller, source, readings, waits } = await setUp({ maxWaitSeconds: 60 });
    expect(await poller.poll(source(`${base}/Fleet/1`))).toMatchObject({
      pages: 1,
      readingsStored: 1,
      error: { status: null, message: 'the next request would wait 3600 s, longer than a poll waits (60 s)' },
      stop: null,
    });
    retryAfter = null;
    expect((await poller.poll(source(`${base}/Fleet/1`))).error).toEqual({ status: 503, message: 'answered HTTP 503 without Retry-After' });
    retryAfter = 'ok';
    expect(await poller.poll(source(`${base}/Fleet/1`))).toMatchObject({ pages: 2, readingsStored: 1, error: null });
    expect(await readings()).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('D66: a paging loop ends when a page repeats', async () => {
    const { base, requests } = await oem((base) => ({
      '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, next: `${base}/Fleet/2`, machines: [{ pin: 'P1', hours: 1 }] })),
      '/Fleet/2': xml(xmlPage({ self: `${base}/Fleet/2`, next: `${base}/Fleet/1`, machines: [{ pin: 'P2', hours: 1 }] })),
    }));
    const { poller, source } = await setUp();
    expect(await poller.poll(source(`${base}/Fleet/1`))).toMatchObject({ pages: 2, stop: 'repeated', error: null });
    expect(requests).toHaveLength(2);
  });

  it('D66: an error answer or a page that is not XML or JSON ends the poll, recorded', async () => {
    const { base } = await oem((base) => ({
      '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, next: `${base}/Fleet/2`, machines: [{ pin: 'P1', hours: 1 }] })),
      '/Fleet/2': xml('<Fleet><Equipment></Fleet>'),
      '/Fleet/3': (_request, response) => response.writeHead(500).end('boom'),
    }));
    const { poller, source } = await setUp();
    expect(await poller.poll(source(`${base}/Fleet/1`))).toMatchObject({
      pages: 1,
      readingsStored: 1,
      error: { status: 200, message: 'the page is not XML that can be read' },
    });
    expect((await poller.poll(source(`${base}/Fleet/3`))).error).toEqual({ status: 500, message: 'answered HTTP 500' });
    expect((await poller.poll(source(`${base}/Fleet/9`))).error).toEqual({ status: 404, message: 'answered HTTP 404' });
  });

  it('D66: basic and bearer sign in as asked', async () => {
    const { base, requests } = await oem((base) => ({
      '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, machines: [{ pin: 'P1', hours: 1 }] })),
    }));
    const { poller, source } = await setUp();
    await poller.poll(source(`${base}/Fleet/1`, { kind: 'basic', username: 'fleet', password: 'pa:ss' }));
    await poller.poll(source(`${base}/Fleet/1`, { kind: 'bearer', token: 'tok-123' }));
    expect(requests.map((request) => request.authorization)).toEqual([
      `Basic ${Buffer.from('fleet:pa:ss').toString('base64')}`,
      'Bearer tok-123',
    ]);
  });

  it('D66: OAuth2 client credentials: the token is taken once, kept across pages and polls, and taken anew once after a 401', async () => {
    const issued: string[] = [];
    let valid = '';
    const { base, requests } = await oem((base) => {
      const page = (path: string, next?: string) => (request: IncomingMessage, response: ServerResponse, body: string) =>
        request.headers.authorization === `Bearer ${valid}`
          ? xml(
              xmlPage({
                self: `${base}${path}`,
                ...(next ? { next: `${base}${next}` } : {}),
                machines: [{ pin: 'P1', hours: issued.length }],
              }),
            )(request, response, body)
          : response.writeHead(401).end();
      return {
        '/oauth/token': (_request, response) => {
          valid = `token-${issued.length + 1}`;
          issued.push(valid);
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ access_token: valid, token_type: 'Bearer', expires_in: 3600 }));
        },
        '/Fleet/1': page('/Fleet/1', '/Fleet/2'),
        '/Fleet/2': page('/Fleet/2'),
      };
    });
    const { poller, source } = await setUp();
    const auth: AempAuth = {
      kind: 'oauth2_client_credentials',
      tokenUrl: `${base}/oauth/token`,
      clientId: 'id',
      clientSecret: 's3cret',
      scope: 'fleet',
    };
    const first = await poller.poll(source(`${base}/Fleet/1`, auth));
    expect(first).toMatchObject({ pages: 2, error: null });
    expect(issued).toEqual(['token-1']);
    const tokenRequest = requests.find((request) => request.path === '/oauth/token')!;
    expect(tokenRequest.authorization).toBe(`Basic ${Buffer.from('id:s3cret').toString('base64')}`);
    expect(new URLSearchParams(tokenRequest.body).get('grant_type')).toBe('client_credentials');
    expect(new URLSearchParams(tokenRequest.body).get('scope')).toBe('fleet');
    // The OEM expires the token: the next poll's first page is 401, the token is taken anew once.
    valid = 'expired';
    const second = await poller.poll(source(`${base}/Fleet/1`, auth));
    expect(second).toMatchObject({ pages: 2, error: null });
    expect(issued).toEqual(['token-1', 'token-2']);
    // A token endpoint that hands out tokens the feed refuses: one new token, then the 401 is recorded.
    const refusing = await oem(() => ({
      '/oauth/token': (_request, response) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'never-good', expires_in: 60 })),
      '/Fleet/1': (_request, response) => response.writeHead(401).end(),
    }));
    const refused = await poller.poll({
      ...source(`${refusing.base}/Fleet/1`, { ...auth, tokenUrl: `${refusing.base}/oauth/token` }),
      id: 8,
    });
    expect(refused.error).toEqual({ status: 401, message: 'answered HTTP 401' });
    expect(refusing.requests.map((request) => request.path)).toEqual(['/oauth/token', '/Fleet/1', '/oauth/token', '/Fleet/1']);
    // Credentials are never in a record.
    expect(JSON.stringify([first, second, refused])).not.toMatch(/s3cret|token-|never-good/);
  });

  it('D66, P127: requests of one URL are at least the minimum interval apart; a longer wait than a poll waits ends it', async () => {
    const { base } = await oem((base) => ({ '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, machines: [{ pin: 'P1', hours: 1 }] })) }));
    const { poller, source, waits } = await setUp({ maxWaitSeconds: 60 });
    const every30 = source(`${base}/Fleet/1`, null, { minIntervalPerUrlSeconds: 30 });
    await poller.poll(every30);
    expect((await poller.poll(every30)).error).toBeNull();
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(29_000);
    expect(waits[0]).toBeLessThanOrEqual(30_000);
    const every300 = source(`${base}/Fleet/1`, null, { minIntervalPerUrlSeconds: 300 });
    await poller.poll(every300);
    expect((await poller.poll(every300)).error).toMatchObject({
      status: null,
      message: expect.stringMatching(/longer than a poll waits \(60 s\)/),
    });
  });

  it('D48: only https, and only public addresses, unless allowed', async () => {
    const { base, requests } = await oem((base) => ({ '/Fleet/1': xml(xmlPage({ self: `${base}/Fleet/1`, machines: [] })) }));
    const { poller, source } = await setUp({ allowPrivateAddresses: false });
    expect((await poller.poll(source(`${base}/Fleet/1`))).error).toEqual({ status: null, message: 'refused: only https URLs are read' });
    expect((await poller.poll(source('https://127.0.0.1:1/Fleet/1'))).error).toEqual({
      status: null,
      message: 'refused: the address 127.0.0.1 is not public',
    });
    expect((await poller.poll(source('https://[::ffff:10.0.0.1]/Fleet/1'))).error?.message).toMatch(
      /^refused: the address .* is not public$/,
    );
    expect((await poller.poll(source('ftp://oem.example/Fleet/1'))).error?.message).toBe('refused: only https URLs are read');
    expect(requests).toEqual([]);
  });
});
