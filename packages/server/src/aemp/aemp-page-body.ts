import type { AempNode } from '@fleet-hours/core';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * An AEMP page's body into core's neutral tree (D66): XML in the 2019 or 2016 namespace or none
 * (namespace prefixes dropped; core compares names case-insensitively), or JSON with the same
 * names as keys. fast-xml-parser reads the XML: it expands no external entity.
 */

/** The body could not be read as XML or JSON. */
export class UnreadablePageError extends Error {
  override readonly name = 'UnreadablePageError';
}

const _parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/**
 * Reads a page's body: JSON when the media type says so (or the body starts with `{`/`[`), else XML.
 *
 * @param contentType The answer's `Content-Type` (or `null`).
 * @throws {UnreadablePageError} When the body is neither.
 */
export function parseAempPageBody(body: string, contentType: string | null): AempNode {
  const text = body.trim();
  const json = contentType === null ? /^[[{]/.test(text) : /json/i.test(contentType) || (!/xml/i.test(contentType) && /^[[{]/.test(text));
  return json ? _fromJson(text) : _fromXml(text);
}

function _fromJson(text: string): AempNode {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnreadablePageError('the page is not JSON that can be read');
  }
  return _jsonNode('#document', value);
}

/** A JSON value as an element: an object's keys are its children (an array gives one each), a scalar its text. */
function _jsonNode(name: string, value: unknown): AempNode {
  if (value === null || typeof value !== 'object') return { name, attributes: {}, text: value === null ? '' : String(value), children: [] };
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item) => ['#item', item]) : Object.entries(value);
  const children = entries.flatMap(([key, item]) =>
    Array.isArray(item) ? item.map((each) => _jsonNode(key, each)) : [_jsonNode(key, item)],
  );
  return { name, attributes: {}, text: '', children };
}

type _Ordered = Record<string, unknown>;

function _fromXml(text: string): AempNode {
  if (XMLValidator.validate(text) !== true) throw new UnreadablePageError('the page is not XML that can be read');
  return { name: '#document', attributes: {}, text: '', children: _xmlChildren(_parser.parse(text) as _Ordered[]) };
}

/** fast-xml-parser's ordered output (`{ tag: [children], ':@': attributes }`, `{ '#text': … }`) as elements. */
function _xmlChildren(items: readonly _Ordered[]): AempNode[] {
  const nodes: AempNode[] = [];
  for (const item of items) {
    const name = Object.keys(item).find((key) => key !== ':@' && key !== '#text');
    if (name === undefined) continue;
    const content = item[name] as _Ordered[];
    const attributes = (item[':@'] ?? {}) as Record<string, string>;
    const text = content
      .map((child) => child['#text'])
      .filter((each) => each !== undefined)
      .join('');
    nodes.push({ name, attributes, text: String(text), children: _xmlChildren(content) });
  }
  return nodes;
}
