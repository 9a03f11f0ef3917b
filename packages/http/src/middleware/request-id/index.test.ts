import { describe, expect, it } from 'vitest';
import { createFixture } from '../../testing/fixture.js';

describe('requestId()', () => {
  it('echoes a sane incoming X-Request-Id on success and on errors, and logs it (P16)', async () => {
    const { request, keys, logs } = await createFixture();
    const cases = [
      ['/api/v1/devices', keys.acme.key, 'req-1234.abcd:5', 200],
      ['/api/v1/devices/1/hours', null, 'f2f4c7a0-9c1e-4f4e-8a53-3f1d2a6b7c8d', 401],
      ['/api/v1/devices/999/meter', keys.acme.key, 'x', 404],
    ] as const;
    for (const [path, key, id, status] of cases) {
      const response = await request(path, key, { headers: { 'X-Request-Id': id } });
      expect([response.status, response.headers.get('X-Request-Id')]).toEqual([status, id]);
    }
    expect(logs.map((entry) => entry.request_id)).toEqual(cases.map(([, , id]) => id));
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'id with spaces'],
    ['with markup', '<script>'],
    ['with quotes', '"quoted"'],
    ['empty', ''],
  ])('replaces an incoming id that is %s with a new UUID', async (_name, id) => {
    const { request, keys, logs } = await createFixture();
    const response = await request('/api/v1/devices', keys.acme.key, { headers: { 'X-Request-Id': id } });
    const sent = response.headers.get('X-Request-Id');
    expect(sent).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(logs[0]!.request_id).toBe(sent);
  });

  it('gives every request its own id', async () => {
    const { request, keys } = await createFixture();
    const ids = new Set<string | null>();
    for (let count = 0; count < 5; count += 1) ids.add((await request('/api/v1/devices', keys.acme.key)).headers.get('X-Request-Id'));
    expect(ids.size).toBe(5);
  });
});
