/**
 * D64: the handlers of the served AEMP feed. Admitted like every read route (401 → 403 → 429,
 * D11); then a bad window is 400 naming the parameter, then a device that is not on the account,
 * a page that is not a positive integer or is past the last, or a series other than the two is 404.
 */
import { AEMP_SERIES_KINDS, FleetHoursError, parseAempWindow, type AempSeriesKind, type FleetHours } from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { parseDeviceId } from './parse-device-id.js';
import { equipmentElement, fleetElement, seriesElement, toJson, toXml, type AempElement } from '../aemp/aemp-document.js';

/** The media types an AEMP client may ask JSON with. */
const JSON_TYPES = ['application/json', 'application/iso15143-snapshot+json'];

const _PAGE = /^[1-9][0-9]{0,8}$/;

function _page(text: string | undefined): number {
  if (text === undefined || !_PAGE.test(text)) throw _noPage();
  return Number(text);
}

const _noPage = () => new FleetHoursError('not_found', { message: 'No such page of the feed: pages are numbered from 1 to the last' });

/** The document in the format the client asked for: JSON when `Accept` names a JSON type, else XML. */
function _answer(c: Context<FleetHoursEnv>, root: AempElement, series: boolean): Response {
  const accept = (c.req.header('Accept') ?? '').toLowerCase();
  const json = JSON_TYPES.find((type) => accept.includes(type));
  if (json !== undefined)
    return c.body(toJson(root, series), 200, { 'Content-Type': `${json}; charset=UTF-8`, 'Cache-Control': 'no-store', Vary: 'Accept' });
  return c.body(toXml(root), 200, { 'Content-Type': 'application/xml; charset=UTF-8', 'Cache-Control': 'no-store', Vary: 'Accept' });
}

/** The links of page `page` of `last`, each the request's own path with the page replaced. */
function _links(c: Context<FleetHoursEnv>, page: number, last: number): [string, string][] {
  const url = new URL(c.req.url);
  const at = (n: number) => `${url.origin}${url.pathname.replace(/\/[^/]*$/, `/${n}`)}`;
  return [['self', at(page)], ...(page < last ? [['next', at(page + 1)] as [string, string]] : []), ['last', at(last)]];
}

/** `GET /aemp/v2/Fleet/{page}`: a page of the snapshot, 100 equipment a page by device id. */
export function aempFleetRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function aempFleet(c) {
    const page = _page(c.req.param('page'));
    const shown = await options.fleetHours.aemp.fleet({ accountId: accountId(c), page });
    if (shown === null) throw _noPage();
    const equipment = shown.equipment.map((item) => equipmentElement(item, shown.snapshotTime));
    return _answer(c, fleetElement({ snapshotTime: shown.snapshotTime, links: _links(c, page, shown.lastPage), equipment }), false);
  };
}

/** `GET /aemp/v2/Fleet/Equipment/ID/{id}`: one equipment's snapshot, in the `Fleet` envelope with its `self` link. */
export function aempEquipmentRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function aempEquipment(c) {
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const shown = deviceId === null ? null : await options.fleetHours.aemp.equipment({ accountId: accountId(c), deviceId });
    if (shown === null) throw new FleetHoursError('device_not_found');
    const { snapshotTime, equipment } = shown;
    const links: [string, string][] = [['self', new URL(c.req.url).href]];
    return _answer(c, fleetElement({ snapshotTime, links, equipment: [equipmentElement(equipment, snapshotTime)] }), false);
  };
}

/** `GET /aemp/v2/Fleet/Equipment/ID/{id}/{kind}/{startUTC}/{endUTC}/{page}`: a page of a time series, newest last. */
export function aempSeriesRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function aempSeries(c) {
    const kind = c.req.param('kind') as AempSeriesKind;
    if (!AEMP_SERIES_KINDS.includes(kind)) throw new FleetHoursError('not_found');
    const { start, end } = parseAempWindow(c.req.param('startUTC') ?? '', c.req.param('endUTC') ?? '');
    const page = _page(c.req.param('page'));
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const shown =
      deviceId === null ? null : await options.fleetHours.aemp.series({ accountId: accountId(c), deviceId, kind, start, end, page });
    if (shown === null) throw new FleetHoursError('device_not_found');
    if (shown === 'no_such_page') throw _noPage();
    return _answer(
      c,
      fleetElement({ snapshotTime: shown.snapshotTime, links: _links(c, page, shown.lastPage), equipment: [seriesElement(shown)] }),
      true,
    );
  };
}
