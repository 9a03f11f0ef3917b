import { aempSourcesOf, createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { afterEach, describe, expect, it } from 'vitest';
import { aempPolling } from './aemp-polling.js';
import { closeMockOems, startMockOem as oem, xml, xmlPage } from '../testing/mock-oem.js';

afterEach(closeMockOems);

const NOW = Date.parse('2026-11-28T12:00:00Z');
const NOW_SECONDS = NOW / 1000;

/** An account with machine P1, a source of `url` polled every hour, and the polling of a server over a memory store. */
async function setUp(url: string) {
  const store = createMemoryStore();
  const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
  await store.createDevice({ accountId: account.id, name: 'P1', imei: 'P1', model: 'm', timeZone: 'UTC', pin: 'P1' });
  const sources = aempSourcesOf(store)!;
  const source = (await sources.createAempSource({
    accountId: account.id,
    fields: {
      name: 'OEM',
      url,
      auth: { kind: 'bearer', token: 'secret-token' },
      pollEverySeconds: 3600,
      minIntervalPerUrlSeconds: 0,
      enabled: true,
    },
    now: NOW_SECONDS - 10,
  }))!;
  const polling = aempPolling({
    fleetHours: createFleetHours({ store, now: () => NOW }),
    now: () => NOW,
    allowPrivateAddresses: true,
    log: () => {},
  });
  const nextPollAt = async () => (await sources.findAempSource({ accountId: account.id, sourceId: source.id }))!.nextPollAt;
  return { polling, account, source, nextPollAt };
}

describe('the polls of stored sources (D65, P134)', () => {
  it('P134: a poll that ends well is next due its interval after it ends', async () => {
    const { base } = await oem(() => ({ '/Fleet/1': xml(xmlPage({ machines: [{ pin: 'P1', hours: 10 }] })) }));
    const { polling, account, source, nextPollAt } = await setUp(`${base}/Fleet/1`);
    const stored = await polling.pollNow({ accountId: account.id, sourceId: source.id });
    expect(stored).toMatchObject({ readingsStored: 1, error: null });
    expect(await nextPollAt()).toBe(NOW_SECONDS + 3600);
  });

  it('D65, P155: a poll ended by a Retry-After longer than its interval is next due when the source allows, not sooner', async () => {
    let retryAfter = '7200';
    const { base } = await oem(() => ({
      '/Fleet/1': (request, response, body) =>
        retryAfter === 'ok'
          ? xml(xmlPage({ machines: [{ pin: 'P1', hours: 10 }] }))(request, response, body)
          : response.writeHead(429, { 'retry-after': retryAfter }).end(),
    }));
    const { polling, account, source, nextPollAt } = await setUp(`${base}/Fleet/1`);
    const ended = await polling.pollNow({ accountId: account.id, sourceId: source.id });
    expect(ended?.error).toMatchObject({ status: null });
    expect(await nextPollAt()).toBe(NOW_SECONDS + 7200);
    // A shorter wait than the interval leaves the interval.
    retryAfter = '120';
    await polling.pollNow({ accountId: account.id, sourceId: source.id });
    expect(await nextPollAt()).toBe(NOW_SECONDS + 3600);
    // The wait is the last poll's only: a poll that ends well is due its interval after it.
    retryAfter = 'ok';
    expect(await polling.pollNow({ accountId: account.id, sourceId: source.id })).toMatchObject({ readingsStored: 1, error: null });
    expect(await nextPollAt()).toBe(NOW_SECONDS + 3600);
  });
});
