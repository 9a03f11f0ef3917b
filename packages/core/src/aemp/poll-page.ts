import { parseInstant } from '../time/parse-instant.js';
import type { EpochSeconds } from '../types.js';

/**
 * A page of an ISO 15143-3 (AEMP 2.0) snapshot feed as read by a poll (D65, D66): the neutral tree
 * the adapter parses XML (either namespace or none) or JSON into, and what a poll takes from it.
 * Names are compared case-insensitively, without a namespace prefix.
 */

/** One element of a parsed page: its name (prefix dropped), attributes, text and child elements. */
export interface AempNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly text: string;
  readonly children: readonly AempNode[];
}

/** The cumulative operating hours of one equipment as the page gives them: a reading (D38). */
export interface AempHours {
  /** Epoch seconds of `datetime`. */
  readonly readAt: EpochSeconds;
  /** `round(Hour × 3600)`. */
  readonly readingSeconds: number;
}

/** One equipment of a page: its identity (each `null` when absent or blank) and its hours, if any. */
export interface AempPolledEquipment {
  readonly pin: string | null;
  readonly oemName: string | null;
  readonly serialNumber: string | null;
  readonly equipmentId: string | null;
  /** `null` when `CumulativeOperatingHours` is absent or has no usable `datetime` and `Hour`. */
  readonly hours: AempHours | null;
  /** `round(Hour × 3600)` of `CumulativeIdleHours` (P156); `null` when absent or without a usable `datetime` and `Hour`. */
  readonly idleSeconds: number | null;
}

/** What a poll takes from a page: its links (absolute URLs) and its equipment. */
export interface AempPage {
  readonly self: string | null;
  readonly next: string | null;
  readonly equipment: readonly AempPolledEquipment[];
}

/** The most pages one poll reads (D66). */
export const AEMP_MAX_PAGES = 1000;

/**
 * Reads a page: the `Fleet` element (the root, or found under it), its `Links` (`rel` and `href` as
 * child or attribute) resolved against the page's URL, and each `Equipment`. Missing elements are
 * tolerated: an equipment without hours is still listed.
 *
 * @param root The parsed document.
 * @param pageUrl The URL the page was read from (relative links resolve against it).
 */
export function readAempPage(root: AempNode, pageUrl: string): AempPage {
  const fleet = _findFleet(root) ?? root;
  const links = new Map<string, string>();
  for (const link of _children(fleet, 'links')) {
    const rel = _value(link, 'rel')?.toLowerCase();
    const href = _value(link, 'href');
    if (rel === undefined || href === undefined || links.has(rel)) continue;
    const url = _absolute(href, pageUrl);
    if (url !== null) links.set(rel, url);
  }
  return {
    self: links.get('self') ?? null,
    next: links.get('next') ?? null,
    equipment: _children(fleet, 'equipment').map(_equipment),
  };
}

/** Why a poll stops walking the feed (D66). */
export type AempStop = 'no_next' | 'next_is_self' | 'repeated' | 'empty_page' | 'page_limit';

/**
 * The URL to read after a page, or why the walk stops there (D66): `next` absent, equal to `self`
 * (or to the page's own URL), a page already read, a page without equipment, or the page limit.
 *
 * @param read The URLs of the pages read so far, this one included.
 */
export function aempNextPage(
  page: AempPage,
  pageUrl: string,
  read: ReadonlySet<string>,
): { readonly next: string } | { readonly stop: AempStop } {
  if (page.equipment.length === 0) return { stop: 'empty_page' };
  if (page.next === null) return { stop: 'no_next' };
  if (page.next === page.self || page.next === pageUrl) return { stop: 'next_is_self' };
  if (read.has(page.next)) return { stop: 'repeated' };
  if (read.size >= AEMP_MAX_PAGES) return { stop: 'page_limit' };
  return { next: page.next };
}

function _equipment(node: AempNode): AempPolledEquipment {
  const header = _child(node, 'equipmentheader') ?? node;
  const text = (name: string) => {
    const value = _value(header, name)?.trim();
    return value === undefined || value === '' ? null : value;
  };
  return {
    pin: text('pin'),
    oemName: text('oemname'),
    serialNumber: text('serialnumber'),
    equipmentId: text('equipmentid'),
    hours: _hours(_child(node, 'cumulativeoperatinghours')),
    idleSeconds: _hours(_child(node, 'cumulativeidlehours'))?.readingSeconds ?? null,
  };
}

function _hours(node: AempNode | undefined): AempHours | null {
  if (node === undefined) return null;
  const datetime = _value(node, 'datetime')?.trim();
  const hour = _value(node, 'hour')?.trim();
  if (datetime === undefined || hour === undefined || !/^\+?\d+(\.\d+)?$/.test(hour)) return null;
  const readAt = _instant(datetime);
  const readingSeconds = Math.round(Number(hour) * 3600);
  if (readAt === null || !Number.isSafeInteger(readingSeconds)) return null;
  return { readAt, readingSeconds };
}

/** A feed's `datetime`: an instant with an offset; one without is read as UTC (feeds write both). */
function _instant(text: string): EpochSeconds | null {
  for (const candidate of [text, `${text}Z`]) {
    try {
      return parseInstant(candidate);
    } catch {
      // the next reading
    }
  }
  return null;
}

function _findFleet(node: AempNode): AempNode | undefined {
  if (_is(node, 'fleet')) return node;
  for (const child of node.children) {
    const found = _findFleet(child);
    if (found) return found;
  }
  return undefined;
}

function _absolute(href: string, base: string): string | null {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return null;
  }
}

/** An attribute's value, else a child element's text. */
function _value(node: AempNode, name: string): string | undefined {
  for (const [key, value] of Object.entries(node.attributes)) if (_localName(key) === name) return value;
  return _child(node, name)?.text;
}

function _child(node: AempNode, name: string): AempNode | undefined {
  return node.children.find((child) => _is(child, name));
}

function _children(node: AempNode, name: string): AempNode[] {
  return node.children.filter((child) => _is(child, name));
}

function _is(node: AempNode, name: string): boolean {
  return _localName(node.name) === name;
}

function _localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}
