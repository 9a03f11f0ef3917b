import { aempSourcesOf, ERROR_TABLE, StorageUnavailableError, type AempSourceFields, type FleetHoursStore } from '@fleet-hours/core';
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../testing/fixture.js';
import { createOpenApiDocument, openApiDocument } from './openapi-document.js';
import { requestFingerprint } from '../middleware/idempotency/index.js';

type Schema = Record<string, unknown>;
type HeaderSpec = { required?: boolean; schema: Schema };
type ResponseSpec = { description: string; headers?: Record<string, HeaderSpec>; content?: Record<string, { schema: Schema }> };
type OperationSpec = { responses: Record<string, ResponseSpec>; security?: unknown[] };
type PathItemSpec = { get?: OperationSpec; head?: OperationSpec; 'x-method-not-allowed': ResponseSpec } & Record<string, unknown>;
type ResolvedDocument = {
  paths: Record<string, PathItemSpec>;
  components: { schemas: Record<string, Schema> };
  'x-not-found': ResponseSpec;
};

const utcSeconds = (year: number, month: number, day: number, hour = 0) => Date.UTC(year, month - 1, day, hour) / 1000;

const addFormats = ((ajvFormats as unknown as { default?: unknown }).default ?? ajvFormats) as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const compiled = new Map<Schema, ValidateFunction>();
const validatorFor = (schema: Schema): ValidateFunction => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
};

const SERVED_METHODS = ['get', 'head'] as const;
const METHODS = [...SERVED_METHODS, 'post', 'put', 'patch', 'delete'] as const;
const DATA_PATHS = [
  '/api/v1/devices',
  '/api/v1/devices/{id}/hours',
  '/api/v1/devices/{id}/hours/daily',
  '/api/v1/devices/{id}/meter',
  '/api/v1/devices/{id}/service',
  // The fleet endpoints (D32).
  '/api/v1/hours',
  '/api/v1/hours/daily',
  '/api/v1/meter',
  '/api/v1/service',
  // Who the presented key is (P96).
  '/api/v1/key',
  // The served AEMP feed (D64).
  '/aemp/v2/Fleet/{page}',
  '/aemp/v2/Fleet/Equipment/ID/{id}',
  '/aemp/v2/Fleet/Equipment/ID/{id}/{kind}/{startUTC}/{endUTC}/{page}',
  // Utilization (D60): a device's, and the fleet's by device or by tag.
  '/api/v1/devices/{id}/utilization',
  '/api/v1/utilization',
  // Only PATCH is served there (D52): every other method is 405.
  '/api/v1/devices/{id}',
  // The change log (D55): GET and HEAD with a manage key.
  '/api/v1/audit',
];
/** The write routes (D52) and the operation each path serves. */
const WRITE_OPERATIONS: Record<string, readonly string[]> = {
  '/api/v1/devices': ['post'],
  '/api/v1/devices/{id}': ['patch'],
  // Readings, schedules and services done (D38, D39, D52, P76): paths of their own.
  '/api/v1/devices/{id}/hour-meter/readings': ['get', 'head', 'post'],
  '/api/v1/devices/{id}/hour-meter/readings/{reading_id}': ['delete'],
  '/api/v1/devices/{id}/service/schedules': ['post'],
  '/api/v1/devices/{id}/service/schedules/{schedule_id}': ['patch', 'delete'],
  '/api/v1/devices/{id}/service/schedules/{schedule_id}/done': ['post'],
};
/** The paths of the write routes that the read API does not have (P76). */
const MAINTENANCE_PATHS = Object.keys(WRITE_OPERATIONS).filter((path) => path.includes('/hour-meter/') || path.includes('/schedules'));
/** The webhook endpoint and ingest token routes (P80) and the operations each path serves. */
const MANAGED_PATHS: Record<string, readonly string[]> = {
  '/api/v1/webhooks': ['get', 'post'],
  '/api/v1/webhooks/{id}': ['get', 'patch', 'delete'],
  '/api/v1/webhooks/{id}/rotate': ['post'],
  '/api/v1/webhooks/{id}/test': ['post'],
  '/api/v1/webhooks/{id}/deliveries': ['get'],
  '/api/v1/events/{event_id}/replay': ['post'],
  '/api/v1/ingest-tokens': ['get', 'post'],
  '/api/v1/ingest-tokens/{id}': ['delete'],
  // Work calendars (D58, P113).
  '/api/v1/devices/{id}/calendar': ['get', 'put'],
  '/api/v1/calendar': ['get', 'put'],
  // AEMP sources (D65, P133).
  '/api/v1/aemp/sources': ['get', 'post'],
  '/api/v1/aemp/sources/{id}': ['get', 'patch', 'delete'],
  '/api/v1/aemp/sources/{id}/polls': ['get'],
};
/** The ingestion paths (docs/ingestion.md) and the operations each serves. */
const INGEST_PATHS: Record<string, readonly string[]> = {
  '/ingest/v1/telemetry': ['post'],
  '/ingest/traccar': ['post'],
  '/ingest/osmand/{token}': ['get', 'post'],
};
/** Every code the read API answers: D16's, in its order, and P22's. */
const READ_API_CODES = [
  'missing_api_key',
  'unknown_api_key',
  'revoked_api_key',
  'expired_api_key',
  'plan_without_api_access',
  'rate_limited',
  'invalid_parameter',
  'device_not_found',
  'not_found',
  'method_not_allowed',
  'service_unavailable',
  'internal_error',
  'multiple_credentials',
  // The write routes' (D51, D52).
  'invalid_body',
  'payload_too_large',
  'conflict',
  'invalid_field',
  'unsupported_media_type',
  'precondition_failed',
  'insufficient_scope',
  // The POST write routes' Idempotency-Key (D53).
  'invalid_header',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  // A route that is not a list, asked for CSV only (D62, P116).
  'not_acceptable',
];

let resolved: ResolvedDocument;

beforeAll(async () => {
  const validator = new Validator();
  const result = await validator.validate(JSON.parse(JSON.stringify(openApiDocument)) as Record<string, unknown>);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  resolved = validator.resolveRefs() as unknown as ResolvedDocument;
});

/**
 * The documented responses of a method on a path, by status: the operation's for GET and HEAD;
 * for any other method, which is no operation, the 405 the path item points at (D17).
 */
function documentedResponses(path: string, method: string): Record<string, ResponseSpec> {
  const item = resolved.paths[path];
  expect(item, `${path} documented`).toBeDefined();
  if (
    ((method === 'get' || method === 'head') && path !== '/api/v1/devices/{id}' && !MAINTENANCE_PATHS.includes(path)) ||
    INGEST_PATHS[path]?.includes(method) ||
    WRITE_OPERATIONS[path]?.includes(method) ||
    MANAGED_PATHS[path]?.includes(method)
  ) {
    const operation = item![method] as OperationSpec | undefined;
    expect(operation, `${method.toUpperCase()} ${path} documented`).toBeDefined();
    return operation!.responses;
  }
  expect(item![method], `${method.toUpperCase()} ${path} is no operation`).toBeUndefined();
  return { '405': item!['x-method-not-allowed'] };
}

/**
 * Checks a live response against the document: the status is documented for the operation, every
 * required header is present and matches its schema, and the body matches the response schema.
 * Returns the error code of the body, if any.
 */
async function expectDocumented(response: Response, path: string, method: string): Promise<string | undefined> {
  const where = `${method.toUpperCase()} ${path} → ${response.status}`;
  return expectMatches(response, documentedResponses(path, method)[String(response.status)], where, method);
}

async function expectMatches(
  response: Response,
  spec: ResponseSpec | undefined,
  where: string,
  method: string,
): Promise<string | undefined> {
  expect(spec, `${where}: status documented`).toBeDefined();

  for (const [name, header] of Object.entries(spec!.headers ?? {})) {
    const value = response.headers.get(name);
    if (header.required) expect(value, `${where}: header ${name}`).not.toBeNull();
    if (value === null) continue;
    const typed = header.schema.type === 'integer' ? (/^\d+$/.test(value) ? Number(value) : value) : value;
    const validate = validatorFor(header.schema);
    expect(validate(typed), `${where}: header ${name}=${value} ${ajv.errorsText(validate.errors)}`).toBe(true);
  }

  const text = await response.text();
  if (method === 'head' || !spec!.content) {
    expect(text, `${where}: no body`).toBe('');
    return undefined;
  }
  const [mediaType, media] = Object.entries(spec!.content)[0]!;
  expect(response.headers.get('Content-Type'), where).toBe(`${mediaType}; charset=UTF-8`);
  if (mediaType !== 'application/json') return undefined;
  const body = JSON.parse(text) as { error?: { code: string } };
  const validate = validatorFor(media.schema);
  expect(validate(body), `${where}: body ${ajv.errorsText(validate.errors)}`).toBe(true);
  return body.error?.code;
}

/** A fixture whose store fails the key lookup with the error given: every data operation then answers 500 or 503. */
const brokenFixture = (error: () => Error) =>
  createFixture({ wrapStore: (store): FleetHoursStore => ({ ...store, findApiKey: async () => Promise.reject(error()) }) });

describe('openApiDocument', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(openApiDocument)) as Record<string, unknown>);
    expect(result).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
  });

  it('is served at /api/v1/openapi.json without a key and without rate limiting (P14)', async () => {
    const { request } = await createFixture({ rateLimits: { unauthenticated: 1 } });
    for (let count = 0; count < 3; count += 1) {
      const response = await request('/api/v1/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
      await expectDocumented(response.clone(), '/api/v1/openapi.json', 'get');
      expect(await response.json()).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument({ rateLimits: { unauthenticated: 1 } }))));
    }
  });

  it('is, with the default limits, the exported openApiDocument', async () => {
    const { app } = await createFixture();
    expect(await (await app.request('/api/v1/openapi.json')).json()).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('describes the limits the app was configured with', async () => {
    const { request } = await createFixture({ rateLimits: { hours: 45 } });
    const served = (await (await request('/api/v1/openapi.json')).json()) as typeof openApiDocument;
    expect(served).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument({ rateLimits: { hours: 45 } }))));
    expect(JSON.stringify(served.paths['/api/v1/devices/{id}/hours'])).toContain('Rate limit: 45 requests per minute');
  });

  it('documents every route the app serves, and only those', () => {
    expect(Object.keys(openApiDocument.paths).sort()).toEqual(
      [
        ...DATA_PATHS,
        ...MAINTENANCE_PATHS,
        '/api/v1/openapi.json',
        '/docs',
        ...Object.keys(INGEST_PATHS),
        ...Object.keys(MANAGED_PATHS),
      ].sort(),
    );
    for (const path of MAINTENANCE_PATHS)
      expect(Object.keys(openApiDocument.paths[path]!).filter((field) => METHODS.some((method) => method === field))).toEqual([
        ...WRITE_OPERATIONS[path]!,
      ]);
    for (const [path, methods] of Object.entries(MANAGED_PATHS))
      expect(
        Object.keys(openApiDocument.paths[path]!)
          .filter((field) => METHODS.some((method) => method === field))
          .sort(),
      ).toEqual([...methods].sort());
    for (const path of DATA_PATHS)
      expect(Object.keys(openApiDocument.paths[path]!).filter((field) => METHODS.some((method) => method === field))).toEqual([
        ...(path === '/api/v1/devices/{id}' ? [] : SERVED_METHODS),
        ...(WRITE_OPERATIONS[path] ?? []),
      ]);
    for (const [path, methods] of Object.entries(INGEST_PATHS)) {
      expect(Object.keys(openApiDocument.paths[path]!).filter((field) => METHODS.some((method) => method === field))).toEqual([...methods]);
    }
  });

  it('describes the 405 of other methods once, never as operations (D17)', () => {
    const operations = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((field) => METHODS.some((method) => method === field))
        .map((method) => `${method} ${path}`),
    );
    // Ingestion (docs/ingestion.md) and the write routes (D52) are the places that take other methods.
    const ingestion = Object.entries({ ...INGEST_PATHS, ...WRITE_OPERATIONS, ...MANAGED_PATHS }).flatMap(([path, methods]) =>
      methods.map((method) => `${method} ${path}`),
    );
    expect(
      operations.filter((operation) => !operation.startsWith('get ') && !operation.startsWith('head ') && !ingestion.includes(operation)),
    ).toEqual([]);
    for (const item of Object.values(openApiDocument.paths))
      expect(item['x-method-not-allowed']).toEqual({ $ref: '#/components/responses/MethodNotAllowed' });
    expect(openApiDocument['x-not-found']).toEqual({ $ref: '#/components/responses/NotFound' });
    const operationResponses = Object.values(openApiDocument.paths).flatMap((item) =>
      Object.values(item).flatMap((field) => Object.keys((field as { responses?: object }).responses ?? {})),
    );
    expect(operationResponses).not.toContain('405');
  });

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(openApiDocument.paths).flatMap((item) =>
      METHODS.flatMap((method) => (item[method] ? [(item[method] as { operationId?: string }).operationId] : [])),
    );
    expect(ids).not.toContain(undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listDevices',
        'getDeviceHours',
        'getDeviceDailyHours',
        'getDeviceMeter',
        'getDeviceService',
        'getFleetHours',
        'getFleetDailyHours',
        'getFleetMeter',
        'getFleetService',
        'getOpenApiDocument',
        'getDocsPage',
      ]),
    );
  });

  it('gives examples that match their own schemas, and the service endpoints theirs (D34, D39)', () => {
    const schemas = resolved.components.schemas;
    for (const name of ['Meter', 'ServiceBody', 'FleetMeterPage', 'FleetServicePage', 'FleetHoursPage', 'FleetDailyHoursPage']) {
      const schema = schemas[name]!;
      const validate = validatorFor(schema);
      const examples = (schema.examples ?? []) as unknown[];
      if (name !== 'Meter') expect(examples.length, `${name} has an example`).toBeGreaterThan(0);
      for (const example of examples) expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const statusParameter = (
      resolved.paths['/api/v1/service']!.get as unknown as { parameters: { name: string; schema: Schema }[] }
    ).parameters.find((parameter) => parameter.name === 'status')!;
    const validateStatus = validatorFor(statusParameter.schema);
    for (const value of ['ok', 'due_soon,overdue', 'overdue,ok,due_soon']) expect(validateStatus(value), value).toBe(true);
    for (const value of ['late', '', 'overdue,', 'OK', 'ok,,overdue']) expect(validateStatus(value), value).toBe(false);
    expect((schemas.ServiceStatus as { enum: string[] }).enum).toEqual(['ok', 'due_soon', 'overdue']);
  });

  it('states the license of the project, MIT like the LICENSE file', async () => {
    const license = await readFile(new URL('../../../../LICENSE', import.meta.url), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(openApiDocument.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  describe('names the path the app is mounted at as its server', () => {
    it('`/` when the app is served alone', async () => {
      const { request } = await createFixture();
      expect(((await (await request('/api/v1/openapi.json')).json()) as typeof openApiDocument).servers).toEqual([
        { url: '/', description: expect.any(String) },
      ]);
      expect(openApiDocument.servers[0].url).toBe('/');
    });

    it('the prefix, under each prefix it is mounted at, in the document and the reference page', async () => {
      const { app, keys } = await createFixture();
      const host = new Hono().route('/fleet', app).route('/depots/north', app);
      for (const prefix of ['/fleet', '/depots/north']) {
        const served = (await (await host.request(`${prefix}/api/v1/openapi.json`)).json()) as typeof openApiDocument;
        expect(served).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument({ serverUrl: prefix }))));
        expect(served.servers[0].url).toBe(prefix);
        // The server URL and a path of the document make the URL the app answers at.
        const devices = await host.request(`${served.servers[0].url}${DATA_PATHS[0]}`, {
          headers: { Authorization: `Bearer ${keys.acme.key}` },
        });
        expect(devices.status).toBe(200);
        const page = await (await host.request(`${prefix}/docs`)).text();
        expect(page).toContain(`"servers":[{"url":${JSON.stringify(prefix)}`);
      }
      expect(((await (await host.request('/fleet/api/v1/openapi.json')).json()) as typeof openApiDocument).servers[0].url).toBe('/fleet');
    });
  });

  it('lists exactly the error codes the read API answers (D16, P22), with their statuses from the error table', () => {
    const schemas = openApiDocument.components.schemas as Record<
      string,
      { properties: { error: { properties: { code: { enum: string[] } } } } }
    >;
    expect(schemas.Error!.properties.error.properties.code.enum).toEqual(READ_API_CODES);
    const responses = resolved as unknown as { components: { responses: Record<string, ResponseSpec> } };
    for (const [name, response] of Object.entries(responses.components.responses)) {
      const schema = response.content!['application/json']!.schema as {
        allOf: [unknown, { properties: { error: { properties: { status: { const: number }; code: { enum: string[] } } } } }];
      };
      const { status, code } = schema.allOf[1].properties.error.properties;
      for (const each of code.enum)
        expect([name, each, ERROR_TABLE[each as keyof typeof ERROR_TABLE].status]).toEqual([name, each, status.const]);
    }
  });

  describe('matches the live responses of the app', () => {
    let base: Fixture;
    let limited: Fixture;
    let failing: Fixture;
    let unavailable: Fixture;
    const seen = new Set<string>();
    const codes = new Set<string>();

    beforeAll(async () => {
      base = await createFixture({
        rateLimits: {
          devices: 10_000,
          hours: 10_000,
          daily: 10_000,
          meter: 10_000,
          fleetHours: 10_000,
          fleetDaily: 10_000,
          fleetMeter: 10_000,
          service: 10_000,
          fleetService: 10_000,
          key: 10_000,
          unauthenticated: 10_000,
          writes: 10_000,
          manageReads: 10_000,
        },
      });
      limited = await createFixture({
        rateLimits: {
          devices: 1,
          hours: 1,
          daily: 1,
          meter: 1,
          fleetHours: 1,
          fleetDaily: 1,
          fleetMeter: 1,
          service: 1,
          fleetService: 1,
          key: 1,
          aempFleet: 1,
          aempEquipment: 1,
          aempSeries: 1,
          utilization: 1,
          fleetUtilization: 1,
          writes: 1,
          manageReads: 1,
        },
      });
      failing = await brokenFixture(() => new Error('relation "api_keys" does not exist'));
      unavailable = await brokenFixture(() => new StorageUnavailableError());
    });

    // D64: the AEMP routes' own path parameters (`startUTC` given, a bad one for the 400).
    const concrete = (path: string, fixture: Fixture, id = String(fixture.devices.newYork.id), startUTC = '2026-03-01') =>
      path
        .replace('{id}', id)
        .replace('{page}', '1')
        .replace('{kind}', 'CumulativeOperatingHours')
        .replace('{startUTC}', startUTC)
        .replace('{endUTC}', '2026-03-31');

    for (const path of DATA_PATHS) {
      for (const method of METHODS.filter((each) => !WRITE_OPERATIONS[path]?.includes(each))) {
        it(`${method.toUpperCase()} ${path}: every documented status is produced and matches its schema`, async () => {
          const statuses = Object.keys(documentedResponses(path, method));
          // The change log (D55) needs a manage key (P88); every other read path a read key.
          const keyOf = (fixture: Fixture) => (path === '/api/v1/audit' ? fixture.keys.acmeManage.key : fixture.keys.acme.key);
          for (const status of statuses) {
            const send = (fixture: Fixture, key: string | null, query = '', id?: string, startUTC?: string, accept?: string) =>
              fixture.request(
                (id && !path.includes('{id}') ? concrete(path, fixture).replace(/\/1$/, `/${id}`) : concrete(path, fixture, id, startUTC)) +
                  query,
                key,
                { method: method.toUpperCase(), ...(accept ? { headers: { Accept: accept } } : {}) },
              );
            let response: Response;
            switch (status) {
              case '200':
              case '405':
                response = await send(base, keyOf(base));
                break;
              case '400':
                // An impossible date (D7), on the fleet endpoints a page size out of range (D32), on the list an empty tag (D61).
                response = path.startsWith('/aemp/')
                  ? await send(base, keyOf(base), '', undefined, '2026-03-01T00:00:00+01:00')
                  : await send(
                      base,
                      keyOf(base),
                      path === '/api/v1/devices' ? '?tag=' : path.startsWith('/api/v1/devices') ? '?from=2026-02-30' : '?limit=0',
                    );
                break;
              case '401':
                response = await send(base, null);
                break;
              case '403':
                response = await send(base, base.keys.starter.key);
                break;
              case '404':
                response = await send(base, keyOf(base), '', '999');
                break;
              case '406':
                // P116: a route that is not a list, asked for CSV only.
                response = await send(base, keyOf(base), '', undefined, undefined, 'text/csv');
                break;
              case '429':
                await send(limited, keyOf(limited));
                response = await send(limited, keyOf(limited));
                break;
              case '500':
                response = await send(failing, keyOf(failing));
                break;
              case '503':
                response = await send(unavailable, keyOf(unavailable));
                break;
              default:
                throw new Error(`No scenario for documented status ${status}`);
            }
            expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} ${status}`);
            const code = await expectDocumented(response, path, method);
            if (code) codes.add(code);
            seen.add(status);
          }
        });
      }
    }

    for (const [path, methods] of Object.entries(WRITE_OPERATIONS).filter(([path]) => !MAINTENANCE_PATHS.includes(path))) {
      for (const method of methods) {
        it(`${method.toUpperCase()} ${path}: every documented status of the write route is produced and matches its schema (D51, D52)`, async () => {
          let imei = 490_154_203_237_000;
          const valid = () =>
            path.endsWith('{id}') ? { name: 'Truck NY' } : { name: 'Van', imei: String(++imei), model: 'FMC130', timezone: 'UTC' };
          const send = (
            fixture: Fixture,
            key: string | null,
            body: unknown,
            options: { id?: string; type?: string; ifMatch?: string; idempotencyKey?: string; accept?: string } = {},
          ) =>
            fixture.request(path.replace('{id}', options.id ?? String(fixture.devices.newYork.id)), key, {
              method: method.toUpperCase(),
              headers: {
                'Content-Type': options.type ?? 'application/json',
                ...(options.accept ? { Accept: options.accept } : {}),
                ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}),
                ...(options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey }),
              },
              body: typeof body === 'string' ? body : JSON.stringify(body),
            });
          // D53: a request that holds its key, still running: the same request again is 409.
          const heldKey = async (body: unknown) => {
            const key = `held-${++imei}`;
            const url = `http://localhost${path}`;
            const fingerprint = await requestFingerprint(method.toUpperCase(), url, JSON.stringify(body));
            await base.fleetHours.idempotency.begin({ accountId: base.accounts.acme.id, key, fingerprint, claimId: key });
            return key;
          };
          for (const status of Object.keys(documentedResponses(path, method))) {
            const responses: Response[] = [];
            switch (status) {
              case '200':
              case '201':
                responses.push(await send(base, base.keys.acmeManage.key, valid()));
                if (method === 'post') {
                  // D53: an answer given again, with Idempotent-Replayed.
                  const body = valid();
                  const key = `replayed-${imei}`;
                  await send(base, base.keys.acmeManage.key, body, { idempotencyKey: key });
                  const replayed = await send(base, base.keys.acmeManage.key, body, { idempotencyKey: key });
                  expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
                  responses.push(replayed);
                }
                break;
              case '400':
                responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), colour: 'red' }));
                responses.push(await send(base, base.keys.acmeManage.key, '{"name":'));
                if (method === 'post') responses.push(await send(base, base.keys.acmeManage.key, valid(), { idempotencyKey: 'not a key' }));
                break;
              case '401':
                responses.push(await send(base, null, valid()));
                break;
              case '403':
                responses.push(await send(base, base.keys.acme.key, valid()));
                responses.push(await send(base, base.keys.starterManage.key, valid()));
                break;
              case '404':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { id: '999' }));
                break;
              case '406':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { accept: 'text/csv' }));
                break;
              case '409':
                responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), imei: base.devices.kathmandu.imei }));
                if (method === 'post') {
                  const body = valid();
                  responses.push(await send(base, base.keys.acmeManage.key, body, { idempotencyKey: await heldKey(body) }));
                }
                break;
              case '422': {
                const key = `reused-${++imei}`;
                await send(base, base.keys.acmeManage.key, valid(), { idempotencyKey: key });
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { idempotencyKey: key }));
                break;
              }
              case '412':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { ifMatch: '"d-0000000000000000"' }));
                break;
              case '413':
                responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), name: 'x'.repeat(70_000) }));
                break;
              case '415':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { type: 'text/plain' }));
                break;
              case '429':
                await send(limited, limited.keys.acmeManage.key, valid());
                responses.push(await send(limited, limited.keys.acmeManage.key, valid()));
                break;
              case '500':
                responses.push(await send(failing, failing.keys.acmeManage.key, valid()));
                break;
              case '503':
                responses.push(await send(unavailable, unavailable.keys.acmeManage.key, valid()));
                break;
              default:
                throw new Error(`No scenario for documented status ${status}`);
            }
            for (const response of responses) {
              expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} ${status}`);
              const code = await expectDocumented(response, path, method);
              if (code) codes.add(code);
              seen.add(status);
            }
          }
        });
      }
    }

    // Readings, schedules and services done (P76): every documented status of each operation, and
    // the 405 of another method on each path.
    for (const path of MAINTENANCE_PATHS) {
      for (const method of [...WRITE_OPERATIONS[path]!, 'put']) {
        it(`${method.toUpperCase()} ${path}: every documented status is produced and matches its schema (D38, D39, D52)`, async () => {
          let made = 0;
          const schedule = async (fixture: Fixture) =>
            (await fixture.store.createServiceSchedule({
              deviceId: fixture.devices.newYork.id,
              name: `Schedule ${++made}`,
              intervalSeconds: 900_000,
              lastDoneAt: utcSeconds(2026, 11, 1),
              now: utcSeconds(2026, 11, 1),
            }))!;
          const reading = async (fixture: Fixture) =>
            (await fixture.store.addHourMeterReading({
              deviceId: fixture.devices.newYork.id,
              readAt: utcSeconds(2026, 10, 1) + ++made,
              readingSeconds: 3600,
              now: utcSeconds(2026, 11, 1),
            }))!;
          /** The path with ids of resources made for the request (fresh ones: a removal uses its own up). */
          const at = async (fixture: Fixture, deviceId?: string) => {
            let concretePath = path.replace('{id}', deviceId ?? String(fixture.devices.newYork.id));
            if (path.includes('{reading_id}')) concretePath = concretePath.replace('{reading_id}', String((await reading(fixture)).id));
            if (path.includes('{schedule_id}')) concretePath = concretePath.replace('{schedule_id}', String((await schedule(fixture)).id));
            return concretePath;
          };
          const hasBody = method === 'post' || method === 'patch' || method === 'put';
          const valid = () =>
            path.endsWith('/readings')
              ? { reading_seconds: 7200 }
              : path.endsWith('/schedules')
                ? { name: `New ${++made}`, interval_seconds: 36_000 }
                : path.endsWith('/done')
                  ? { hour_meter_seconds: 7200 }
                  : { name: `Renamed ${++made}` };
          const send = async (
            fixture: Fixture,
            key: string | null,
            body: unknown,
            options: {
              deviceId?: string;
              type?: string;
              ifMatch?: string;
              query?: string;
              idempotencyKey?: string;
              path?: string;
              accept?: string;
            } = {},
          ) =>
            fixture.request((options.path ?? (await at(fixture, options.deviceId))) + (options.query ?? ''), key, {
              method: method.toUpperCase(),
              headers: {
                ...(options.accept ? { Accept: options.accept } : {}),
                ...(hasBody ? { 'Content-Type': options.type ?? 'application/json' } : {}),
                ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}),
                ...(options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey }),
              },
              ...(hasBody ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
            });
          // D53: a request that holds its key, still running: the same request again is 409.
          const heldKey = async (concretePath: string, body: unknown) => {
            const key = `held-${++made}`;
            const fingerprint = await requestFingerprint(method.toUpperCase(), `http://localhost${concretePath}`, JSON.stringify(body));
            await base.fleetHours.idempotency.begin({ accountId: base.accounts.acme.id, key, fingerprint, claimId: key });
            return key;
          };
          for (const status of Object.keys(documentedResponses(path, method))) {
            const responses: Response[] = [];
            switch (status) {
              case '200':
              case '201':
              case '204':
                responses.push(await send(base, base.keys.acmeManage.key, valid()));
                break;
              case '400':
                if (method === 'get' || method === 'head')
                  responses.push(await send(base, base.keys.acmeManage.key, null, { query: '?limit=0' }));
                else {
                  responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), colour: 'red' }));
                  responses.push(await send(base, base.keys.acmeManage.key, '{"name":'));
                }
                break;
              case '401':
                responses.push(await send(base, null, valid()));
                break;
              case '403':
                responses.push(await send(base, base.keys.acme.key, valid()));
                responses.push(await send(base, base.keys.starterManage.key, valid()));
                break;
              case '404':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { deviceId: '999' }));
                break;
              case '406':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { accept: 'text/csv' }));
                break;
              case '405':
                responses.push(await send(base, base.keys.acmeManage.key, valid()));
                break;
              case '409': {
                if (!path.endsWith('/readings') && !path.endsWith('/done')) {
                  const taken = await schedule(base);
                  responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), name: taken.name }));
                }
                if (method === 'post') {
                  const body = valid();
                  const concretePath = await at(base);
                  const idempotencyKey = await heldKey(concretePath, body);
                  responses.push(await send(base, base.keys.acmeManage.key, body, { path: concretePath, idempotencyKey }));
                }
                break;
              }
              case '422': {
                const idempotencyKey = `reused-${++made}`;
                const concretePath = await at(base);
                await send(base, base.keys.acmeManage.key, valid(), { path: concretePath, idempotencyKey });
                responses.push(
                  await send(base, base.keys.acmeManage.key, { ...valid(), extra: ++made }, { path: concretePath, idempotencyKey }),
                );
                break;
              }
              case '412':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { ifMatch: '"s-0000000000000000"' }));
                break;
              case '413':
                responses.push(await send(base, base.keys.acmeManage.key, { ...valid(), name: 'x'.repeat(70_000) }));
                break;
              case '415':
                responses.push(await send(base, base.keys.acmeManage.key, valid(), { type: 'text/plain' }));
                break;
              case '429':
                await send(limited, limited.keys.acmeManage.key, valid());
                responses.push(await send(limited, limited.keys.acmeManage.key, valid()));
                break;
              case '500':
                responses.push(await send(failing, failing.keys.acmeManage.key, valid()));
                break;
              case '503':
                responses.push(await send(unavailable, unavailable.keys.acmeManage.key, valid()));
                break;
              default:
                throw new Error(`No scenario for documented status ${status}`);
            }
            for (const response of responses) {
              expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} ${status}`);
              const code = await expectDocumented(response, path, method);
              if (code) codes.add(code);
              seen.add(status);
            }
          }
        });
      }
    }

    it('the service and meter bodies with readings and schedules of every status match the document too (D38, D39)', async () => {
      const { createServiceFixture } = await import('../testing/service-fixture.js');
      const fixture = await createServiceFixture();
      const bodies: unknown[] = [];
      for (const [path, concretePath] of [
        ['/api/v1/devices/{id}/service', `/api/v1/devices/${fixture.devices.newYork.id}/service`],
        ['/api/v1/devices/{id}/service', `/api/v1/devices/${fixture.devices.kathmandu.id}/service`],
        ['/api/v1/devices/{id}/meter', `/api/v1/devices/${fixture.devices.newYork.id}/meter`],
        ['/api/v1/service', '/api/v1/service?status=due_soon,overdue&limit=1'],
        ['/api/v1/meter', '/api/v1/meter'],
      ] as const) {
        const response = await fixture.request(concretePath, fixture.keys.acme.key);
        expect(`${concretePath} ${response.status}`).toBe(`${concretePath} 200`);
        bodies.push(await response.clone().json());
        await expectDocumented(response, path, 'get');
      }
      // Null calendar fields, every status, a calibrated hour meter and a next cursor were all checked.
      const text = JSON.stringify(bodies);
      for (const shown of [
        '"due_date":null',
        '"status":"ok"',
        '"status":"due_soon"',
        '"status":"overdue"',
        '"hour_meter_read_at":"',
        '"next_cursor":"',
      ])
        expect(text).toContain(shown);
    });

    it('the other 401 codes, the unknown-route 404 and /docs match the document too', async () => {
      for (const key of [
        base.keys.revoked.key,
        base.keys.expired.key,
        'fh_never_issued',
        `${base.keys.acme.key}, Bearer ${base.keys.other.key}`,
      ]) {
        const code = await expectDocumented(await base.request('/api/v1/devices', key), '/api/v1/devices', 'get');
        codes.add(code!);
      }
      for (const path of ['/api/v1/nothing-here', '/api/v2/devices']) {
        const unknownRoute = await base.request(path, base.keys.acme.key);
        expect(unknownRoute.status).toBe(404);
        codes.add((await expectMatches(unknownRoute, resolved['x-not-found'], `GET ${path} → 404`, 'get'))!);
      }

      await expectDocumented(await base.request('/docs'), '/docs', 'get');
      // The reference paths are not counted (P14): their 405 has no rate-limit headers, unlike a data path's.
      for (const [path, method] of [
        ['/docs', 'delete'],
        ['/api/v1/openapi.json', 'put'],
      ] as const) {
        const response = await base.request(path, null, { method: method.toUpperCase() });
        expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
        await expectDocumented(response, path, method);
      }
      const counted = await base.request('/api/v1/devices', base.keys.acme.key, { method: 'POST' });
      expect(counted.headers.get('X-RateLimit-Limit')).not.toBeNull();
      await expectDocumented(counted, '/api/v1/devices', 'post');
    });

    it('the ingestion operations: every documented status is produced and matches its schema (docs/ingestion.md)', async () => {
      const { createIngestFixture } = await import('../testing/ingest-fixture.js');
      const { createFleetHoursApp } = await import('../create-fleet-hours-app.js');
      const ingest = await createIngestFixture({ rateLimits: { ingest: 10_000, unauthenticated: 10_000 } });
      const limitedIngest = await createIngestFixture({ rateLimits: { ingest: 1 } });
      // D43: a server that keeps telemetry one day answers an older point 409 beyond_retention.
      const retaining = await createIngestFixture({ telemetryRetentionDays: 1 });
      const failingWrite = (make: () => Error) =>
        createIngestFixture({ wrapStore: (store): FleetHoursStore => ({ ...store, writeTelemetry: async () => Promise.reject(make()) }) });
      const broken = await failingWrite(() => new Error('relation "telemetry_points" does not exist'));
      const down = await failingWrite(() => new StorageUnavailableError());
      type IngestFixtureType = typeof ingest;
      const { idle, foreign } = ingest.devices;
      const stalledApp = createFleetHoursApp({
        fleetHours: ingest.fleetHours,
        now: ingest.now,
        logger: () => {},
        ingest: { bodyTimeoutMs: 20 },
      });
      const ingestCodes = new Set<string>();
      const send = (
        fixture: IngestFixtureType,
        path: string,
        method: string,
        options: { token?: string | null; imei?: string; speed?: number; time?: number; tooLarge?: boolean; stall?: boolean } = {},
      ) => {
        const token = options.token === undefined ? fixture.tokens.acme.token : options.token;
        const time = options.time ?? fixture.nowSeconds;
        const speed = options.speed ?? 3;
        const imei = options.imei ?? idle.imei!;
        const auth: Record<string, string> = token && !path.startsWith('/ingest/osmand') ? { Authorization: `Bearer ${token}` } : {};
        const app = options.stall ? stalledApp : fixture.app;
        const stalled = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('{')) });
        const init = (contentType: string, body: string): RequestInit =>
          options.stall
            ? ({
                method: method.toUpperCase(),
                headers: { ...auth, 'Content-Type': contentType },
                body: stalled,
                duplex: 'half',
              } as RequestInit)
            : {
                method: method.toUpperCase(),
                headers: {
                  ...auth,
                  'Content-Type': contentType,
                  ...(options.tooLarge ? { 'Content-Length': String(6 * 1024 * 1024) } : {}),
                },
                body,
              };
        if (path === '/ingest/v1/telemetry')
          return app.request(path, init('application/x-ndjson', JSON.stringify({ imei, time, ignition: true, speed_kmh: speed })));
        if (path === '/ingest/traccar') {
          const at = new Date(time * 1000).toISOString().replace('Z', '+00:00');
          return app.request(
            path,
            init(
              'application/json',
              JSON.stringify({
                position: { deviceTime: at, fixTime: at, speed, attributes: { ignition: true } },
                device: { uniqueId: imei },
              }),
            ),
          );
        }
        const query = new URLSearchParams({ id: imei, timestamp: String(time), speed: String(speed), ignition: 'true' });
        const url = `/ingest/osmand/${token ?? ''}?${String(query)}`;
        if (method === 'get') return app.request(url);
        return app.request(url, options.stall || options.tooLarge ? init('application/x-www-form-urlencoded', '') : { method: 'POST' });
      };
      const conflictAt = utcSeconds(2026, 11, 30, 8);
      await ingest.store.importSegments({
        deviceId: idle.id,
        segments: [{ startedAt: conflictAt, endedAt: conflictAt + 3600, state: 'moving' }],
      });
      for (const [path, methods] of Object.entries(INGEST_PATHS)) {
        for (const method of methods) {
          const statuses = Object.keys(documentedResponses(path, method));
          const withBody = method === 'post';
          expect(statuses.sort()).toEqual([
            '200',
            '400',
            '401',
            ...(withBody ? ['408'] : []),
            '409',
            ...(withBody ? ['413'] : []),
            '422',
            '429',
            '500',
            '503',
          ]);
          for (const status of statuses) {
            let response: Response;
            switch (status) {
              case '200':
                response = await send(ingest, path, method, { time: ingest.nowSeconds - 60 });
                break;
              case '400':
                response = await send(ingest, path, method, { speed: -1 });
                break;
              case '401':
                response = await send(ingest, path, method, { token: ingest.keys.acme.key });
                break;
              case '408':
                response = await send(ingest, path, method, { stall: true });
                break;
              case '409':
                response = await send(ingest, path, method, { time: conflictAt + 600 });
                break;
              case '413':
                response = await send(ingest, path, method, { tooLarge: true });
                break;
              case '422':
                response = await send(ingest, path, method, { imei: foreign.imei! });
                break;
              case '429':
                await send(limitedIngest, path, method);
                response = await send(limitedIngest, path, method);
                break;
              case '500':
                response = await send(broken, path, method);
                break;
              default:
                response = await send(down, path, method);
            }
            expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} ${status}`);
            const code = await expectDocumented(response, path, method);
            if (code) ingestCodes.add(code);
          }
          const old = await send(retaining, path, method, { token: retaining.tokens.acme.token, time: retaining.nowSeconds - 3 * 86_400 });
          expect(`${method} ${path} ${old.status}`).toBe(`${method} ${path} 409`);
          ingestCodes.add((await expectDocumented(old, path, method))!);
          const other = await ingest.app.request(path.replace('{token}', ingest.tokens.acme.token), {
            method: 'PUT',
            headers: { Authorization: `Bearer ${ingest.tokens.acme.token}` },
          });
          ingestCodes.add((await expectDocumented(other, path, 'put'))!);
        }
      }
      for (const token of [null, ingest.tokens.revoked.token, ingest.tokens.expired.token]) {
        ingestCodes.add(
          (await expectDocumented(await send(ingest, '/ingest/v1/telemetry', 'post', { token }), '/ingest/v1/telemetry', 'post'))!,
        );
      }
      const ingestSchema = (
        openApiDocument.components.schemas as Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }>
      ).IngestError!;
      expect([...ingestCodes].sort()).toEqual(
        ingestSchema.properties.error.properties.code.enum.filter((code) => !['not_found', 'multiple_credentials'].includes(code)).sort(),
      );
    });

    it('every status of the spec and D7/D11/D16–D18 (and D53) was seen, and every error code', () => {
      expect([...seen].sort()).toEqual([
        '200',
        '201',
        '204',
        '400',
        '401',
        '403',
        '404',
        '405',
        '406',
        '409',
        '412',
        '413',
        '415',
        '422',
        '429',
        '500',
        '503',
      ]);
      expect([...codes].sort()).toEqual([...READ_API_CODES].sort());
    });
  });
});

describe('openApiDocument matches the live responses of the webhook, ingest token and work calendar routes (P80–P83, P113)', () => {
  /** A fixture with an endpoint, a disabled endpoint, an event of the account and an ingest token. */
  const prepared = async (fixture: Fixture) => {
    const accountId = fixture.accounts.acme.id;
    const secret = `whsec_${'A'.repeat(43)}=`;
    const endpoint = (await fixture.store.createWebhookEndpoint({
      accountId,
      url: 'https://a.example/',
      eventTypes: ['device.silent'],
      secret,
      now: 1,
    }))!;
    const disabled = (await fixture.store.createWebhookEndpoint({
      accountId,
      url: 'https://b.example/',
      eventTypes: ['device.silent'],
      secret,
      now: 1,
    }))!;
    await fixture.store.updateWebhookEndpoint({ endpointId: disabled.id, changes: { enabled: false }, now: 1 });
    await fixture.store.raiseEvents({
      events: [{ id: 'evt_1', accountId, type: 'device.silent', deviceId: null, body: '{}', raisedAt: 1 }],
      now: 1,
    });
    const token = (await fixture.store.createIngestToken({
      accountId,
      fingerprint: 'f'.repeat(64),
      label: null,
      expiresAt: null,
      now: 1,
    }))!;
    // Removed by the success of a DELETE, which the other statuses come after.
    const spare = (await fixture.store.createWebhookEndpoint({
      accountId,
      url: 'https://s.example/',
      eventTypes: ['device.silent'],
      secret,
      now: 1,
    }))!;
    const spareToken = (await fixture.store.createIngestToken({
      accountId,
      fingerprint: 'e'.repeat(64),
      label: null,
      expiresAt: null,
      now: 1,
    }))!;
    // AEMP sources (P133): one to read and change, a spare to remove.
    const fields: AempSourceFields = {
      name: 'Cat',
      url: 'https://oem.example/aemp/Fleet/1',
      auth: { kind: 'bearer', token: 't' },
      pollEverySeconds: 3600,
      minIntervalPerUrlSeconds: 300,
      enabled: true,
    };
    const source = (await aempSourcesOf(fixture.store)!.createAempSource({ accountId, fields, now: 1 }))!;
    const spareSource = (await aempSourcesOf(fixture.store)!.createAempSource({ accountId, fields, now: 1 }))!;
    return { endpoint, disabled, token, spare, spareToken, source, spareSource };
  };
  const sendWebhookEvent = async () => ({ status: 204, durationMs: 3, error: null });

  for (const [path, methods] of Object.entries(MANAGED_PATHS)) {
    for (const method of methods) {
      it(`${method.toUpperCase()} ${path}: every documented status is produced and matches its schema`, async () => {
        const fixtures = {
          base: await createFixture({ sendWebhookEvent }),
          limited: await createFixture({ sendWebhookEvent, rateLimits: { writes: 1, manageReads: 1 } }),
          failing: await brokenFixture(() => new Error('relation "api_keys" does not exist')),
          unavailable: await brokenFixture(() => new StorageUnavailableError()),
        };
        const ids = await prepared(fixtures.base);
        await prepared(fixtures.limited);
        const operation = resolved.paths[path]![method] as OperationSpec & { requestBody?: unknown };
        const withBody = operation.requestBody !== undefined;
        const valid = path.endsWith('/webhooks')
          ? { url: 'https://c.example/' }
          : path.endsWith('/webhooks/{id}')
            ? { enabled: true }
            : path.endsWith('/ingest-tokens')
              ? { label: 'gate' }
              : path.endsWith('/calendar')
                ? { weekly: { mon: [['07:00', '17:00']], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] } }
                : path.endsWith('/aemp/sources')
                  ? { name: 'Volvo', url: 'https://oem.example/aemp/Fleet/1', auth: { kind: 'basic', username: 'u', password: 'p' } }
                  : path.endsWith('/aemp/sources/{id}')
                    ? { enabled: false }
                    : undefined;
        const onSource = path.includes('/aemp/sources/');
        // Work calendars (D58): the device's path names a device of the account.
        const onDevice = path.includes('/devices/');
        const send = (
          fixture: Fixture,
          key: string | null,
          options: {
            id?: number;
            body?: unknown;
            type?: string;
            ifMatch?: string;
            query?: string;
            idempotencyKey?: string;
            accept?: string;
          } = {},
        ) => {
          const id =
            options.id ??
            (path.includes('ingest-tokens')
              ? ids.token.id
              : onDevice
                ? fixture.devices.newYork.id
                : onSource
                  ? ids.source.id
                  : ids.endpoint.id);
          const concrete = path.replace('{id}', String(id)).replace('{event_id}', id === 999_999 ? 'evt_none' : 'evt_1');
          const body = options.body ?? (withBody ? valid : undefined);
          return fixture.request(`${concrete}${options.query ?? ''}`, key, {
            method: method.toUpperCase(),
            headers: {
              ...(options.accept ? { Accept: options.accept } : {}),
              ...(body === undefined ? {} : { 'Content-Type': options.type ?? 'application/json' }),
              ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}),
              ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}),
            },
            ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
          });
        };
        const manage = (fixture: Fixture) => fixture.keys.acmeManage.key;
        const { base, limited, failing, unavailable } = fixtures;
        for (const status of Object.keys(operation.responses)) {
          const responses: Response[] = [];
          switch (status) {
            case '200':
            case '201':
            case '202':
            case '204':
              responses.push(
                await send(base, manage(base), {
                  id: path.includes('ingest-tokens')
                    ? ids.spareToken.id
                    : onDevice
                      ? base.devices.newYork.id
                      : onSource
                        ? ids.spareSource.id
                        : ids.spare.id,
                }),
              );
              break;
            case '400':
              if (withBody) {
                responses.push(await send(base, manage(base), { body: { colour: 'red' } }));
                responses.push(await send(base, manage(base), { body: '{"url":' }));
              } else if (method === 'get') responses.push(await send(base, manage(base), { query: '?limit=0' }));
              // D53: a malformed Idempotency-Key on a POST.
              if (method === 'post') responses.push(await send(base, manage(base), { idempotencyKey: 'not a key' }));
              break;
            case '422': {
              // D53: a key used for another request (here another resource, or another body).
              const key = `reused-${path}`;
              await send(base, manage(base), {
                idempotencyKey: key,
                id: path.includes('{event_id}') ? 999_999 : ids.spare.id,
                ...(withBody ? { body: valid } : {}),
              });
              responses.push(
                await send(base, manage(base), {
                  idempotencyKey: key,
                  ...(withBody ? { body: { ...valid, url: 'https://d.example/' } } : {}),
                }),
              );
              break;
            }
            case '401':
              responses.push(await send(base, null));
              break;
            case '403':
              responses.push(await send(base, base.keys.acme.key));
              responses.push(await send(base, base.keys.starterManage.key));
              break;
            case '404':
              responses.push(await send(base, manage(base), { id: 999_999 }));
              break;
            case '406':
              responses.push(await send(base, manage(base), { accept: 'text/csv' }));
              break;
            case '409': {
              if (path.endsWith('/test')) responses.push(await send(base, manage(base), { id: ids.disabled.id }));
              // D53: a key whose first request still runs.
              const key = `held-${path}`;
              const id = path.includes('ingest-tokens') ? ids.token.id : ids.endpoint.id;
              const concrete = path.replace('{id}', String(id)).replace('{event_id}', 'evt_1');
              const fingerprint = await requestFingerprint('POST', `http://localhost${concrete}`, withBody ? JSON.stringify(valid) : '');
              await base.fleetHours.idempotency.begin({ accountId: base.accounts.acme.id, key, fingerprint, claimId: key });
              responses.push(await send(base, manage(base), { idempotencyKey: key }));
              break;
            }
            case '412':
              responses.push(await send(base, manage(base), { ifMatch: '"w-0000000000000000"' }));
              break;
            case '413':
              responses.push(await send(base, manage(base), { body: { url: 'x'.repeat(70_000) } }));
              break;
            case '415':
              responses.push(await send(base, manage(base), { type: 'text/plain' }));
              break;
            case '429':
              await send(limited, manage(limited));
              responses.push(await send(limited, manage(limited)));
              break;
            case '500':
              responses.push(await send(failing, manage(failing)));
              break;
            case '503':
              responses.push(await send(unavailable, manage(unavailable)));
              break;
            default:
              throw new Error(`No scenario for documented status ${status}`);
          }
          for (const response of responses) {
            expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} ${status}`);
            await expectDocumented(response, path, method);
          }
        }
      });
    }
  }
});
