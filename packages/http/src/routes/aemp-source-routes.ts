import {
  aempPollRecordBody,
  aempSourceBody,
  aempSourceEntityTag,
  FleetHoursError,
  readAempSourceFields,
  type AempSource,
  type FleetHours,
} from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { changeOrigin } from './change-origin.js';
import { readJsonBody } from './device-writes.js';
import { listRoute, pagedList, wholeList } from './list-route.js';
import { parseDeviceId } from './parse-device-id.js';
import { routeQuery, wholeQueryNumber } from './webhook-routes.js';

/**
 * The routes of AEMP sources (D52, D65, P133): each reads the request, asks core's `manage` and
 * answers; every check is core's. A source of another account is 404 exactly as a missing one.
 * No answer holds a secret.
 */

/** What the routes of this file are given by the app. */
export interface AempSourceRouteOptions {
  readonly fleetHours: FleetHours;
  /** The app's clock, epoch milliseconds. */
  readonly now: () => number;
}

type _Route = (options: AempSourceRouteOptions) => Handler<FleetHoursEnv>;

const _notFound = () => new FleetHoursError('not_found', { message: 'No such AEMP source on this account' });

/** The source id of the path; `null` for a text no source has (then 404, as a missing one). */
const _id = (c: Context<FleetHoursEnv>) => parseDeviceId(c.req.param('id') ?? '');

const _answer = (c: Context<FleetHoursEnv>, source: AempSource, status: 200 | 201 = 200) =>
  jsonResponse(c, aempSourceBody(source), status, {
    ETag: aempSourceEntityTag(source),
    ...(status === 201 ? { Location: `${c.req.path.replace(/\/$/, '')}/${source.id}` } : {}),
  });

/** `GET /api/v1/aemp/sources`: the account's sources, by id, without secrets. */
export const listAempSourcesRoute: _Route = (options) =>
  listRoute('listAempSources', options.now, async function listAempSources(c) {
    const sources = await options.fleetHours.manage.listAempSources({ accountId: accountId(c) });
    return wholeList({ data: sources.map(aempSourceBody) });
  });

/** `POST /api/v1/aemp/sources`: a new source, 201, enabled and due at once. */
export const createAempSourceRoute: _Route = (options) =>
  async function createAempSource(c) {
    const body = await readJsonBody(c);
    const created = await options.fleetHours.manage.createAempSource({ accountId: accountId(c), body, origin: changeOrigin(c) });
    if (!created) throw new FleetHoursError('internal_error', { message: 'The account of an admitted key is gone' });
    return _answer(c, created, 201);
  };

/** `GET /api/v1/aemp/sources/{id}`: one source, with its `ETag` (D54). */
export const getAempSourceRoute: _Route = (options) =>
  async function getAempSource(c) {
    const sourceId = _id(c);
    const source = sourceId === null ? null : await options.fleetHours.manage.findAempSource({ accountId: accountId(c), sourceId });
    if (!source) throw _notFound();
    return _answer(c, source);
  };

/** `PATCH /api/v1/aemp/sources/{id}`: changes the fields given; `If-Match` (D54). */
export const updateAempSourceRoute: _Route = (options) =>
  async function updateAempSource(c) {
    const sourceId = _id(c);
    const body = await readJsonBody(c);
    // The fields are checked first whatever the id: a source that is not there is the last check.
    if (sourceId === null) readAempSourceFields(body, 'update');
    const updated =
      sourceId === null
        ? null
        : await options.fleetHours.manage.updateAempSource({
            accountId: accountId(c),
            sourceId,
            body,
            ifMatch: c.req.header('If-Match'),
            origin: changeOrigin(c),
          });
    if (!updated) throw _notFound();
    return _answer(c, updated);
  };

/** `DELETE /api/v1/aemp/sources/{id}`: 204, its polls with it (its readings stay); `If-Match` (D54). */
export const deleteAempSourceRoute: _Route = (options) =>
  async function deleteAempSource(c) {
    const sourceId = _id(c);
    const removed =
      sourceId === null
        ? null
        : await options.fleetHours.manage.removeAempSource({
            accountId: accountId(c),
            sourceId,
            ifMatch: c.req.header('If-Match'),
            origin: changeOrigin(c),
          });
    if (!removed) throw _notFound();
    return c.body(null, 204);
  };

/** `GET /api/v1/aemp/sources/{id}/polls?limit=&cursor=`: the source's polls, newest first, a page at a time (P135). */
export const listAempPollsRoute: _Route = (options) =>
  listRoute('listAempPolls', options.now, async function listAempPolls(c) {
    const sourceId = _id(c);
    const query = routeQuery(c, ['limit', 'cursor']);
    const limit = query.limit === undefined ? undefined : wholeQueryNumber(query.limit, 'limit');
    return pagedList(async (cursor) => {
      const page =
        sourceId === null ? null : await options.fleetHours.manage.listAempPolls({ accountId: accountId(c), sourceId, limit, cursor });
      if (!page) throw _notFound();
      return {
        body: { data: page.data.map((poll) => aempPollRecordBody(poll.id, poll)), next_cursor: page.nextCursor },
        nextCursor: page.nextCursor,
      };
    }, query.cursor);
  });
