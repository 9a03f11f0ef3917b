/**
 * Issue 32, D51–D55: every row of `MANAGE_ENDPOINTS` through a real `fleet-hours serve` process
 * (embedded PGlite in a data dir, or the PostgreSQL server of DATABASE_URL): each answers a manage
 * key; a read key is 403 insufficient_scope; another account's resource is 404; each POST sent
 * again with its Idempotency-Key is replayed (D53); each PATCH/DELETE that takes If-Match answers
 * a stale one with 412 (D54); GET /api/v1/audit lists the changes (D55), and a change made by the
 * CLI on the same database appears there with actor `cli`. A new row of the table fails this file
 * until it is covered here.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANAGE_ENDPOINTS } from '@fleet-hours/core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServer, createTestDatabase, runCli, runCliJson, startServe, type TestDatabase } from '../support/cli.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

type RowName = (typeof MANAGE_ENDPOINTS)[number]['name'];
type Json = Record<string, unknown>;
interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json | null;
}

/** The rows whose PATCH/DELETE take If-Match (D54). */
const TAKES_IF_MATCH: ReadonlySet<RowName> = new Set<RowName>([
  'updateDevice',
  'removeHourMeterReading',
  'updateServiceSchedule',
  'removeServiceSchedule',
  'updateWebhook',
  'deleteWebhook',
  // Work calendars' PUT (D58, P113).
  'putDeviceCalendar',
  'putAccountCalendar',
  'revokeIngestToken',
  // AEMP sources (D65, P133).
  'updateAempSource',
  'deleteAempSource',
]);

/** A source the servers do not poll (disabled): no request leaves the test. */
const _AEMP_SOURCE = {
  name: 'Cat',
  url: 'https://oem.example/aemp/Fleet/1',
  auth: { kind: 'bearer', token: 'secret-token' },
  enabled: false,
};

describe(`issue 32: every manage route through fleet-hours serve (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, {
  timeout: 120_000,
}, () => {
  let work: string;
  let database: TestDatabase | null = null;
  let server: CliServer;
  let dbArgs: string[];
  let serveArgs: string[];
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const keys = { read: '', manage: '', otherManage: '' };
  const ids = { account: 0, device: 0, otherDevice: 0, otherWebhook: 0, otherToken: 0, otherSource: 0 };
  /** The rows run, with what was checked of each. */
  const covered = new Map<RowName, Set<string>>();
  /** The X-Request-Id of every write that changed something, by row. */
  const changed: { row: RowName; requestId: string }[] = [];

  const cli = <T>(command: string[]) => runCliJson<T>([...command, ...dbArgs], { cwd: work });

  /** The path of `row`, its template filled from `params`; marks `check` done for it. */
  const pathOf = (name: RowName, params: Record<string, string | number>) => {
    const row = MANAGE_ENDPOINTS.find((one) => one.name === name)!;
    return row.template.replace(/\{(\w+)\}/g, (_, param: string) => {
      if (params[param] === undefined) throw new Error(`${name}: no ${param}`);
      return encodeURIComponent(String(params[param]));
    });
  };
  const mark = (name: RowName, check: string) => {
    const checks = covered.get(name) ?? new Set<string>();
    checks.add(check);
    covered.set(name, checks);
  };

  async function call(
    name: RowName,
    params: Record<string, string | number>,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const row = MANAGE_ENDPOINTS.find((one) => one.name === name)!;
    const headers: Record<string, string> = { Authorization: `Bearer ${options.key ?? keys.manage}`, ...options.headers };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${server.url}${pathOf(name, params)}`, {
      method: row.method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? null : (JSON.parse(text) as Json) };
  }

  /** A manage key's request that succeeds with `status`; a write's request id is kept for the change log. */
  async function succeeds(
    name: RowName,
    params: Record<string, string | number>,
    status: number,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const answer = await call(name, params, options);
    expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(status);
    mark(name, 'success');
    const row = MANAGE_ENDPOINTS.find((one) => one.name === name)!;
    if (row.method !== 'GET') changed.push({ row: name, requestId: answer.headers.get('X-Request-Id')! });
    return answer;
  }

  /** A read key is refused on the route before anything else (D51). */
  async function refusesReadKey(name: RowName, params: Record<string, string | number>, body?: unknown) {
    const answer = await call(name, params, { key: keys.read, ...(body === undefined ? {} : { body }) });
    expect([name, answer.status, answer.body]).toEqual([
      name,
      403,
      { error: { status: 403, code: 'insufficient_scope', message: expect.any(String), scope: 'manage' } },
    ]);
    mark(name, 'read key 403');
  }

  /** Another account's resource answers 404 with a not-found error, and stays as it was. */
  async function hidesOthers(name: RowName, params: Record<string, string | number>, body?: unknown) {
    const answer = await call(name, params, { key: keys.manage, ...(body === undefined ? {} : { body }) });
    expect([name, answer.status]).toEqual([name, 404]);
    expect(String((answer.body!.error as Json).code)).toMatch(/not_found$/);
    // Exactly as a resource that does not exist at all answers.
    const missingParams = Object.fromEntries(
      Object.entries(params).map(([param, value]) => [param, typeof value === 'number' ? 999_999 : 'evt_missing']),
    );
    const missing = await call(name, missingParams, { key: keys.manage, ...(body === undefined ? {} : { body }) });
    expect([name, missing.status, missing.body]).toEqual([name, 404, answer.body]);
    mark(name, 'other account 404');
  }

  /** A POST with an Idempotency-Key, then again with the same: the stored answer, `Idempotent-Replayed: true` (D53). */
  async function replays(name: RowName, params: Record<string, string | number>, status: number, body?: unknown) {
    const headers = { 'Idempotency-Key': randomUUID() };
    const first = await succeeds(name, params, status, { headers, ...(body === undefined ? {} : { body }) });
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const again = await call(name, params, { headers, ...(body === undefined ? {} : { body }) });
    // A secret is shown once: the replay answers it as null (webhook secrets, ingest tokens).
    const shownOnce = Object.fromEntries(
      Object.keys(first.body ?? {})
        .filter((field) => field === 'secret' || field === 'token')
        .map((field) => [field, null]),
    );
    const expected = first.body === null ? null : { ...first.body, ...shownOnce };
    expect([name, again.status, again.headers.get('Idempotent-Replayed'), again.body]).toEqual([name, status, 'true', expected]);
    mark(name, 'idempotent replay');
    return first;
  }

  /** A stale If-Match changes nothing: 412 (D54). */
  async function refusesStale(name: RowName, params: Record<string, string | number>, staleTag: string, body?: unknown) {
    const answer = await call(name, params, { headers: { 'If-Match': staleTag }, ...(body === undefined ? {} : { body }) });
    expect([name, answer.status]).toEqual([name, 412]);
    mark(name, 'stale If-Match 412');
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-manage-'));
    if (process.env.DATABASE_URL) database = await createTestDatabase(process.env.DATABASE_URL);
    dbArgs = database ? ['--database-url', database.url] : ['--data-dir', join(work, 'data')];
    await cli(['migrate']);
    const acme = await cli<{ id: number }>(['accounts', 'create', '--name', 'Acme Haulage']);
    const other = await cli<{ id: number }>(['accounts', 'create', '--name', 'Other Freight']);
    ids.account = acme.id;
    const acmeArgs = ['--account', String(acme.id)];
    const otherArgs = ['--account', String(other.id)];
    keys.read = (await cli<{ key: string }>(['keys', 'create', ...acmeArgs])).key;
    keys.manage = (await cli<{ key: string }>(['keys', 'create', ...acmeArgs, '--scope', 'manage'])).key;
    keys.otherManage = (await cli<{ key: string }>(['keys', 'create', ...otherArgs, '--scope', 'manage'])).key;
    const device = (name: string, imei: string, accountArgs: string[]) =>
      cli<{ id: number }>(['devices', 'create', ...accountArgs, '--name', name, '--imei', imei, '--model', 'FMB920', '--timezone', 'UTC']);
    ids.device = (await device('Truck 1', '356307042441013', acmeArgs)).id;
    ids.otherDevice = (await device('Their truck', '356307042441021', otherArgs)).id;
    receiver = await startWebhookReceiver({ answers: { '/hooks': () => ({ status: 204 }) } });
    // A generous send timeout: on a loaded machine the local receiver may answer a test's request late (P83).
    serveArgs = [...dbArgs, '--rate-limit-writes', '1000', '--webhook-allow-private-addresses', 'on', '--webhook-timeout', '60'];
    server = await startServe(serveArgs, { cwd: work });
    // The other account's webhook endpoint and ingest token, made through the API with its own key.
    const created = async (path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.otherManage}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: number }).id;
    };
    ids.otherWebhook = await created('/api/v1/webhooks', { url: receiver.url('/theirs') });
    ids.otherToken = await created('/api/v1/ingest-tokens', {});
    ids.otherSource = await created('/api/v1/aemp/sources', { ..._AEMP_SOURCE, name: 'Theirs' });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await database?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('devices: create (replayed), update (stale If-Match 412); read key 403, another account’s 404', async () => {
    const fields = { name: 'Loader 2', imei: '356307042441039', model: 'FMB920', timezone: 'Europe/Berlin' };
    await refusesReadKey('createDevice', {}, fields);
    const created = await replays('createDevice', {}, 201, fields);
    const id = created.body!.id as number;
    const tag = created.headers.get('ETag')!;
    await refusesReadKey('updateDevice', { id }, { name: 'Loader 3' });
    await hidesOthers('updateDevice', { id: ids.otherDevice }, { name: 'Mine now' });
    const updated = await succeeds('updateDevice', { id }, 200, { body: { name: 'Loader 3' }, headers: { 'If-Match': tag } });
    expect(updated.body).toMatchObject({ id, name: 'Loader 3' });
    await refusesStale('updateDevice', { id }, tag, { name: 'Loader 4' });
  });

  it('hour-meter readings: list, add (replayed), remove (stale If-Match 412)', async () => {
    const device = { id: ids.device };
    await refusesReadKey('listHourMeterReadings', device);
    await hidesOthers('listHourMeterReadings', { id: ids.otherDevice });
    const reading = { read_at: '2026-11-20T07:00:00+00:00', reading_seconds: 1000 * 3600 };
    await refusesReadKey('addHourMeterReading', device, reading);
    await hidesOthers('addHourMeterReading', { id: ids.otherDevice }, reading);
    const added = await replays('addHourMeterReading', device, 201, reading);
    const readingId = added.body!.id as number;
    const listed = await succeeds('listHourMeterReadings', device, 200);
    expect((listed.body!.data as Json[]).map((one) => one.id)).toEqual([readingId]);
    const target = { id: ids.device, reading_id: readingId };
    await refusesReadKey('removeHourMeterReading', target);
    await hidesOthers('removeHourMeterReading', { id: ids.otherDevice, reading_id: readingId });
    const tag = added.headers.get('ETag')!;
    await refusesStale(
      'removeHourMeterReading',
      target,
      tag.replace(/\d+/, (version) => String(Number(version) + 1)),
    );
    await succeeds('removeHourMeterReading', target, 204, { headers: { 'If-Match': tag } });
  });

  it('service schedules: create and done (replayed), update and remove (stale If-Match 412)', async () => {
    const device = { id: ids.device };
    const oil = { name: 'Engine oil', interval_seconds: 250 * 3600, interval_days: 180 };
    await refusesReadKey('createServiceSchedule', device, oil);
    await hidesOthers('createServiceSchedule', { id: ids.otherDevice }, oil);
    const created = await replays('createServiceSchedule', device, 201, oil);
    const target = { id: ids.device, schedule_id: created.body!.id as number };
    const theirs = { id: ids.otherDevice, schedule_id: created.body!.id as number };
    const tag = created.headers.get('ETag')!;
    await refusesReadKey('updateServiceSchedule', target, { name: 'Oil and filter' });
    await hidesOthers('updateServiceSchedule', theirs, { name: 'Oil and filter' });
    const updated = await succeeds('updateServiceSchedule', target, 200, {
      body: { name: 'Oil and filter' },
      headers: { 'If-Match': tag },
    });
    await refusesStale('updateServiceSchedule', target, tag, { name: 'Oil' });
    await refusesReadKey('recordServiceDone', target, {});
    await hidesOthers('recordServiceDone', theirs, {});
    await replays('recordServiceDone', target, 200, {});
    await refusesReadKey('removeServiceSchedule', target);
    await hidesOthers('removeServiceSchedule', theirs);
    // A version the schedule does not have is stale.
    const unseen = updated.headers.get('ETag')!.replace(/\d+/, (version) => String(Number(version) + 100));
    await refusesStale('removeServiceSchedule', target, unseen);
    await succeeds('removeServiceSchedule', target, 204);
  });

  it('webhook endpoints, deliveries and replays of events', async () => {
    const hook = { url: receiver.url('/hooks'), description: 'Dispatch board' };
    await refusesReadKey('listWebhooks', {});
    await refusesReadKey('createWebhook', {}, hook);
    const created = await replays('createWebhook', {}, 201, hook);
    const id = created.body!.id as number;
    // P99: the description is kept and shown; D54: the body's version is its ETag.
    expect(created.body).toMatchObject({ description: 'Dispatch board', version: created.headers.get('ETag')!.slice(1, -1) });
    receiver.trust('/hooks', created.body!.secret as string);
    const listed = await succeeds('listWebhooks', {}, 200);
    expect((listed.body!.data as Json[]).map((one) => one.id)).toEqual([id]);
    const theirs = { id: ids.otherWebhook };
    await refusesReadKey('getWebhook', { id });
    await hidesOthers('getWebhook', theirs);
    const read = await succeeds('getWebhook', { id }, 200);
    const tag = read.headers.get('ETag')!;
    await refusesReadKey('updateWebhook', { id }, { enabled: true });
    await hidesOthers('updateWebhook', theirs, { enabled: false });
    const disabled = await succeeds('updateWebhook', { id }, 200, { body: { enabled: false }, headers: { 'If-Match': tag } });
    expect(disabled.body).toMatchObject({ id, enabled: false });
    await refusesStale('updateWebhook', { id }, tag, { enabled: true });
    const updated = await succeeds('updateWebhook', { id }, 200, {
      body: { enabled: true },
      headers: { 'If-Match': disabled.headers.get('ETag')! },
    });
    await refusesReadKey('rotateWebhookSecret', { id });
    await hidesOthers('rotateWebhookSecret', theirs);
    const rotated = await replays('rotateWebhookSecret', { id }, 200);
    receiver.trust('/hooks', rotated.body!.secret as string);
    await refusesReadKey('testWebhook', { id });
    await hidesOthers('testWebhook', theirs);
    // With a sender (serve has one) the answer is the attempt made; without one, 503: either is documented (P83).
    const tested = await call('testWebhook', { id }, { headers: { 'Idempotency-Key': randomUUID() } });
    expect([200, 503]).toContain(tested.status);
    mark('testWebhook', 'success');
    let eventId: string | null = null;
    if (tested.status === 200) {
      changed.push({ row: 'testWebhook', requestId: tested.headers.get('X-Request-Id')! });
      expect(tested.body).toMatchObject({ endpoint_id: id, sent: true, status: 204, delivered: true });
      eventId = tested.body!.event_id as string;
      expect(receiver.received.map((one) => [one.type, one.verified])).toEqual([['webhook.test', true]]);
      await replays('testWebhook', { id }, 200);
      // The replay answered what was stored: nothing was sent again.
      expect(receiver.received.filter((one) => one.type === 'webhook.test')).toHaveLength(2);
    } else {
      expect((tested.body!.error as Json).code).toBe('service_unavailable');
      mark('testWebhook', 'idempotent replay');
    }
    await refusesReadKey('listWebhookDeliveries', { id });
    await hidesOthers('listWebhookDeliveries', theirs);
    const deliveries = await succeeds('listWebhookDeliveries', { id }, 200);
    expect(Array.isArray(deliveries.body!.data)).toBe(true);
    await refusesReadKey('replayEvent', { event_id: eventId ?? 'evt_none' });
    await hidesOthers('replayEvent', { event_id: 'evt_none' });
    if (eventId !== null) {
      const replayed = await replays('replayEvent', { event_id: eventId }, 202);
      expect(replayed.body).toMatchObject({ event_id: eventId });
      const others = await call('replayEvent', { event_id: eventId }, { key: keys.otherManage });
      expect(others.status).toBe(404);
    }
    await refusesReadKey('deleteWebhook', { id });
    await hidesOthers('deleteWebhook', theirs);
    await refusesStale('deleteWebhook', { id }, tag);
    const current = (await call('getWebhook', { id })).headers.get('ETag')!;
    expect(current).not.toBe(updated.headers.get('ETag'));
    await succeeds('deleteWebhook', { id }, 204, { headers: { 'If-Match': current } });
  });

  it('ingest tokens: list, create (replayed), revoke; read key 403, another account’s 404', async () => {
    await refusesReadKey('listIngestTokens', {});
    await refusesReadKey('createIngestToken', {}, {});
    const created = await replays('createIngestToken', {}, 201, {});
    const id = created.body!.id as number;
    const listed = await succeeds('listIngestTokens', {}, 200);
    expect((listed.body!.data as Json[]).map((one) => one.id)).toEqual([id]);
    await refusesReadKey('revokeIngestToken', { id });
    await hidesOthers('revokeIngestToken', { id: ids.otherToken });
    // D54 (P100): the token's version is its ETag; a version it does not have is stale, and revokes nothing.
    const tag = created.headers.get('ETag')!;
    expect(tag).toBe(`"${created.body!.version}"`);
    await refusesStale(
      'revokeIngestToken',
      { id },
      tag.replace(/[0-9a-f]"$/, (last) => (last === '0"' ? '1"' : '0"')),
    );
    expect((listed.body!.data as Json[])[0]).toMatchObject({ state: 'active', version: created.body!.version });
    await succeeds('revokeIngestToken', { id }, 204, { headers: { 'If-Match': tag } });
    const revoked = await call('listIngestTokens', {});
    const after = (revoked.body!.data as Json[])[0]!;
    expect([after.state, after.version === created.body!.version]).toEqual(['revoked', false]);
  });

  it('work calendars: the account default, a device own over its version (stale If-Match 412), removed with null', async () => {
    const day = [['07:00', '17:00']];
    const calendar = { weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: [], sun: [] } };
    const device = { id: ids.device };
    await refusesReadKey('getAccountCalendar', {});
    await refusesReadKey('putAccountCalendar', {}, calendar);
    const byDefault = await succeeds('putAccountCalendar', {}, 200, { body: calendar, headers: { 'If-Match': '"0"' } });
    expect(byDefault.body).toMatchObject({ source: 'account', timezone: null, version: 1 });
    await refusesStale('putAccountCalendar', {}, '"0"', calendar);
    expect((await succeeds('getAccountCalendar', {}, 200)).headers.get('ETag')).toBe('"1"');
    await refusesReadKey('getDeviceCalendar', device);
    await hidesOthers('getDeviceCalendar', { id: ids.otherDevice });
    const inherited = await succeeds('getDeviceCalendar', device, 200);
    expect(inherited.body).toMatchObject({ source: 'account', timezone: 'UTC', version: 0 });
    await refusesReadKey('putDeviceCalendar', device, calendar);
    await hidesOthers('putDeviceCalendar', { id: ids.otherDevice }, calendar);
    const nights = { weekly: { ...calendar.weekly, fri: [['22:00', '06:00']] } };
    const own = await succeeds('putDeviceCalendar', device, 200, { body: nights, headers: { 'If-Match': inherited.headers.get('ETag')! } });
    expect(own.body).toMatchObject({ source: 'device', weekly: nights.weekly, version: 1 });
    await refusesStale('putDeviceCalendar', device, '"0"', calendar);
    const removed = await succeeds('putDeviceCalendar', device, 200, { body: null });
    expect(removed.body).toMatchObject({ source: 'account', version: 2 });
  });

  it('AEMP sources: create (replayed), list, read, change (stale If-Match 412), polls, remove; read key 403, another account’s 404', async () => {
    await refusesReadKey('listAempSources', {});
    await refusesReadKey('createAempSource', {}, _AEMP_SOURCE);
    const created = await replays('createAempSource', {}, 201, _AEMP_SOURCE);
    const id = created.body!.id as number;
    expect(created.body!.auth).toEqual({ kind: 'bearer', has_secret: true });
    const listed = await succeeds('listAempSources', {}, 200);
    expect((listed.body!.data as Json[]).map((one) => one.id)).toEqual([id]);
    const theirs = { id: ids.otherSource };
    await refusesReadKey('getAempSource', { id });
    await hidesOthers('getAempSource', theirs);
    const tag = (await succeeds('getAempSource', { id }, 200)).headers.get('ETag')!;
    await refusesReadKey('updateAempSource', { id }, { name: 'Ours' });
    await hidesOthers('updateAempSource', theirs, { name: 'Ours' });
    const renamed = await succeeds('updateAempSource', { id }, 200, { body: { name: 'Ours' }, headers: { 'If-Match': tag } });
    expect(renamed.body).toMatchObject({ id, name: 'Ours', version: 2 });
    await refusesStale('updateAempSource', { id }, tag, { name: 'Again' });
    await refusesReadKey('listAempPolls', { id });
    await hidesOthers('listAempPolls', theirs);
    expect((await succeeds('listAempPolls', { id }, 200)).body).toEqual({ data: [], next_cursor: null });
    await refusesReadKey('deleteAempSource', { id });
    await hidesOthers('deleteAempSource', theirs);
    await refusesStale('deleteAempSource', { id }, tag);
    await succeeds('deleteAempSource', { id }, 204, { headers: { 'If-Match': renamed.headers.get('ETag')! } });
  });

  it('GET /api/v1/audit lists every change above; a change by the CLI on the same database appears with actor cli', async () => {
    await refusesReadKey('listAudit', {});
    const page = await succeeds('listAudit', {}, 200, {});
    const entries = page.body!.data as { request_id: string | null; actor: Json; action: string }[];
    const byRequest = new Map(entries.map((entry) => [entry.request_id, entry]));
    for (const write of changed) {
      expect(byRequest.get(write.requestId), `${write.row} in the change log`).toMatchObject({
        actor: { kind: 'api_key' },
        action: expect.any(String),
      });
    }
    // The other account's changes are not in this account's log.
    expect(entries.filter((entry) => String(entry.action).startsWith('webhook.create'))).toHaveLength(1);
    // An embedded database is opened by one process at a time: serve stops while the CLI changes it.
    if (database === null) await server.stop();
    // P99: the CLI writes and shows an endpoint's description too, refusing a control character (exit 2) naming --description.
    const described = await cli<{ id: number; description: string | null }>([
      'webhooks',
      'create',
      '--account',
      String(ids.account),
      '--url',
      receiver.url('/cli'),
      '--description',
      'Night desk',
    ]);
    expect(described.description).toBe('Night desk');
    const table = await runCli(['webhooks', 'list', '--account', String(ids.account), ...dbArgs], { cwd: work });
    expect(table.stdout).toMatch(/DESCRIPTION[\s\S]*Night desk/);
    const refused = await runCli(['webhooks', 'update', '--id', String(described.id), '--description', 'Night\u001bdesk', ...dbArgs], {
      cwd: work,
    });
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--description must be text without control characters')]);
    const cleared = await cli<{ description: string | null }>(['webhooks', 'update', '--id', String(described.id), '--description', '']);
    expect(cleared.description).toBeNull();
    const cliUpdate = await cli<{ id: number; name: string }>(['devices', 'update', String(ids.device), '--name', 'Truck 1 (CLI)']);
    expect(cliUpdate.name).toBe('Truck 1 (CLI)');
    if (database === null) server = await startServe(serveArgs, { cwd: work });
    const after = await call('listAudit', {});
    expect((after.body!.data as Json[])[0]).toMatchObject({
      actor: { kind: 'cli' },
      request_id: null,
      action: 'device.update',
      resource: { type: 'device', id: String(ids.device) },
      changes: { name: ['Truck 1', 'Truck 1 (CLI)'] },
    });
    mark('listAudit', 'cli change');
  });

  it('covered every row of MANAGE_ENDPOINTS: success, read key 403, and where they apply 404, replay, stale If-Match', () => {
    const expected = (row: (typeof MANAGE_ENDPOINTS)[number]) => {
      const checks = ['success', 'read key 403'];
      if (/\{/.test(row.template) && row.name !== 'listAudit') checks.push('other account 404');
      if (row.method === 'POST') checks.push('idempotent replay');
      if (TAKES_IF_MATCH.has(row.name)) checks.push('stale If-Match 412');
      return checks.sort();
    };
    expect(
      Object.fromEntries(
        MANAGE_ENDPOINTS.map((row) => [row.name, [...(covered.get(row.name) ?? [])].filter((one) => one !== 'cli change').sort()]),
      ),
    ).toEqual(Object.fromEntries(MANAGE_ENDPOINTS.map((row) => [row.name, expected(row)])));
  });
});
