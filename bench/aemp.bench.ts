/**
 * The poll of an AEMP source (D65, D66): a local feed of 10,000 machines, 100 a page (100 pages), in
 * the 2019 namespace (XML) and as JSON, served by a `node:http` server in this process on
 * 127.0.0.1, polled by `aempSourcePoller` into a memory store (`createFleetHours`) whose account
 * has the 10,000 devices by PIN. For each format: a first poll (every reading stored, each audited
 * through the maintenance writes) and a second one (every value known: read, matched, passed over).
 * Pages per second and equipment per second of each.
 *
 * Run: `npm run bench -- aemp` (builds first; imports the packages' dist). Prints figures; asserts
 * nothing. The feed and the poll share this process and its event loop.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { aempSourcePoller } from '@fleet-hours/server';

const MACHINES = 10_000;
const PER_PAGE = 100;
const PAGES = MACHINES / PER_PAGE;
const NS = 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501';
const AT = '2026-11-28T10:00:00Z';

const hours = (index: number) => (1000 + index / 7).toFixed(6);
const pin = (index: number) => `PIN${String(index).padStart(6, '0')}`;

function xmlPage(base: string, page: number): string {
  const links = [`<Links><rel>self</rel><href>${base}/Fleet/${page}</href></Links>`];
  if (page < PAGES) links.push(`<Links><rel>next</rel><href>${base}/Fleet/${page + 1}</href></Links>`);
  const equipment: string[] = [];
  for (let index = (page - 1) * PER_PAGE; index < page * PER_PAGE; index += 1)
    equipment.push(
      `<Equipment><EquipmentHeader><OEMName>Acme</OEMName><Model>X1</Model><EquipmentID>M${index}</EquipmentID>` +
        `<SerialNumber>S${index}</SerialNumber><PIN>${pin(index)}</PIN></EquipmentHeader>` +
        `<Location datetime="${AT}"><Latitude>45.5</Latitude><Longitude>-73.6</Longitude></Location>` +
        `<CumulativeOperatingHours datetime="${AT}"><Hour>${hours(index)}</Hour></CumulativeOperatingHours>` +
        `<CumulativeIdleHours datetime="${AT}"><Hour>12.000000</Hour></CumulativeIdleHours></Equipment>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?><Fleet version="20190501" snapshotTime="${AT}" xmlns="${NS}">${links.join('')}${equipment.join('')}</Fleet>`;
}

function jsonPage(base: string, page: number): string {
  const equipment = [];
  for (let index = (page - 1) * PER_PAGE; index < page * PER_PAGE; index += 1)
    equipment.push({
      EquipmentHeader: { OEMName: 'Acme', Model: 'X1', EquipmentID: `M${index}`, SerialNumber: `S${index}`, PIN: pin(index) },
      CumulativeOperatingHours: { datetime: AT, Hour: Number(hours(index)) },
    });
  const links = [{ rel: 'self', href: `${base}/Fleet/${page}` }];
  if (page < PAGES) links.push({ rel: 'next', href: `${base}/Fleet/${page + 1}` });
  return JSON.stringify({ version: '20190501', snapshotTime: AT, Links: links, Equipment: equipment });
}

const server = createServer((request, response) => {
  const page = Number(/^\/Fleet\/(\d+)$/.exec(request.url ?? '')?.[1]);
  if (!(page >= 1 && page <= PAGES)) return void response.writeHead(404).end();
  const json = request.headers.accept === 'application/json';
  response
    .writeHead(200, { 'content-type': json ? 'application/json' : 'application/xml' })
    .end(json ? jsonPage(base, page) : xmlPage(base, page));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

for (const format of ['xml', 'json'] as const) {
  const store = createMemoryStore();
  const account = (await store.createAccount({ name: 'Fleet', plan: 'business', now: 0 }))!;
  for (let index = 0; index < MACHINES; index += 1)
    await store.createDevice({
      accountId: account.id,
      name: `M${index}`,
      imei: String(index),
      model: 'X1',
      timeZone: 'UTC',
      pin: pin(index),
    });
  const fleetHours = createFleetHours({ store, now: Date.now });
  const poller = aempSourcePoller({
    store,
    writes: fleetHours.manage,
    origin: { actor: { kind: 'cli' }, requestId: null },
    allowPrivateAddresses: true,
  });
  const source = { id: 1, accountId: account.id, url: `${base}/Fleet/1`, auth: null, minIntervalPerUrlSeconds: 0, format };
  for (const label of ['first poll (stores every reading)', 'second poll (every value known)']) {
    const started = performance.now();
    const record = await poller.poll(source);
    const seconds = (performance.now() - started) / 1000;
    if (record.error !== null || record.pages !== PAGES) throw new Error(`the poll failed: ${JSON.stringify(record.error)}`);
    console.log(
      `${format.toUpperCase()} ${label}: ${record.pages} pages, ${record.equipmentSeen.toLocaleString('en-US')} equipment, ` +
        `${record.readingsStored.toLocaleString('en-US')} stored in ${seconds.toFixed(2)} s: ` +
        `${(record.pages / seconds).toFixed(1)} pages/s, ${Math.round(record.equipmentSeen / seconds).toLocaleString('en-US')} equipment/s`,
    );
  }
}
server.close();
