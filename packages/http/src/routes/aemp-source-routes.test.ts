import { describe, expect, it } from 'vitest';
import { aempSourcesOf, type ChangeReport } from '@fleet-hours/core';
import { aempPollRecordAt } from '@fleet-hours/core/testing';
import { createFixture } from '../testing/fixture.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const SOURCES = '/api/v1/aemp/sources';
const BODY = {
  name: 'Cat fleet',
  url: 'https://oem.example/aemp/Fleet/1',
  auth: { kind: 'oauth2_client_credentials', token_url: 'https://oem.example/token', client_id: 'fleet', client_secret: 'TOPSECRET-1' },
};

type Fixture = Awaited<ReturnType<typeof createFixture>>;
type Body = Record<string, unknown> & { id: number; version: number };
interface ErrorJson {
  error: { status: number; code: string; message: string; field?: string };
}

async function fixtureWithLog() {
  const changes: ChangeReport[] = [];
  const fixture = await createFixture({ changeLog: { record: async (change) => void changes.push(change) } });
  return { ...fixture, changes };
}

function send(fixture: Fixture, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  return fixture.request(path, key, {
    method,
    headers: { ...(body === undefined ? {} : JSON_TYPE), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function create(fixture: Fixture, body: unknown = BODY) {
  const response = await send(fixture, 'POST', SOURCES, fixture.keys.acmeManage.key, body);
  expect(response.status).toBe(201);
  return { response, body: (await response.json()) as Body };
}

describe('AEMP sources over the API (D65, D66, P133)', () => {
  it('P133: POST creates an enabled source due at once; no answer, list, CSV or change-log entry holds its secret', async () => {
    const fixture = await fixtureWithLog();
    const { response, body } = await create(fixture);
    expect(body).toEqual({
      id: expect.any(Number),
      name: 'Cat fleet',
      url: 'https://oem.example/aemp/Fleet/1',
      auth: {
        kind: 'oauth2_client_credentials',
        token_url: 'https://oem.example/token',
        client_id: 'fleet',
        scope: null,
        has_secret: true,
      },
      poll_every_seconds: 3600,
      min_interval_per_url_seconds: 300,
      enabled: true,
      next_poll_at: body.created_at,
      created_at: expect.any(String),
      updated_at: body.created_at,
      version: 1,
    });
    expect(response.headers.get('Location')).toBe(`${SOURCES}/${body.id}`);
    expect(response.headers.get('ETag')).toBe('"a1"');
    const texts = [
      JSON.stringify(body),
      await (await fixture.request(`${SOURCES}/${body.id}`, fixture.keys.acmeManage.key)).text(),
      await (await fixture.request(SOURCES, fixture.keys.acmeManage.key)).text(),
      await (await fixture.request(SOURCES, fixture.keys.acmeManage.key, { headers: { Accept: 'text/csv' } })).text(),
      JSON.stringify(fixture.changes),
    ];
    for (const text of texts) expect(text).not.toContain('TOPSECRET');
    expect(texts[3]).toContain('auth.client_id');
    expect(fixture.changes.map((change) => change.action)).toEqual(['aemp_source.create']);
    // The secret reaches only a poller's claim.
    const claimed = await aempSourcesOf(fixture.store)!.claimAempSource({ claimant: 't', now: 4_000_000_000, leaseSeconds: 60 });
    expect(claimed?.auth).toMatchObject({ clientSecret: 'TOPSECRET-1' });
  });

  it('P132: a bad field is 400 naming it; http only for a loopback host; a read key is 403; another account 404', async () => {
    const fixture = await fixtureWithLog();
    const refusals: [unknown, string][] = [
      [{ ...BODY, url: 'http://oem.example/aemp' }, 'url'],
      [{ ...BODY, name: 'a\u0007b' }, 'name'],
      [{ ...BODY, poll_every_seconds: 60 }, 'poll_every_seconds'],
      [{ ...BODY, min_interval_per_url_seconds: 1.5 }, 'min_interval_per_url_seconds'],
      [{ ...BODY, auth: { kind: 'basic', username: 'u' } }, 'auth.password'],
      [{ ...BODY, auth: { kind: 'digest' } }, 'auth.kind'],
      [{ ...BODY, auth: { ...BODY.auth, token_url: 'ftp://x' } }, 'auth.token_url'],
      [{ ...BODY, color: 'red' }, 'color'],
      [{ name: 'x', url: BODY.url }, 'auth'],
    ];
    for (const [body, field] of refusals) {
      const response = await send(fixture, 'POST', SOURCES, fixture.keys.acmeManage.key, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as ErrorJson).error.field).toBe(field);
    }
    const local = await create(fixture, { ...BODY, url: 'http://127.0.0.1:9/aemp/Fleet/1' });
    expect(local.body.url).toBe('http://127.0.0.1:9/aemp/Fleet/1');
    expect((await send(fixture, 'POST', SOURCES, fixture.keys.acme.key, BODY)).status).toBe(403);
    expect((await fixture.request(`${SOURCES}/${local.body.id}`, fixture.keys.otherManage.key)).status).toBe(404);
    expect((await send(fixture, 'DELETE', `${SOURCES}/${local.body.id}`, fixture.keys.otherManage.key)).status).toBe(404);
    expect((await fixture.request(`${SOURCES}/${local.body.id}/polls`, fixture.keys.otherManage.key)).status).toBe(404);
    expect(fixture.changes).toHaveLength(1);
  });

  it('D54: PATCH and DELETE with If-Match apply to the version read, else 412; a new secret is audited redacted', async () => {
    const fixture = await fixtureWithLog();
    const { body } = await create(fixture);
    const path = `${SOURCES}/${body.id}`;
    const key = fixture.keys.acmeManage.key;
    const stale = await send(fixture, 'PATCH', path, key, { enabled: false }, { 'If-Match': '"a2"' });
    expect(stale.status).toBe(412);
    const changed = await send(fixture, 'PATCH', path, key, { auth: { kind: 'bearer', token: 'TOPSECRET-2' } }, { 'If-Match': '"a1"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('ETag')).toBe('"a2"');
    expect(await changed.json()).toMatchObject({ version: 2, auth: { kind: 'bearer', has_secret: true } });
    const update = fixture.changes.at(-1)!;
    expect(update.action).toBe('aemp_source.update');
    expect(JSON.stringify(fixture.changes)).not.toContain('TOPSECRET');
    expect((await send(fixture, 'DELETE', path, key, undefined, { 'If-Match': '"a1"' })).status).toBe(412);
    expect((await send(fixture, 'DELETE', path, key, undefined, { 'If-Match': '"a2"' })).status).toBe(204);
    expect((await fixture.request(path, key)).status).toBe(404);
    expect(fixture.changes.map((change) => change.action)).toEqual(['aemp_source.create', 'aemp_source.update', 'aemp_source.delete']);
  });

  it('P135: GET …/polls lists the records newest first, a page at a time, and as CSV', async () => {
    const fixture = await fixtureWithLog();
    const { body } = await create(fixture);
    const sources = aempSourcesOf(fixture.store)!;
    for (let i = 0; i < 3; i += 1)
      await sources.finishAempPoll({
        sourceId: body.id,
        claimant: 'x',
        record: aempPollRecordAt(body.id, 1_767_225_600 + i, i),
        nextPollAt: 0,
      });
    const key = fixture.keys.acmeManage.key;
    const first = (await (await fixture.request(`${SOURCES}/${body.id}/polls?limit=2`, key)).json()) as {
      data: { pages: number; unmatched: unknown[]; started_at: string }[];
      next_cursor: string;
    };
    expect(first.data.map((poll) => poll.pages)).toEqual([2, 1]);
    expect(first.data[0]).toMatchObject({
      source_id: body.id,
      started_at: '2026-01-01T00:00:02+00:00',
      unmatched: [{ pin: null, oem_name: 'CAT', serial_number: 'X1' }],
      error: null,
    });
    const rest = (await (await fixture.request(`${SOURCES}/${body.id}/polls?limit=2&cursor=${first.next_cursor}`, key)).json()) as {
      data: { pages: number }[];
      next_cursor: null;
    };
    expect(rest).toMatchObject({ data: [{ pages: 0 }], next_cursor: null });
    expect((await fixture.request(`${SOURCES}/${body.id}/polls?limit=0`, key)).status).toBe(400);
    const csv = await (await fixture.request(`${SOURCES}/${body.id}/polls`, key, { headers: { Accept: 'text/csv' } })).text();
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(4);
  });
});
