import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';

/** The fields of an ICO file with one 32-bit image that a browser reads first. */
function readIcon(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const imageOffset = view.getUint32(18, true);
  return {
    reserved: view.getUint16(0, true),
    type: view.getUint16(2, true),
    images: view.getUint16(4, true),
    width: bytes[6],
    height: bytes[7],
    bitsPerPixel: view.getUint16(12, true),
    imageFits: imageOffset + view.getUint32(14, true) === bytes.byteLength,
    headerSize: view.getUint32(imageOffset, true),
  };
}

describe('GET /favicon.ico', () => {
  it('answers a 16×16 icon without a key, cached for a day, with a request id', async () => {
    const { request, logs } = await createFixture();
    const response = await request('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('image/x-icon');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=86400');
    expect(response.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(readIcon(new Uint8Array(await response.arrayBuffer()))).toEqual({
      reserved: 0,
      type: 1,
      images: 1,
      width: 16,
      height: 16,
      bitsPerPixel: 32,
      imageFits: true,
      headerSize: 40,
    });
    expect(logs.map((entry) => [entry.route, entry.status])).toEqual([['/favicon.ico', 200]]);
  });

  it('is not rate limited and uses none of the budget of the client address', async () => {
    const { request } = await createFixture({ rateLimits: { unauthenticated: 2 } });
    for (let count = 0; count < 5; count += 1) {
      const response = await request('/favicon.ico');
      expect([response.status, response.headers.get('X-RateLimit-Limit')]).toEqual([200, null]);
    }
    const unauthenticated = await request('/api/v1/devices');
    expect([unauthenticated.status, unauthenticated.headers.get('X-RateLimit-Remaining')]).toEqual([401, '1']);
  });

  it('answers HEAD with the headers only, and other methods 405 with Allow', async () => {
    const { request } = await createFixture();
    const head = await request('/favicon.ico', null, { method: 'HEAD' });
    expect([head.status, head.headers.get('Content-Type'), await head.text()]).toEqual([200, 'image/x-icon', '']);
    const post = await request('/favicon.ico', null, { method: 'POST' });
    expect([post.status, post.headers.get('Allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('is left to the host app when mounted in one', async () => {
    const fleetHoursApp = createFleetHoursApp({
      fleetHours: createFleetHours({ store: createMemoryStore(), now: Date.now }),
      logger: () => {},
    });
    const host = new Hono();
    host.get('/favicon.ico', (c) => c.text('the host icon'));
    host.route('/', fleetHoursApp);
    expect(await (await host.request('/favicon.ico')).text()).toBe('the host icon');
  });
});
