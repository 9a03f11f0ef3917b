import { createHash } from 'node:crypto';
import { Script } from 'node:vm';
import { Window } from 'happy-dom';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { openApiDocument } from '../openapi/openapi-document.js';
import { createFixture } from '../testing/fixture.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');
const inline = (html: string, tag: 'script' | 'style') =>
  [...html.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => ({
    open: match[0].slice(0, match[0].indexOf('>') + 1),
    body: match[1]!,
  }));

describe('GET /docs', () => {
  it('serves a self-contained HTML page without a key and without rate limiting', async () => {
    const { request } = await createFixture({ rateLimits: { unauthenticated: 1 } });
    for (let count = 0; count < 3; count += 1) {
      const response = await request('/docs');
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
      expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
      expect(response.headers.get('X-Request-Id')).not.toBeNull();
      expect(await response.text()).toMatch(/^<!doctype html>/);
    }
  });

  it('loads nothing from elsewhere: no external script, style, font, image or link, so it works offline', async () => {
    const html = await (await (await createFixture()).request('/docs')).text();
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/<img\b/i);
    // The only absolute URLs are example values inside the embedded OpenAPI text (a webhook endpoint's
    // URL, an AEMP source's), on the reserved example.com or .example, and the AEMP feed's XML namespace (D64), a name that is never
    // fetched: text shown, never loaded.
    const urls = html.match(/https?:\/\/[^"\\\s<`]+/gi) ?? [];
    const AEMP_NAMESPACE = 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501';
    expect(urls.filter((url) => !/^https:\/\/([a-z.]*example\.com|[a-z.]+\.example)\//.test(url) && url !== AEMP_NAMESPACE)).toEqual([]);
  });

  it('embeds the served OpenAPI document and a script that parses', async () => {
    const { request } = await createFixture();
    const html = await (await request('/docs')).text();
    const scripts = inline(html, 'script');
    expect(scripts.map((script) => script.open)).toEqual(['<script type="application/json" id="openapi-document">', '<script>']);
    const embedded = JSON.parse(scripts[0]!.body) as unknown;
    expect(embedded).toEqual(await (await request('/api/v1/openapi.json')).json());
    expect(scripts[0]!.body).not.toContain('</');
    expect(() => new Script(scripts[1]!.body)).not.toThrow();
    // The script calls the API on its own origin, relative to where the page is mounted.
    expect(scripts[1]!.body).toContain("location.pathname.replace(/\\/docs\\/?$/, '')");
    expect(scripts[1]!.body).toContain("'Bearer ' + keyInput.value.trim()");
  });

  it('admits exactly its inline script and style by hash, and connects only to its own origin', async () => {
    const response = await (await createFixture()).request('/docs');
    const html = await response.text();
    const policy = response.headers.get('Content-Security-Policy')!;
    const [, script] = inline(html, 'script');
    const [style] = inline(html, 'style');
    expect(policy).toContain(`script-src 'sha256-${sha256(script!.body)}'`);
    expect(policy).toContain(`style-src 'sha256-${sha256(style!.body)}'`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('cites no internal rule id (D11, P22 …), in the page or in the OpenAPI document it shows', async () => {
    const { request } = await createFixture();
    const ruleId = /\b[DP]\d+\b/g;
    expect((await (await request('/docs')).text()).match(ruleId)).toBeNull();
    expect((await (await request('/api/v1/openapi.json')).text()).match(ruleId)).toBeNull();
  });

  it('answers HEAD with the headers only', async () => {
    const response = await (await createFixture()).request('/docs', null, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
    expect(await response.text()).toBe('');
  });
});

describe('the /docs page in a browser (happy-dom)', () => {
  const windows: Window[] = [];
  afterEach(async () => {
    await Promise.all(windows.splice(0).map((window) => window.happyDOM.close()));
  });

  /** Loads the page as a browser would, with fetch routed into the app (the page's own origin). */
  const open = async (app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> }, pagePath = '/docs') => {
    const html = await (await app.request(pagePath)).text();
    const window = new Window({
      url: `http://127.0.0.1:3000${pagePath}`,
      settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
    });
    windows.push(window);
    const sent: { url: string; headers: Record<string, string> }[] = [];
    Object.assign(window, {
      fetch: async (url: string, init: RequestInit & { headers: Record<string, string> }) => {
        sent.push({ url, headers: init.headers });
        return app.request(url, init);
      },
    });
    window.document.write(html);
    await window.happyDOM.waitUntilComplete();
    const document = window.document;
    const operation = (path: string) =>
      [...document.querySelectorAll('.operation')].find((card) => card.querySelector('.path')?.textContent === path)!;
    const tryIt = async (path: string, values: Record<string, string>, key = '') => {
      (document.getElementById('api-key') as unknown as { value: string }).value = key;
      const card = operation(path);
      for (const input of card.querySelectorAll('form input')) {
        (input as unknown as { value: string }).value = values[input.getAttribute('name')!] ?? '';
      }
      (card.querySelector('form') as unknown as { requestSubmit(): void }).requestSubmit();
      const output = card.querySelector('form')!.nextElementSibling!;
      for (let wait = 0; wait < 50 && (output.textContent === '' || output.textContent === 'Sending…'); wait += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return output.textContent ?? '';
    };
    return { document, operation, tryIt, sent };
  };

  it('renders every GET operation, and the write operations (D52, ingestion), with their parameters and responses', async () => {
    const { app } = await createFixture();
    const { document, operation } = await open(app);
    expect(document.getElementById('title')!.textContent).toBe('Fleet Hours API');
    // Every operation of the document, in its order: GET, then the writes (removals included); HEAD is a note.
    const served = ['get', 'post', 'put', 'patch', 'delete'] as const;
    const operations = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
      served.filter((method) => (item as Record<string, unknown>)[method] !== undefined).map((method) => [path, method.toUpperCase()]),
    );
    expect([...document.querySelectorAll('.operation .path')].map((path) => path.textContent)).toEqual(operations.map(([path]) => path));
    expect([...document.querySelectorAll('.operation .method')].map((method) => method.textContent)).toEqual(
      operations.map(([, method]) => method),
    );
    // The read API first, in core's READ_ENDPOINTS order; the reference and ingestion last.
    expect(operations.slice(0, 11).map(([path]) => path)).toEqual([
      '/api/v1/devices',
      '/api/v1/devices',
      '/api/v1/devices/{id}/hours',
      '/api/v1/devices/{id}/hours/daily',
      '/api/v1/devices/{id}/meter',
      '/api/v1/hours',
      '/api/v1/hours/daily',
      '/api/v1/meter',
      '/api/v1/devices/{id}/service',
      '/api/v1/service',
      '/api/v1/key',
    ]);
    expect(operations.slice(-6).map(([path]) => path)).toEqual([
      '/api/v1/openapi.json',
      '/ingest/v1/telemetry',
      '/ingest/traccar',
      '/ingest/osmand/{token}',
      '/ingest/osmand/{token}',
      '/docs',
    ]);
    expect(new Set(operations.map(([, method]) => method))).toEqual(new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    // Ingestion: the request body with its example, the refusals, and no "Try it" (a write is not sent from the reference).
    const ingest = operation('/ingest/v1/telemetry');
    expect(ingest.textContent).toContain('application/x-ndjson');
    expect(ingest.textContent).toContain('"speed_kmh": 12.5');
    expect([...ingest.querySelectorAll('tbody tr td:first-child code')].map((code) => code.textContent)).toEqual([
      '200',
      '400',
      '401',
      '408',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(ingest.querySelector('form')).toBeNull();
    const hours = operation('/api/v1/devices/{id}/hours');
    expect([...hours.querySelectorAll('form input')].map((input) => input.getAttribute('name'))).toEqual(['id', 'from', 'to']);
    expect([...hours.querySelectorAll('tbody tr td:first-child code')].map((code) => code.textContent)).toEqual([
      'id',
      'from',
      'to',
      '200',
      '400',
      '401',
      '403',
      '404',
      // Not a list: CSV only is refused (D62).
      '406',
      '429',
      '500',
      '503',
    ]);
    expect(hours.textContent).toContain('answer 405 with an Allow header');
  });

  it('lists the fleet endpoints like every other, with limit and cursor, an example page, and a working "Try it" (D34)', async () => {
    const { app, keys, devices } = await createFixture();
    const page = await open(app);
    const fleet = page.operation('/api/v1/hours');
    expect([...fleet.querySelectorAll('form input')].map((input) => input.getAttribute('name'))).toEqual([
      'from',
      'to',
      'limit',
      'cursor',
      'tag',
    ]);
    expect([...fleet.querySelectorAll('tbody tr td:first-child code')].map((code) => code.textContent)).toEqual([
      'from',
      'to',
      'limit',
      'cursor',
      'tag',
      '200',
      '400',
      '401',
      '403',
      '429',
      '500',
      '503',
    ]);
    expect(fleet.textContent).toContain('next_cursor');
    // The example page of the body schema.
    expect(fleet.textContent).toContain('"examples"');
    expect([...page.operation('/api/v1/meter').querySelectorAll('form input')].map((input) => input.getAttribute('name'))).toEqual([
      'limit',
      'cursor',
      'tag',
    ]);
    const shown = await page.tryIt('/api/v1/hours', { from: '2026-03-08', to: '2026-03-08', limit: '1' }, keys.acme.key);
    expect(shown).toMatch(/^200 GET \/api\/v1\/hours\?from=2026-03-08&to=2026-03-08&limit=1/);
    expect(shown).toContain('x-ratelimit-limit: 60');
    expect(shown).toContain(`"device_id": ${devices.newYork.id}`);
    expect(shown).toContain('"next_cursor": "');
  });

  it('lists the service endpoints like every other, with the status filter, example bodies and a working "Try it" (D34, D39)', async () => {
    const { createServiceFixture } = await import('../testing/service-fixture.js');
    const { app, keys, devices } = await createServiceFixture();
    const page = await open(app);
    const single = page.operation('/api/v1/devices/{id}/service');
    expect([...single.querySelectorAll('form input')].map((input) => input.getAttribute('name'))).toEqual(['id']);
    expect([...single.querySelectorAll('tbody tr td:first-child code')].map((code) => code.textContent)).toEqual([
      'id',
      '200',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    // The body schema with its example: a schedule due soon and one overdue without a calendar interval.
    for (const shown of ['"remaining_days"', '"Engine oil"', '"due_date": null', '"overdue"', 'Rate limit: 30 requests per minute'])
      expect(single.textContent).toContain(shown);
    const fleet = page.operation('/api/v1/service');
    const inputs = [...fleet.querySelectorAll('form input')];
    expect(inputs.map((input) => input.getAttribute('name'))).toEqual(['limit', 'cursor', 'status', 'tag']);
    expect(inputs[2]!.getAttribute('placeholder')).toBe('e.g. due_soon,overdue (optional)');
    expect(fleet.textContent).toContain('Rate limit: 60 requests per minute');
    expect(page.operation('/api/v1/devices/{id}/meter').textContent).toContain('"hour_meter_read_at"');

    const shownSingle = await page.tryIt('/api/v1/devices/{id}/service', { id: String(devices.newYork.id) }, keys.acme.key);
    expect(shownSingle).toMatch(/^200 GET \/api\/v1\/devices\/\d+\/service/);
    expect(shownSingle).toContain('x-ratelimit-limit: 30');
    expect(shownSingle).toContain('"status": "overdue"');
    const shownFleet = await page.tryIt('/api/v1/service', { status: 'due_soon', limit: '1' }, keys.acme.key);
    expect(page.sent.at(-1)!.url).toBe('/api/v1/service?limit=1&status=due_soon');
    expect(shownFleet).toContain('x-ratelimit-limit: 60');
    expect(shownFleet).toContain(`"device_id": ${devices.newYork.id}`);
    expect(shownFleet).toContain('"next_cursor": "');
    const refused = await page.tryIt('/api/v1/service', { status: 'late' }, keys.acme.key);
    expect(refused).toMatch(/^400 /);
    expect(refused).toContain('Parameter status');
  });

  it('sends a request with the key typed in and shows status, rate-limit headers and body', async () => {
    const { app, keys, devices } = await createFixture();
    const page = await open(app);
    const shown = await page.tryIt(
      '/api/v1/devices/{id}/hours',
      { id: String(devices.newYork.id), from: '2026-03-08', to: '2026-03-08' },
      keys.acme.key,
    );
    expect(page.sent).toEqual([
      {
        url: `/api/v1/devices/${devices.newYork.id}/hours?from=2026-03-08&to=2026-03-08`,
        headers: { Authorization: `Bearer ${keys.acme.key}` },
      },
    ]);
    expect(shown).toMatch(/^200 GET \/api\/v1\/devices\/\d+\/hours\?from=2026-03-08&to=2026-03-08/);
    expect(shown).toContain('x-ratelimit-remaining: 29');
    expect(shown).toContain('"engine_seconds": 82800');
    expect(shown).not.toContain(keys.acme.key);
  });

  it('shows the error body of a refused request', async () => {
    const { app } = await createFixture();
    const shown = await (await open(app)).tryIt('/api/v1/devices', {});
    expect(shown).toMatch(/^401 /);
    expect(shown).toContain('"code": "missing_api_key"');
  });

  it('calls the API under the prefix it is mounted at', async () => {
    const { app, keys } = await createFixture();
    const host = new Hono().route('/fleet', app);
    const page = await open(host, '/fleet/docs');
    const shown = await page.tryIt('/api/v1/devices', {}, keys.acme.key);
    expect(page.sent[0]!.url).toBe('/fleet/api/v1/devices');
    expect(shown).toMatch(/^200 /);
    expect(shown).toContain('"name": "Truck NY"');
  });
});
