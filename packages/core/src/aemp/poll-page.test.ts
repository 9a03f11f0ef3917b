import { describe, expect, it } from 'vitest';
import { AEMP_MAX_PAGES, aempNextPage, readAempPage, type AempNode } from './poll-page.js';

/** An element of the neutral tree: text or children, attributes optional. */
function el(name: string, content: string | readonly AempNode[] = [], attributes: Record<string, string> = {}): AempNode {
  return typeof content === 'string'
    ? { name, attributes, text: content, children: [] }
    : { name, attributes, text: '', children: content };
}

const BASE = 'https://oem.example/aemp/Fleet/1';

function equipment(pin: string, ...values: AempNode[]): AempNode {
  return el('Equipment', [el('EquipmentHeader', [el('OEMName', 'Acme'), el('PIN', pin)]), ...values]);
}

describe('readAempPage (D66)', () => {
  it('D66: reads Links and links, Rel and rel, href as child or attribute, relative to the page', () => {
    const page = readAempPage(
      el('Fleet', [
        el('Links', [el('Rel', 'self'), el('Href', 'https://oem.example/aemp/Fleet/1')]),
        el('links', [el('rel', 'NEXT'), el('href', '/aemp/Fleet/2')]),
        equipment('P1'),
      ]),
      BASE,
    );
    expect(page).toMatchObject({ self: 'https://oem.example/aemp/Fleet/1', next: 'https://oem.example/aemp/Fleet/2' });
    const byAttribute = readAempPage(el('fleet', [el('link', [], {}), el('LINKS', [], { rel: 'next', href: '2' })]), BASE);
    expect(byAttribute).toEqual({ self: null, next: 'https://oem.example/aemp/Fleet/2', equipment: [] });
  });

  it('D66: finds Fleet under the document, without regard to a namespace prefix', () => {
    const page = readAempPage(el('#document', [el('ns2:Fleet', [equipment('P9')])]), BASE);
    expect(page.equipment.map((each) => each.pin)).toEqual(['P9']);
  });

  it('D66: datetime as attribute or as child element; Hour decimal, rounded to the second (D65)', () => {
    const page = readAempPage(
      el('Fleet', [
        equipment('A', el('CumulativeOperatingHours', [el('Hour', '12345.678056')], { datetime: '2026-11-28T10:00:00Z' })),
        equipment('B', el('cumulativeoperatinghours', [el('datetime', '2026-11-28T10:00:00.000Z'), el('hour', '0.5')])),
        equipment('C', el('CumulativeOperatingHours', [el('Datetime', '2026-11-28T10:00:00'), el('Hour', ' 7 ')])),
      ]),
      BASE,
    );
    const at = Date.parse('2026-11-28T10:00:00Z') / 1000;
    expect(page.equipment.map((each) => each.hours)).toEqual([
      { readAt: at, readingSeconds: Math.round(12345.678056 * 3600) },
      { readAt: at, readingSeconds: 1800 },
      { readAt: at, readingSeconds: 7 * 3600 },
    ]);
  });

  it('P156: CumulativeIdleHours read as the operating hours are (datetime as attribute or child, Hour rounded to the second); absent or unusable is null', () => {
    const hours = el('CumulativeOperatingHours', [el('Hour', '10')], { datetime: '2026-11-28T10:00:00Z' });
    const page = readAempPage(
      el('Fleet', [
        equipment('A', hours, el('CumulativeIdleHours', [el('Hour', '2345.000001')], { datetime: '2026-11-28T10:00:00Z' })),
        equipment('B', el('cumulativeidlehours', [el('datetime', '2026-11-28T10:00:00Z'), el('hour', '0.5')])),
        equipment('C', hours),
        equipment('D', hours, el('CumulativeIdleHours', [el('Hour', '1')])),
        equipment('E', hours, el('CumulativeIdleHours', [el('Hour', '-1')], { datetime: '2026-11-28T10:00:00Z' })),
      ]),
      BASE,
    );
    expect(page.equipment.map((each) => each.idleSeconds)).toEqual([Math.round(2345.000001 * 3600), 1800, null, null, null]);
    expect(page.equipment[1]!.hours).toBeNull();
  });

  it('D66, P124: missing or unusable elements are tolerated: the equipment is listed without hours or identity', () => {
    const page = readAempPage(
      el('Fleet', [
        el('Equipment', [el('EquipmentHeader', [el('SerialNumber', '  '), el('OEMName', ' Komatsu ')])]),
        equipment('D', el('CumulativeOperatingHours', [el('Hour', '5')])),
        equipment('E', el('CumulativeOperatingHours', [el('Hour', 'n/a')], { datetime: '2026-11-28T10:00:00Z' })),
        equipment('F', el('CumulativeOperatingHours', [el('Hour', '-1')], { datetime: '2026-11-28T10:00:00Z' })),
        equipment('G', el('CumulativeOperatingHours', [el('Hour', '1')], { datetime: 'yesterday' })),
      ]),
      BASE,
    );
    expect(page.equipment[0]).toEqual({
      pin: null,
      oemName: 'Komatsu',
      serialNumber: null,
      equipmentId: null,
      hours: null,
      idleSeconds: null,
    });
    expect(page.equipment.map((each) => each.hours)).toEqual([null, null, null, null, null]);
  });
});

describe('aempNextPage (D66)', () => {
  const page = (next: string | null, self: string | null = BASE, count = 1) => ({
    self,
    next,
    equipment: Array.from({ length: count }, () => ({
      pin: 'P',
      oemName: null,
      serialNumber: null,
      equipmentId: null,
      hours: null,
      idleSeconds: null,
    })),
  });
  const two = 'https://oem.example/aemp/Fleet/2';

  it('D66, P124: follows next; stops when next is absent, equals self, repeats a page read, or the page is empty', () => {
    expect(aempNextPage(page(two), BASE, new Set([BASE]))).toEqual({ next: two });
    expect(aempNextPage(page(null), BASE, new Set([BASE]))).toEqual({ stop: 'no_next' });
    expect(aempNextPage(page(BASE), BASE, new Set([BASE]))).toEqual({ stop: 'next_is_self' });
    // Takeuchi: next equal to the page's own URL when self is absent.
    expect(aempNextPage(page(BASE, null), BASE, new Set([BASE]))).toEqual({ stop: 'next_is_self' });
    expect(aempNextPage(page(BASE, two), two, new Set([BASE, two]))).toEqual({ stop: 'repeated' });
    expect(aempNextPage(page(two, BASE, 0), BASE, new Set([BASE]))).toEqual({ stop: 'empty_page' });
  });

  it('D66: at most 1,000 pages a poll', () => {
    const read = new Set(Array.from({ length: AEMP_MAX_PAGES }, (_, index) => `https://oem.example/aemp/Fleet/${index}`));
    expect(AEMP_MAX_PAGES).toBe(1000);
    expect(aempNextPage(page('https://oem.example/aemp/Fleet/5000'), BASE, read)).toEqual({ stop: 'page_limit' });
    read.delete('https://oem.example/aemp/Fleet/0');
    expect(aempNextPage(page('https://oem.example/aemp/Fleet/5000'), BASE, read)).toEqual({ next: 'https://oem.example/aemp/Fleet/5000' });
  });
});
