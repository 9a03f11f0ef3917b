/**
 * D64 (P122): the served AEMP documents as one tree, written as XML (the default) or JSON (the same
 * names as keys). The tree is small and fixed (elements, attributes, text), so it is written here
 * rather than with a library: escaping text and attribute values is the whole of the work, and
 * every value passes through {@link _escape}.
 */
import { formatAempHours, type AempEquipment, type AempEquipmentHeader, type AempSeriesPage } from '@fleet-hours/core';

/** The 2019 schema of ISO 15143-3. */
export const AEMP_NAMESPACE = 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501';
export const AEMP_VERSION = '20190501';

/** An element: its name, attributes (in order), and text or child elements. A `null` child is left out. */
export interface AempElement {
  readonly name: string;
  readonly attributes?: readonly (readonly [string, string])[];
  readonly text?: string;
  readonly children?: readonly (AempElement | null)[];
}

/** Every datetime of the feed: UTC, whole seconds, `Z`. */
export function aempDatetime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const _element = (name: string, text: string | null): AempElement | null => (text === null ? null : { name, text });

/** A cumulative value at an instant: `<Kind datetime="…"><Hour>…</Hour></Kind>`. */
function _hours(name: string, at: number, seconds: number): AempElement {
  return { name, attributes: [['datetime', aempDatetime(at)]], children: [{ name: 'Hour', text: formatAempHours(seconds) }] };
}

function _header(header: AempEquipmentHeader): AempElement {
  return {
    name: 'EquipmentHeader',
    children: [
      _element('OEMName', header.oemName),
      _element('Model', header.model),
      { name: 'EquipmentID', text: header.equipmentId },
      _element('SerialNumber', header.serialNumber),
      _element('PIN', header.pin),
    ],
  };
}

/** One equipment of a snapshot at `at`: an element the device has no value for is absent. */
export function equipmentElement(equipment: AempEquipment, at: number): AempElement {
  const { location } = equipment;
  return {
    name: 'Equipment',
    children: [
      _header(equipment),
      location === null
        ? null
        : {
            name: 'Location',
            attributes: [['datetime', aempDatetime(location.time)]],
            children: [
              { name: 'Latitude', text: String(location.latitude) },
              { name: 'Longitude', text: String(location.longitude) },
            ],
          },
      _hours('CumulativeOperatingHours', at, equipment.operatingSeconds),
      _hours('CumulativeIdleHours', at, equipment.idleSeconds),
      equipment.running === null
        ? null
        : {
            name: 'EngineStatus',
            attributes: [['datetime', aempDatetime(at)]],
            children: [{ name: 'Running', text: String(equipment.running) }],
          },
    ],
  };
}

/** A time series page's equipment: its header and one value element per instant, newest last. */
export function seriesElement(page: AempSeriesPage): AempElement {
  return { name: 'Equipment', children: [_header(page.header), ...page.values.map((value) => _hours(page.kind, value.at, value.seconds))] };
}

/** The `Fleet` envelope: version, snapshot time, namespace, `Links` (`self`, `next` unless last, `last`), equipment. */
export function fleetElement(input: {
  readonly snapshotTime: number;
  readonly links: readonly (readonly [rel: string, href: string])[];
  readonly equipment: readonly AempElement[];
}): AempElement {
  return {
    name: 'Fleet',
    attributes: [
      ['version', AEMP_VERSION],
      ['snapshotTime', aempDatetime(input.snapshotTime)],
      ['xmlns', AEMP_NAMESPACE],
    ],
    children: [
      ...input.links.map(
        ([rel, href]): AempElement => ({
          name: 'Links',
          children: [
            { name: 'rel', text: rel },
            { name: 'href', text: href },
          ],
        }),
      ),
      ...input.equipment,
    ],
  };
}

/** `&`, `<`, `>` and both quotes as entities; control characters other than tab and line breaks (never in our values: D50 refuses them) as nothing. */
function _escape(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot hold these at all.
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** The tree as an XML document (UTF-8, with its declaration). */
export function toXml(root: AempElement): string {
  const write = (element: AempElement): string => {
    const attributes = (element.attributes ?? []).map(([name, value]) => ` ${name}="${_escape(value)}"`).join('');
    const children = (element.children ?? []).filter((child): child is AempElement => child !== null);
    const inner = element.text !== undefined ? _escape(element.text) : children.map(write).join('');
    return `<${element.name}${attributes}>${inner}</${element.name}>`;
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root)}`;
}

/**
 * The tree as JSON, the same names as keys: attributes and child elements are keys of one object
 * (`xmlns` left out); `Links` and `Equipment` are arrays, and so are the values of a time series
 * (`series`); text values are strings except `Hour` (a number written with its 6 places),
 * `Latitude`, `Longitude` (numbers) and `Running` (a boolean).
 */
export function toJson(root: AempElement, series: boolean): string {
  const repeated = new Set(['Links', 'Equipment', ...(series ? ['CumulativeOperatingHours', 'CumulativeIdleHours'] : [])]);
  const convert = (element: AempElement): unknown => {
    if (element.text !== undefined) {
      // Marked, to be written as a number with its 6 places below.
      if (element.name === 'Hour') return `\u0000${element.text}`;
      if (element.name === 'Latitude' || element.name === 'Longitude') return Number(element.text);
      if (element.name === 'Running') return element.text === 'true';
      return element.text;
    }
    const object: Record<string, unknown> = {};
    for (const [name, value] of element.attributes ?? []) if (name !== 'xmlns') object[name] = value;
    for (const child of element.children ?? []) {
      if (child === null) continue;
      if (repeated.has(child.name)) ((object[child.name] ??= []) as unknown[]).push(convert(child));
      else object[child.name] = convert(child);
    }
    return object;
  };
  return JSON.stringify(convert(root)).replace(/"\\u0000(\d+\.\d{6})"/g, '$1');
}
