/**
 * One table per endpoint (issue 31): every row of core's `READ_ENDPOINTS` is served by the app on
 * its own budget and documented in the OpenAPI document with its limit and page sizes (its
 * `--rate-limit-…` flag: packages/server/src/cli/server-settings.test.ts); and no source outside the table spells out an endpoint's path,
 * so that adding an endpoint is a row, a read, a handler and its docs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { MANAGE_ENDPOINTS, READ_ENDPOINTS } from '@fleet-hours/core/adapter';
import { createFleetHoursApp, openApiDocument } from '@fleet-hours/http';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** An app over a memory store with one account, one key and one device. */
async function servedApp() {
  const store = createMemoryStore();
  const now = 1_800_000_000;
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now });
  const manageKey = generateApiKey();
  await store.createApiKey({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(manageKey),
    label: null,
    expiresAt: null,
    now,
    scope: 'manage',
  });
  const device = await store.createDevice({
    accountId: account.id,
    name: 'Truck',
    imei: '356938035643809',
    model: 'FMB920',
    registration: null,
    timeZone: 'Europe/Berlin',
  });
  const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: () => now * 1000 }), logger: () => {} });
  return { app, key, manageKey, deviceId: device!.id };
}

describe('READ_ENDPOINTS, the table of the read API', () => {
  it('holds each endpoint once, by name and by template', () => {
    expect(new Set(READ_ENDPOINTS.map((row) => row.name)).size).toBe(READ_ENDPOINTS.length);
    expect(new Set(READ_ENDPOINTS.map((row) => row.template)).size).toBe(READ_ENDPOINTS.length);
  });

  it.each(READ_ENDPOINTS.map((row) => [row.name, row] as const))('%s is served by the app, on its own budget', async (_name, row) => {
    const { app, key, deviceId } = await servedApp();
    // D64: the AEMP routes' own path parameters, and their JSON (XML by default).
    const path = row.template
      .replace('{id}', String(deviceId))
      .replace('{page}', '1')
      .replace('{kind}', 'CumulativeOperatingHours')
      .replace('{startUTC}', '2026-01-01')
      .replace('{endUTC}', '2026-01-02');
    const response = await app.request(path, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Limit')).toBe(String(row.rateLimit));
    const body = (await response.json()) as { data: unknown; next_cursor?: unknown };
    // A fleet endpoint answers a page (D32).
    expect('next_cursor' in body).toBe('paging' in row);
  });

  it.each(READ_ENDPOINTS.map((row) => [row.name, row] as const))('%s is documented with its limit and page sizes', (_name, row) => {
    const path = openApiDocument.paths[row.template] as {
      get?: { description: string; parameters?: { name?: string; schema?: unknown }[] };
    };
    expect(path?.get?.description).toContain(`Rate limit: ${row.rateLimit} requests per minute`);
    const limit = path.get?.parameters?.find((parameter) => parameter.name === 'limit');
    if ('paging' in row) expect(limit?.schema).toMatchObject({ default: row.paging.defaultLimit, maximum: row.paging.maxLimit });
    else expect(limit).toBeUndefined();
  });

  it('is the only source that spells out an endpoint path: the app, the document, the policies, the cursors and the flags derive it', () => {
    const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z', 'packages'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((path) => /^packages\/[^/]+\/src\/.*\.(ts|js)$/.test(path) && !path.endsWith('.test.ts') && existsSync(join(root, path)))
      // The table itself; test support; and the clients that call the API as any client does: the
      // fleet view in the browser, the demo's curl examples and the typed client's types, generated
      // from the document.
      .filter(
        (path) =>
          path !== 'packages/core/src/access/read-endpoints.ts' &&
          !path.includes('/testing/') &&
          !path.startsWith('packages/client/src/generated/') &&
          !path.startsWith('packages/http/src/pages/fleet-view') &&
          path !== 'packages/server/src/demo/demo-banner.ts',
      );
    const templates = READ_ENDPOINTS.map((row) => ({
      template: row.template,
      pattern: new RegExp(`${row.template.replace(/[{}]/g, '\\$&')}(?![\\w/{])`),
    }));
    const found: string[] = [];
    /** The text of a literal; in a template, `${API_V1}` (or `API_BASE`) is the base path and any other expression a path segment. */
    const textOf = (node: ts.Node): string | undefined =>
      ts.isStringLiteralLike(node)
        ? node.text
        : ts.isTemplateExpression(node)
          ? node.head.text +
            node.templateSpans
              .map((span) => (/^API_(V1|BASE)$/.test(span.expression.getText()) ? '/api/v1' : '{id}') + span.literal.text)
              .join('')
          : undefined;
    const named = (text: string) => templates.filter(({ pattern }) => pattern.test(text)).map(({ template }) => template);
    for (const path of sources) {
      const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
      const at = (node: ts.Node) => `${path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      source.forEachChild(function visit(node) {
        const text = textOf(node);
        if (text !== undefined) {
          const endpoints = named(text);
          // A path in code (no spaces: a route, a key, a URL), or a sentence that lists several endpoints.
          if ((endpoints.length > 0 && !/\s/.test(text)) || endpoints.length > 1) found.push(`${at(node)} ${endpoints.join(', ')}`);
        }
        // A table of endpoints by hand: an object or array whose own members name several.
        if (ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) {
          const members = ts.isObjectLiteralExpression(node)
            ? node.properties.flatMap((property) => (ts.isPropertyAssignment(property) ? [property.initializer] : []))
            : [...node.elements];
          const texts = members.flatMap((member) => (ts.isArrayLiteralExpression(member) ? [...member.elements] : [member])).map(textOf);
          const endpoints = new Set(texts.flatMap((text) => (text === undefined ? [] : named(text))));
          if (endpoints.size > 1) found.push(`${at(node)} ${[...endpoints].join(', ')}`);
        }
        node.forEachChild(visit);
      });
    }
    expect(found).toEqual([]);
  });
});

describe('MANAGE_ENDPOINTS, the table of the write routes (D51, D52)', () => {
  it('holds each route once, by name and by method and template', () => {
    expect(new Set(MANAGE_ENDPOINTS.map((row) => row.name)).size).toBe(MANAGE_ENDPOINTS.length);
    expect(new Set(MANAGE_ENDPOINTS.map((row) => `${row.method} ${row.template}`)).size).toBe(MANAGE_ENDPOINTS.length);
  });

  const writeRows = MANAGE_ENDPOINTS.filter((row) => row.method !== 'GET');
  const readRows = MANAGE_ENDPOINTS.filter((row) => row.method === 'GET');

  it.each(writeRows.map((row) => [row.name, row] as const))(
    '%s is served by the app with a manage key, on the budget of writes, and refused to a read key',
    async (_name, row) => {
      const { app, key, manageKey, deviceId } = await servedApp();
      // A route with a body (its OpenAPI operation has one) is reached with a field at fault; the others take none.
      const withBody =
        (openApiDocument.paths[row.template] as Record<string, { requestBody?: unknown } | undefined>)[row.method.toLowerCase()]
          ?.requestBody !== undefined;
      const send = (bearer: string) =>
        app.request(row.template.replace('{id}', String(deviceId)).replace(/\{[a-z_]+\}/g, '1'), {
          method: row.method,
          headers: { Authorization: `Bearer ${bearer}`, ...(withBody ? { 'Content-Type': 'application/json' } : {}) },
          // A body whose field is at fault: the route is reached, and its checks answer.
          ...(withBody ? { body: JSON.stringify({ colour: 'red' }) } : {}),
        });
      const refused = await send(key);
      expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'insufficient_scope']);
      const reached = await send(manageKey);
      if (withBody)
        expect([reached.status, ((await reached.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_field']);
      // Without a body: the route answered (the id names none of this account's resources: 404), past the key's checks.
      else expect([401, 403, 405]).not.toContain(reached.status);
      expect(reached.headers.get('X-RateLimit-Limit')).toBe('60');
    },
  );

  it.each(readRows.map((row) => [row.name, row] as const))(
    'P88: %s is served by the app with a manage key, on the budget of manage reads, and refused to a read key',
    async (_name, row) => {
      const { app, key, manageKey, deviceId } = await servedApp();
      const send = (bearer: string) =>
        app.request(row.template.replace('{id}', String(deviceId)), { headers: { Authorization: `Bearer ${bearer}` } });
      const refused = await send(key);
      expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'insufficient_scope']);
      const reached = await send(manageKey);
      // A route that names a resource by id is reached too when no resource of the account has it: 404.
      expect(row.template.includes('{id}') ? [200, 404] : [200]).toContain(reached.status);
      expect(reached.headers.get('X-RateLimit-Limit')).toBe('120');
    },
  );

  it.each(MANAGE_ENDPOINTS.map((row) => [row.name, row] as const))('%s is documented with its method, scope and limit', (_name, row) => {
    const operation = (openApiDocument.paths[row.template] as Record<string, { description?: string } | undefined>)[
      row.method.toLowerCase()
    ];
    expect(operation?.description).toContain('`manage` scope');
    expect(operation?.description).toContain(
      row.method === 'GET'
        ? 'Rate limit: 120 requests per minute per key over all the manage reads'
        : 'Rate limit: 60 requests per minute per key over all the write routes',
    );
  });
});
