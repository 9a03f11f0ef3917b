/**
 * A mock OEM cloud for tests (not part of the package): AEMP snapshot pages as OEMs write them, in
 * XML (namespaces, prefixes, `links`/`rel` in either case) or JSON, served on 127.0.0.1 by a
 * handler per path, every request noted with its headers.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const NS_2019 = 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501';
export const NS_2016 = 'http://standards.iso.org/iso/15143/-3';
/** The instant of every value unless a machine names its own. */
export const AT = '2026-11-28T10:00:00Z';

/** One equipment as an OEM writes it: hours (and idle hours) absent, or with `datetime` (`at`, default {@link AT}) as attribute or as child. */
export interface Machine {
  readonly pin: string;
  readonly hours?: number;
  /** `CumulativeIdleHours`, written as `hours` is. */
  readonly idle?: number;
  readonly datetime?: 'attribute' | 'child';
  readonly at?: string;
}

/** A page of XML: `ns` the namespace (or none), `prefix` a namespace prefix, `lower` lower-case `links`/`rel`. */
export function xmlPage(options: {
  readonly self?: string;
  readonly next?: string;
  readonly machines: readonly Machine[];
  readonly ns?: string;
  readonly prefix?: string;
  readonly lower?: boolean;
}): string {
  const p = options.prefix ? `${options.prefix}:` : '';
  const xmlns = options.ns ? ` xmlns${options.prefix ? `:${options.prefix}` : ''}="${options.ns}"` : '';
  const [links, rel] = options.lower ? ['links', 'rel'] : ['Links', 'Rel'];
  const link = (name: string, href: string | undefined) =>
    href === undefined ? '' : `<${p}${links}><${p}${rel}>${name}</${p}${rel}><${p}href>${href}</${p}href></${p}${links}>`;
  const element = (machine: Machine, name: string, value: number | undefined) => {
    if (value === undefined) return '';
    const hour = `<${p}Hour>${value.toFixed(6)}</${p}Hour>`;
    return machine.datetime === 'child'
      ? `<${p}${name}><${p}datetime>${machine.at ?? AT}</${p}datetime>${hour}</${p}${name}>`
      : `<${p}${name} datetime="${machine.at ?? AT}">${hour}</${p}${name}>`;
  };
  const hours = (machine: Machine) =>
    element(machine, 'CumulativeOperatingHours', machine.hours) + element(machine, 'CumulativeIdleHours', machine.idle);
  const equipment = options.machines
    .map(
      (machine) =>
        `<${p}Equipment><${p}EquipmentHeader><${p}OEMName>Acme</${p}OEMName><${p}PIN>${machine.pin}</${p}PIN></${p}EquipmentHeader>${hours(machine)}</${p}Equipment>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><${p}Fleet version="20190501"${xmlns}>${link('self', options.self)}${link('next', options.next)}${equipment}</${p}Fleet>`;
}

export function jsonPage(options: { readonly self: string; readonly next?: string; readonly machines: readonly Machine[] }): string {
  return JSON.stringify({
    Links: [{ rel: 'self', href: options.self }, ...(options.next ? [{ rel: 'next', href: options.next }] : [])],
    Equipment: options.machines.map((machine) => ({
      EquipmentHeader: { OEMName: 'Acme', PIN: machine.pin },
      ...(machine.hours === undefined ? {} : { CumulativeOperatingHours: { datetime: machine.at ?? AT, Hour: machine.hours } }),
      ...(machine.idle === undefined ? {} : { CumulativeIdleHours: { datetime: machine.at ?? AT, Hour: machine.idle } }),
    })),
  });
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** The mock OEM cloud: one handler per path; every request is noted with its headers. */
const servers: ReturnType<typeof createServer>[] = [];
export async function startMockOem(routesAt: (base: string) => Record<string, Handler>) {
  let routes: Record<string, Handler> = {};
  const requests: { path: string; accept: string | undefined; authorization: string | undefined; body: string }[] = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const path = request.url ?? '/';
    requests.push({ path, accept: request.headers.accept, authorization: request.headers.authorization, body });
    const handler = routes[path];
    if (handler) handler(request, response, body);
    else response.writeHead(404).end();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes = routesAt(base);
  return { base, requests };
}

/** Closes every mock OEM server started (a test file's `afterEach`). */
export async function closeMockOems(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
}

/** A handler answering `text` (or what `text()` gives at each request) as XML. */
export const xml =
  (text: string | (() => string), status = 200, headers: Record<string, string> = {}): Handler =>
  (_request, response) =>
    response.writeHead(status, { 'content-type': 'application/xml', ...headers }).end(typeof text === 'string' ? text : text());
