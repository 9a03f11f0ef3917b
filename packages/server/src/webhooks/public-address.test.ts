import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Socket } from 'node:net';
import type { ClaimedDelivery } from '@fleet-hours/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './public-address.js';
import { sendWebhook } from './send-webhook.js';

/** An agent that connects nowhere: it records the host asked for and fails the socket, so no test reaches the network. */
class RecordingAgent extends HttpAgent {
  readonly hosts: string[] = [];
  override createConnection(options: { host?: string | null }): Socket {
    this.hosts.push(String(options.host));
    const socket = new Socket();
    process.nextTick(() => socket.destroy(Object.assign(new Error('not connected in tests'), { code: 'ECONNREFUSED' })));
    return socket;
  }
}

const claimed = (url: string): ClaimedDelivery => ({
  delivery: { id: 1, eventId: 'evt_test', endpointId: 1, state: 'pending', attempts: 0, nextAttemptAt: 0, createdAt: 0 },
  event: { id: 'evt_test', accountId: 1, type: 'webhook.test', deviceId: null, body: '{}', raisedAt: 0 },
  endpoint: {
    id: 1,
    accountId: 1,
    url,
    eventTypes: [],
    description: null,
    secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    createdAt: 0,
  },
});

/** Sends one webhook to an IP literal through the sender, connecting nowhere: what it recorded, and whether it tried to connect. */
async function send(address: string, allowPrivateAddresses = false) {
  const agent = new RecordingAgent();
  const host = address.includes(':') ? `[${address}]` : address;
  const report = await sendWebhook(claimed(`http://${host}/hooks`), 0, {
    timeoutMs: 60_000,
    allowPrivateAddresses,
    agents: { http: agent, https: new HttpsAgent() },
  });
  return { error: report.error ?? '', connected: agent.hosts.length > 0 };
}

/** Every range of the IANA IPv4 and IPv6 special-purpose registries, the IPv6 forms that embed an IPv4 address, and the rest of non-global IPv6. */
const REFUSED: readonly (readonly [address: string, range: string])[] = [
  ['0.0.0.0', 'this network 0.0.0.0/8'],
  ['0.1.2.3', 'this network 0.0.0.0/8'],
  ['10.0.0.1', 'private 10.0.0.0/8'],
  ['100.64.0.1', 'shared 100.64.0.0/10'],
  ['100.127.255.254', 'shared 100.64.0.0/10'],
  ['127.0.0.1', 'loopback 127.0.0.0/8'],
  ['127.255.255.254', 'loopback 127.0.0.0/8'],
  ['169.254.169.254', 'link-local 169.254.0.0/16'],
  ['172.16.0.1', 'private 172.16.0.0/12'],
  ['172.31.255.255', 'private 172.16.0.0/12'],
  ['192.0.0.1', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.0.9', 'PCP anycast 192.0.0.9/32'],
  ['192.0.0.170', 'NAT64 discovery 192.0.0.170/32'],
  ['192.0.2.1', 'documentation 192.0.2.0/24'],
  ['192.31.196.1', 'AS112-v4 192.31.196.0/24'],
  ['192.52.193.1', 'AMT 192.52.193.0/24'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast 192.88.99.0/24'],
  ['192.168.1.1', 'private 192.168.0.0/16'],
  ['192.175.48.1', 'AS112 direct delegation 192.175.48.0/24'],
  ['198.18.0.1', 'benchmarking 198.18.0.0/15'],
  ['198.19.255.255', 'benchmarking 198.18.0.0/15'],
  ['198.51.100.1', 'documentation 198.51.100.0/24'],
  ['203.0.113.1', 'documentation 203.0.113.0/24'],
  ['224.0.0.1', 'multicast 224.0.0.0/4'],
  ['239.255.255.250', 'multicast 224.0.0.0/4'],
  ['240.0.0.1', 'reserved 240.0.0.0/4'],
  ['255.255.255.255', 'limited broadcast'],
  ['::', 'unspecified ::/128'],
  ['::1', 'loopback ::1/128'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
  ['::ffff:0:10.0.0.1', 'IPv4-translated private ::ffff:0:0:0/96'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback (deprecated ::/96)'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated ::/96): no route leads there'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 64:ff9b::/96 of link-local'],
  ['64:ff9b::10.0.0.1', 'NAT64 64:ff9b::/96 of private'],
  ['64:ff9b:1::808:808', 'local-use NAT64 64:ff9b:1::/48'],
  ['2002:a9fe:a9fe::1', '6to4 2002::/16 of 169.254.169.254'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo 2001::/32, client 10.0.0.1'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'Teredo 2001::/32, server 10.0.0.1'],
  ['100::1', 'discard-only 100::/64'],
  ['100:0:0:1::1', 'dummy prefix 100:0:0:1::/64'],
  ['2001:1::1', 'PCP anycast 2001:1::1/128'],
  ['2001:1::3', 'DNS-SD SRP anycast 2001:1::3/128'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:3::1', 'AMT 2001:3::/32'],
  ['2001:4:112::1', 'AS112-v6 2001:4:112::/48'],
  ['2001:10::1', 'deprecated ORCHID 2001:10::/28'],
  ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
  ['2001:30::1', 'drone remote ID 2001:30::/28'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['2620:4f:8000::1', 'AS112 direct delegation 2620:4f:8000::/48'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'segment routing 5f00::/16'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['fec0::1', 'site-local fec0::/10'],
  ['ff02::1', 'multicast ff00::/8'],
  ['4000::1', 'outside global unicast 2000::/3'],
];

const PUBLIC: readonly (readonly [address: string, range: string])[] = [
  ['8.8.8.8', 'global'],
  ['93.184.215.14', 'global'],
  ['1.1.1.1', 'global'],
  ['172.32.0.1', 'just above 172.16.0.0/12'],
  ['100.128.0.1', 'just above 100.64.0.0/10'],
  ['192.0.1.1', 'between 192.0.0.0/24 and 192.0.2.0/24'],
  ['198.20.0.1', 'just above 198.18.0.0/15'],
  ['223.255.255.254', 'just below multicast'],
  ['2606:4700:4700::1111', 'global'],
  ['2a00:1450:4001:82a::200e', 'global'],
  ['::ffff:8.8.8.8', 'IPv4-mapped global'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated global'],
  ['64:ff9b::808:808', 'NAT64 of a global IPv4'],
  ['2002:808:808::1', '6to4 of a global IPv4'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo: server 65.54.227.120, client 8.8.8.8'],
];

describe('D48 public addresses only: the sender refuses every special-purpose range, judged by the address connected to', () => {
  it.each(REFUSED)('D48: refuses %s (%s) without connecting, naming the setting that allows it', async (address) => {
    const { error, connected } = await send(address);
    expect(connected).toBe(false);
    expect(error).toMatch(/^refused: the address \S+ is not public \(allow it with --webhook-allow-private-addresses on\)$/);
  });

  it.each(PUBLIC)('D48: connects to %s (%s)', async (address) => {
    const { error, connected } = await send(address);
    expect(error).not.toMatch(/^refused/);
    expect(connected).toBe(true);
  });

  it('D48: with the allowing setting on, every refused address is connected to', async () => {
    for (const [address] of REFUSED) expect((await send(address, true)).connected, address).toBe(true);
  });

  it('D48, P64: only what a connection can use is judged public: zones kept apart, names and odd IPv4 forms refused', () => {
    expect(['fe80::1%eth0', 'localhost', '0x7f.1', '127.1', '2130706433', '', '1.2.3.4.5'].filter(isPublicAddress)).toEqual([]);
    expect(isPublicAddress('2606:4700:4700::1111%eth0')).toBe(true);
  });

  const publicV4 = (octets: readonly number[]) => isPublicAddress(octets.join('.'));
  const hex = (octets: readonly number[], offset: number) => ((octets[offset]! << 8) | octets[offset + 1]!).toString(16);
  const embeddings: readonly (readonly [name: string, (octets: readonly number[]) => string])[] = [
    ['IPv4-mapped', (v4) => `::ffff:${v4.join('.')}`],
    ['IPv4-translated', (v4) => `::ffff:0:${hex(v4, 0)}:${hex(v4, 2)}`],
    ['NAT64', (v4) => `64:ff9b::${hex(v4, 0)}:${hex(v4, 2)}`],
    ['6to4', (v4) => `2002:${hex(v4, 0)}:${hex(v4, 2)}::1`],
    [
      'Teredo client',
      (v4) =>
        `2001:0:4136:e378:8000:63bf:${hex(
          v4.map((octet) => octet ^ 0xff),
          0,
        )}:${hex(
          v4.map((octet) => octet ^ 0xff),
          2,
        )}`,
    ],
    ['Teredo server', (v4) => `2001:0:${hex(v4, 0)}:${hex(v4, 2)}:8000:63bf:f7f7:f7f7`],
  ];
  // Mostly addresses of the special ranges, where a wrong bit shows.
  const octets = fc.oneof(
    fc.tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
    ),
    fc.tuple(
      fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0, 2, 99, 100, 113, 255),
      fc.integer({ min: 0, max: 255 }),
    ),
  );

  it.each(embeddings)('D48, P64: an address embedded as %s is public exactly when its IPv4 address is', (_, embed) => {
    fc.assert(
      fc.property(octets, (v4) => isPublicAddress(embed(v4)) === publicV4(v4)),
      { numRuns: 300 },
    );
  });
});
