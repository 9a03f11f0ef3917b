/**
 * The inline style and script of the fleet view (`fleet-view-page.ts`). They are kept as text so the
 * page stays one self-contained document that works with no internet access, and so their SHA-256
 * can be named in the page's Content-Security-Policy. The script is plain browser JavaScript: it
 * uses only the public read API, with the key the user types (kept in sessionStorage, never in a URL).
 *
 * The charts are drawn by hand as SVG: stacked bars need a few dozen lines, a chart library would
 * add a dependency to bundle and keep current for no gain.
 */

/** The page's style sheet. */
export const FLEET_VIEW_STYLE = String.raw`
:root { color-scheme: light dark; --line: #8884; --muted: #6b7280; --accent: #2563eb; --moving: #2563eb; --idle: #f59e0b; --day: #8882; --marker: #9333ea; --bad: #b91c1c; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; overflow-wrap: anywhere; }
header, main { max-width: 68rem; margin: 0 auto; padding: .75rem 1rem; }
header { border-bottom: 1px solid var(--line); }
h1 { margin: 0; font-size: 1.5rem; }
h2 { margin: 1.5rem 0 .5rem; font-size: 1.2rem; }
p { margin: .25rem 0; }
.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
form.row, .row { display: flex; flex-wrap: wrap; gap: .5rem .75rem; align-items: center; margin: .5rem 0; }
input, button, select { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: inherit; max-width: 100%; }
#api-key { width: 24rem; }
button { cursor: pointer; border-color: var(--accent); color: var(--accent); }
button.link { border: 0; padding: 0; text-align: left; text-decoration: underline; }
#status:empty, #problem:empty { display: none; }
#status { margin: .5rem 0; padding: .4rem .6rem; border-left: 4px solid var(--idle); }
#problem { margin: .5rem 0; padding: .4rem .6rem; border-left: 4px solid var(--bad); color: var(--bad); font-weight: 600; }
#problem p { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-top: 1px solid var(--line); }
thead th { border-top: 0; font-size: .9em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.sub { display: block; font-size: .85em; color: var(--muted); font-weight: normal; }
figure { margin: .5rem 0 1rem; }
figcaption { margin: .25rem 0; }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart text { fill: currentColor; font-size: 11px; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .moving { fill: var(--moving); }
svg.chart .idle { fill: var(--idle); }
svg.chart .day-length { fill: var(--day); }
svg.chart .day-marker { fill: var(--marker); font-weight: 700; }
svg.chart .dst-day .day-length { fill: none; stroke: var(--marker); stroke-width: 1.5; stroke-dasharray: 3 2; }
.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: .25rem 0; padding: 0; list-style: none; font-size: .9em; }
.swatch { display: inline-block; width: .9em; height: .9em; margin-right: .35em; vertical-align: -.1em; border-radius: 2px; }
.swatch.moving { background: var(--moving); }
.swatch.idle { background: var(--idle); }
.swatch.day { border: 1.5px dashed var(--marker); }
.marker-text { color: var(--marker); font-weight: 700; }
details { margin: .25rem 0; }
details table { font-size: .9em; }
@media (max-width: 40rem) {
  #vehicles thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  #vehicles, #vehicles tbody, #vehicles tr, #vehicles th, #vehicles td { display: block; width: 100%; }
  #vehicles tr { border-top: 1px solid var(--line); padding: .4rem 0; }
  #vehicles th, #vehicles td { border: 0; padding: .1rem 0; }
  #vehicles td { display: flex; justify-content: space-between; gap: 1rem; text-align: right; }
  #vehicles td::before { content: attr(data-label); color: var(--muted); text-align: left; }
}
`;

/** The page's script. It must hold no backtick and no dollar-brace: it lives in a template literal. */
export const FLEET_VIEW_SCRIPT = String.raw`
(() => {
  'use strict';
  const KEY_STORAGE = 'fleet-hours-api-key';
  // The API lives beside the page, wherever the app is mounted ("/" alone, "/fleet" in a host app).
  const base = location.pathname.replace(/\/+$/, '');
  const $ = (id) => document.getElementById(id);
  // How often the vehicles and meters are read again, so open segments are seen counting up.
  const REFRESH_MS = 1000 * (Number($('fleet').getAttribute('data-refresh-seconds')) || 30);
  const SVG_NS = document.querySelector('svg.chart').namespaceURI;

  // --- Small DOM helpers -------------------------------------------------------------------------
  function fill(node, attributes, children) {
    Object.keys(attributes || {}).forEach((name) => {
      const value = attributes[name];
      if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    });
    (children || []).forEach((child) => {
      if (child === null || child === undefined || child === '') return;
      node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    });
    return node;
  }
  const el = (tag, attributes, children) => fill(document.createElement(tag), attributes, children);
  const svg = (tag, attributes, children) => fill(document.createElementNS(SVG_NS, tag), attributes, children);

  // --- Numbers, dates and local days ---------------------------------------------------------------
  const pad2 = (number) => String(number).padStart(2, '0');
  /** Whole seconds as hours:minutes, the seconds dropped: 9000 → "2:30". */
  function hoursMinutes(seconds) {
    const minutes = Math.floor(seconds / 60);
    return Math.floor(minutes / 60) + ':' + pad2(minutes % 60);
  }
  /** A day's length in words: 82800 → "23 h", 84600 → "23 h 30 min". */
  function lengthText(seconds) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    return hours + ' h' + (minutes ? ' ' + minutes + ' min' : '');
  }
  function addDays(date, days) {
    const [year, month, day] = date.split('-').map(Number);
    return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
  }
  function browserToday() {
    const now = new Date();
    return now.getFullYear() + '-' + pad2(now.getMonth() + 1) + '-' + pad2(now.getDate());
  }
  const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const dateLabel = (date) => shortDate.format(new Date(date + 'T12:00:00Z'));

  const dateFormats = new Map();
  /** The local date at an instant in a zone, as a number YYYYMMDD (so dates compare as numbers). */
  function localDateNumber(epochSeconds, zone) {
    let format = dateFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' });
      dateFormats.set(zone, format);
    }
    const parts = {};
    format.formatToParts(new Date(epochSeconds * 1000)).forEach((part) => { parts[part.type] = part.value; });
    return Number(parts.year) * 10000 + Number(parts.month) * 100 + Number(parts.day);
  }
  /**
   * The first second of a local date in a zone: the first instant whose local date is that date or
   * later. Not always 00:00 (a zone may skip midnight); found by bisection, since no zone is more
   * than 14 h ahead of UTC or 12 h behind it.
   */
  function startOfLocalDay(date, zone) {
    const [year, month, day] = date.split('-').map(Number);
    const target = year * 10000 + month * 100 + day;
    const wall = Date.UTC(year, month - 1, day) / 1000;
    let before = wall - 15 * 3600;
    let after = wall + 39 * 3600;
    while (after - before > 1) {
      const middle = Math.floor((before + after) / 2);
      if (localDateNumber(middle, zone) >= target) after = middle;
      else before = middle;
    }
    return after;
  }
  /** Seconds from the start of a local date to the start of the next: 82800 or 90000 on DST days. */
  const dayLengthSeconds = (date, zone) => startOfLocalDay(addDays(date, 1), zone) - startOfLocalDay(date, zone);

  // --- Talking to the API ------------------------------------------------------------------------
  let apiKey = '';
  // Bumped whenever the key changes: answers and waits that belong to an older key are dropped.
  let generation = 0;
  class Stale extends Error {}
  class ApiProblem extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  // Waiting notices ("rate limited, retrying in 12 s") and problems, one per topic.
  const notices = new Map();
  const problems = new Map();
  function setNotice(topic, text) {
    if (text) notices.set(topic, text);
    else notices.delete(topic);
    $('status').textContent = Array.from(notices.values()).join(' · ');
  }
  function setProblem(topic, text) {
    if (text) problems.set(topic, text);
    else problems.delete(topic);
    const box = $('problem');
    box.textContent = '';
    problems.forEach((message) => box.appendChild(el('p', {}, [message])));
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  async function countdown(topic, seconds, describe, myGeneration) {
    for (let left = seconds; left > 0; left -= 1) {
      if (myGeneration !== generation) throw new Stale();
      setNotice(topic, describe(left));
      await sleep(1000);
    }
    if (myGeneration !== generation) throw new Stale();
    setNotice(topic, topic + ': retrying now');
  }
  function retryAfterSeconds(response, fallback) {
    const value = (response.headers.get('Retry-After') || '').trim();
    if (/^\d+$/.test(value)) return Math.max(1, Number(value));
    const at = Date.parse(value);
    return Number.isNaN(at) ? fallback : Math.max(1, Math.ceil((at - Date.now()) / 1000));
  }

  /**
   * GET one API path with the key. Waits and retries on 429 and 503 as Retry-After says, and while
   * the network is down, telling so on screen; any other error becomes an ApiProblem.
   */
  async function api(topic, path, query) {
    const myGeneration = generation;
    const search = new URLSearchParams();
    Object.keys(query || {}).forEach((name) => {
      const value = query[name];
      if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
    });
    const url = base + path + (search.toString() ? '?' + search.toString() : '');
    let networkDelay = 2;
    for (;;) {
      if (myGeneration !== generation) throw new Stale();
      let response;
      try {
        response = await fetch(url, { headers: { Authorization: 'Bearer ' + apiKey, Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' });
      } catch (error) {
        await countdown(topic, networkDelay, (left) => topic + ': cannot reach the server (is the network down?), retrying in ' + left + ' s', myGeneration);
        networkDelay = Math.min(networkDelay * 2, 60);
        continue;
      }
      if (myGeneration !== generation) throw new Stale();
      if (response.ok) {
        const body = await response.json();
        setNotice(topic, '');
        return body;
      }
      let error = {};
      try {
        error = (await response.json()).error || {};
      } catch (ignored) { /* not JSON: a proxy's page */ }
      if (response.status === 429) {
        await countdown(topic, retryAfterSeconds(response, 60), (left) => topic + ': rate limited, retrying in ' + left + ' s', myGeneration);
        continue;
      }
      if (response.status === 503) {
        await countdown(topic, retryAfterSeconds(response, 10), (left) => topic + ': the service is unavailable (503), retrying in ' + left + ' s', myGeneration);
        continue;
      }
      setNotice(topic, '');
      throw new ApiProblem(response.status, error.code || '', error.message || response.statusText || '');
    }
  }

  /** Every item of a paged fleet endpoint, following next_cursor. */
  async function allPages(topic, path, query) {
    const items = [];
    const seen = new Set();
    let cursor = null;
    do {
      const page = await api(topic, path, Object.assign({}, query, { cursor: cursor }));
      page.data.forEach((item) => items.push(item));
      cursor = page.next_cursor;
      if (cursor !== null && seen.has(cursor)) throw new Error('the server sent the same page cursor twice');
      seen.add(cursor);
    } while (cursor !== null && cursor !== undefined);
    return items;
  }

  const WORDS = {
    missing_api_key: 'Enter an API key to see the fleet',
    unknown_api_key: 'The server does not know this key: check that it was copied whole',
    revoked_api_key: 'The key is revoked: ask the account holder for a new one',
    expired_api_key: 'The key has expired: ask the account holder for a new one',
    multiple_credentials: 'The request carried more than one key',
    plan_without_api_access: 'This account\'s plan does not include API access',
    invalid_parameter: 'The server refused the request',
    device_not_found: 'That vehicle is not on this account any more',
    not_found: 'This server does not offer this part of the API',
    internal_error: 'The server failed to answer',
  };
  function describeProblem(error) {
    if (!(error instanceof ApiProblem)) return 'Something went wrong in this page: ' + error.message;
    const words = WORDS[error.code] || 'The request failed';
    return words + ' (' + error.status + (error.message ? ': ' + error.message : '') + ')';
  }
  function handleError(topic, error) {
    if (error instanceof Stale) return;
    const refused = error instanceof ApiProblem && (error.status === 401 || error.status === 403);
    // A refused key is one problem, however many requests it failed; the rest name their topic.
    if (refused) setProblem('Key', describeProblem(error));
    else setProblem(topic, topic + ': ' + describeProblem(error));
    // A key that is refused stays refused: stop asking, and do not offer it again after a reload.
    if (refused) {
      stopRefresh();
      remember('');
    }
  }

  // --- Vehicles and meters -----------------------------------------------------------------------
  let devices = [];
  let meters = new Map();
  let refreshTimer = null;
  let refreshingGeneration = -1;
  const stopRefresh = () => {
    if (refreshTimer !== null) clearInterval(refreshTimer);
    refreshTimer = null;
  };

  async function refreshVehicles() {
    if (refreshingGeneration === generation) return;
    const myGeneration = generation;
    refreshingGeneration = myGeneration;
    try {
      const [list, meterList] = await Promise.all([api('Vehicles', '/api/v1/devices'), allPages('Meters', '/api/v1/meter', { limit: 500 })]);
      if (myGeneration !== generation) return;
      devices = list.data;
      meters = new Map(meterList.map((meter) => [meter.device_id, meter]));
      setProblem('Vehicles', '');
      setProblem('Meters', '');
      renderVehicles();
      fillVehicleChoice();
    } catch (error) {
      handleError(error instanceof ApiProblem && error.code === 'not_found' ? 'Meters' : 'Vehicles', error);
    } finally {
      if (refreshingGeneration === myGeneration) refreshingGeneration = -1;
    }
  }

  const instantFormats = new Map();
  function localTime(iso, zone) {
    let format = instantFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
      instantFormats.set(zone, format);
    }
    return format.format(new Date(iso));
  }
  /** An instant as a time of this browser's zone, with the zone said: "7:03:51 PM GMT+1 (Europe/Berlin)". */
  function browserTime(iso) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return new Date(iso).toLocaleTimeString(undefined, { timeZoneName: 'short' }) + (zone ? ' (' + zone + ')' : '');
  }
  function ago(iso) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (seconds < 90) return 'just now';
    if (seconds < 5400) return Math.round(seconds / 60) + ' min ago';
    if (seconds < 172800) return Math.round(seconds / 3600) + ' h ago';
    return Math.round(seconds / 86400) + ' days ago';
  }

  function renderVehicles() {
    const body = $('vehicles-body');
    body.textContent = '';
    let asOf = null;
    devices.forEach((device) => {
      const meter = meters.get(device.id) || null;
      // Instants written in different zones: compared as instants, not as text.
      if (meter && (asOf === null || Date.parse(meter.as_of) > Date.parse(asOf))) asOf = meter.as_of;
      const pick = el('button', { type: 'button', class: 'link', 'data-device-id': device.id, 'aria-label': 'Show ' + device.name + ' per day' }, [device.name]);
      pick.addEventListener('click', () => {
        $('vehicle').value = String(device.id);
        loadVehicleDays();
        $('vehicle-title').scrollIntoView({ block: 'start' });
      });
      const row = el('tr', { 'data-device-id': device.id }, [
        el('th', { scope: 'row' }, [pick, el('span', { class: 'sub' }, [[device.registration, device.model].filter(Boolean).join(' · ')])]),
        el('td', { 'data-label': 'Zone' }, [device.timezone]),
      ]);
      ['engine', 'moving', 'idle'].forEach((kind) => {
        const seconds = meter ? meter[kind + '_seconds'] : null;
        row.appendChild(el('td', {
          class: 'num meter-' + kind,
          'data-label': kind.charAt(0).toUpperCase() + kind.slice(1) + ' (h:mm)',
          'data-seconds': seconds,
          title: seconds === null ? null : seconds + ' s',
        }, [seconds === null ? '–' : hoursMinutes(seconds)]));
      });
      const last = device.last_reported_at
        ? el('time', { datetime: device.last_reported_at, title: device.last_reported_at }, [localTime(device.last_reported_at, device.timezone) + ' · ' + ago(device.last_reported_at)])
        : 'never';
      row.appendChild(el('td', { class: 'last-report', 'data-label': 'Last report' }, [last]));
      body.appendChild(row);
    });
    if (!devices.length) body.appendChild(el('tr', {}, [el('td', { colspan: 6 }, ['No vehicles on this account yet.'])]));
    $('meters-note').textContent = (asOf ? 'Meters since each tracker was fitted, as of ' + browserTime(asOf) + '; ' : '') +
      'refreshed every ' + REFRESH_MS / 1000 + ' s. Times of the last report are local to each vehicle.';
  }

  let choiceSignature = '';
  function fillVehicleChoice() {
    const select = $('vehicle');
    const chosen = select.value;
    // Rebuilt only when the list changed, so a refresh does not close an open menu.
    const signature = JSON.stringify(devices.map((device) => [device.id, device.name, device.timezone]));
    if (signature === choiceSignature && chosen) return;
    choiceSignature = signature;
    select.textContent = '';
    devices.forEach((device) => select.appendChild(el('option', { value: device.id }, [device.name + ' (' + device.timezone + ')'])));
    if (devices.some((device) => String(device.id) === chosen)) select.value = chosen;
    if (!chosen && devices.length) loadVehicleDays();
  }

  // --- Charts ------------------------------------------------------------------------------------
  const STEPS = [1, 2, 3, 4, 6, 8, 12, 24, 48, 72, 96, 120, 168, 240, 360, 480, 720, 960, 1200];
  const drawn = new Map();

  /**
   * Draws stacked moving/idle bars per local date into a figure, with a text alternative: a summary
   * in the figcaption and every value in a table. With day lengths (one vehicle), each day's real
   * length stands behind its bar and days that are not 24 h long are marked.
   */
  function drawChart(figure, series, summary) {
    drawn.set(figure.id, { series: series, summary: summary });
    const chart = figure.querySelector('svg.chart');
    const withDays = series.some((day) => day.dayLength !== undefined);
    const width = Math.max(260, Math.round(figure.clientWidth || 640));
    const height = 240;
    const left = 40;
    const right = 6;
    const top = withDays ? 22 : 10;
    const bottom = 24;
    const plotWidth = width - left - right;
    const plotHeight = height - top - bottom;
    const most = Math.max(3600, ...series.map((day) => Math.max(day.moving + day.idle, day.dayLength || 0)));
    const step = STEPS.find((hours) => hours * 4 >= most / 3600) || Math.ceil(most / 3600 / 400) * 100;
    const topHours = Math.ceil(most / 3600 / step) * step;
    const y = (seconds) => top + plotHeight - (seconds / 3600 / topHours) * plotHeight;

    chart.textContent = '';
    fill(chart, { viewBox: '0 0 ' + width + ' ' + height, width: width, height: height, role: 'img', 'aria-label': summary });
    for (let hours = 0; hours <= topHours; hours += step) {
      chart.appendChild(svg('line', { class: 'grid', x1: left, x2: width - right, y1: y(hours * 3600), y2: y(hours * 3600) }));
      chart.appendChild(svg('text', { x: left - 4, y: y(hours * 3600) + 4, 'text-anchor': 'end' }, [hours + ' h']));
    }
    const slot = plotWidth / Math.max(1, series.length);
    const barWidth = Math.max(1, slot * 0.7);
    const labelEvery = Math.max(1, Math.ceil(series.length / Math.max(1, Math.floor(plotWidth / 52))));
    series.forEach((day, index) => {
      const x = left + index * slot + (slot - barWidth) / 2;
      const unusual = day.dayLength !== undefined && day.dayLength !== 86400;
      const note = day.dayLength === undefined ? '' : unusual ? '; the day lasted ' + lengthText(day.dayLength) : '';
      const bar = svg('g', {
        class: 'bar' + (unusual ? ' dst-day' : ''),
        'data-date': day.date,
        'data-moving-seconds': day.moving,
        'data-idle-seconds': day.idle,
        'data-day-seconds': day.dayLength,
      }, [svg('title', {}, [day.date + ': engine ' + hoursMinutes(day.moving + day.idle) + ' (moving ' + hoursMinutes(day.moving) + ', idle ' + hoursMinutes(day.idle) + ')' + note])]);
      if (day.dayLength !== undefined) {
        bar.appendChild(svg('rect', { class: 'day-length', x: x, width: barWidth, y: y(day.dayLength), height: y(0) - y(day.dayLength) }));
      }
      bar.appendChild(svg('rect', { class: 'moving', x: x, width: barWidth, y: y(day.moving), height: y(0) - y(day.moving) }));
      bar.appendChild(svg('rect', { class: 'idle', x: x, width: barWidth, y: y(day.moving + day.idle), height: y(day.moving) - y(day.moving + day.idle) }));
      if (unusual) {
        bar.appendChild(svg('text', { class: 'day-marker', x: x + barWidth / 2, y: y(day.dayLength) - 5, 'text-anchor': 'middle' }, [lengthText(day.dayLength)]));
      }
      chart.appendChild(bar);
      if (index % labelEvery === 0) {
        chart.appendChild(svg('text', { x: x + barWidth / 2, y: height - 8, 'text-anchor': 'middle' }, [dateLabel(day.date)]));
      }
    });

    figure.querySelector('figcaption').textContent = summary;
    const rows = series.map((day) => el('tr', { 'data-date': day.date }, [
      el('th', { scope: 'row' }, [day.date]),
      el('td', { class: 'num' }, [hoursMinutes(day.moving + day.idle)]),
      el('td', { class: 'num' }, [hoursMinutes(day.moving)]),
      el('td', { class: 'num' }, [hoursMinutes(day.idle)]),
      withDays ? el('td', { class: 'num' + (day.dayLength !== 86400 ? ' marker-text' : '') }, [lengthText(day.dayLength) + (day.dayLength !== 86400 ? ' (clock change)' : '')]) : null,
    ]));
    const table = figure.querySelector('table');
    table.textContent = '';
    table.appendChild(el('thead', {}, [el('tr', {}, [
      el('th', { scope: 'col' }, ['Local date']),
      el('th', { scope: 'col', class: 'num' }, ['Engine']),
      el('th', { scope: 'col', class: 'num' }, ['Moving']),
      el('th', { scope: 'col', class: 'num' }, ['Idle']),
      withDays ? el('th', { scope: 'col', class: 'num' }, ['Day length']) : null,
    ])]));
    table.appendChild(el('tbody', {}, rows));
  }

  function totalsOf(series) {
    const moving = series.reduce((sum, day) => sum + day.moving, 0);
    const idle = series.reduce((sum, day) => sum + day.idle, 0);
    const busiest = series.reduce((best, day) => (best === null || day.moving + day.idle > best.moving + best.idle ? day : best), null);
    return 'engine ' + hoursMinutes(moving + idle) + ' in all (moving ' + hoursMinutes(moving) + ', idle ' + hoursMinutes(idle) + ')' +
      (busiest && busiest.moving + busiest.idle > 0 ? '; the busiest day was ' + busiest.date + ' with ' + hoursMinutes(busiest.moving + busiest.idle) : '');
  }

  // --- The window and the two daily charts -------------------------------------------------------
  /** Whole days from one date to a later one. */
  const daysBetween = (from, to) => Math.round((Date.parse(to + 'T00:00:00Z') - Date.parse(from + 'T00:00:00Z')) / 86400000);
  /**
   * The window the API applied, from the from and to of its answers (timestamps on the vehicles'
   * own clocks, so their first ten characters are the local dates), and what the caption says of
   * it: the server shortens a window that reaches back too far, and the caption must show the days
   * the chart holds, not the ones asked for.
   */
  function appliedWindow(span, answers) {
    if (!answers.length) return span.from + ' to ' + span.to;
    const from = answers.map((answer) => answer.from.slice(0, 10)).sort()[0];
    const to = answers.map((answer) => answer.to.slice(0, 10)).sort().reverse()[0];
    const text = from + ' to ' + to;
    if (from > span.from) return text + ' (shortened from ' + span.from + ': the API answers at most ' + daysBetween(from, to) + ' days before To)';
    return text;
  }

  let fleetRequest = 0;
  let vehicleRequest = 0;
  function chosenWindow() {
    const from = $('from').value;
    const to = $('to').value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) {
      setProblem('Window', 'Window: choose a From and a To date');
      return null;
    }
    if (from > to) {
      setProblem('Window', 'Window: From (' + from + ') is after To (' + to + ')');
      return null;
    }
    setProblem('Window', '');
    return { from: from, to: to };
  }

  async function loadFleetDays() {
    const span = chosenWindow();
    if (!span) return;
    const token = ++fleetRequest;
    const figure = $('fleet-chart');
    figure.setAttribute('aria-busy', 'true');
    try {
      const dailies = await allPages('Fleet days', '/api/v1/hours/daily', { from: span.from, to: span.to, limit: 100 });
      if (token !== fleetRequest) return;
      // The fleet's engine time per local date: every vehicle's own local day, summed by date.
      const byDate = new Map();
      dailies.forEach((daily) => daily.data.forEach((entry) => {
        const day = byDate.get(entry.date) || { date: entry.date, moving: 0, idle: 0 };
        day.moving += entry.moving_seconds;
        day.idle += entry.idle_seconds;
        byDate.set(entry.date, day);
      }));
      const series = Array.from(byDate.values()).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      setProblem('Fleet days', '');
      drawChart(figure, series, 'Engine time of all ' + dailies.length + ' vehicles per local day, ' + appliedWindow(span, dailies) + ': ' + totalsOf(series) + '.');
    } catch (error) {
      handleError('Fleet days', error);
    } finally {
      if (token === fleetRequest) figure.removeAttribute('aria-busy');
    }
  }

  async function loadVehicleDays() {
    const span = chosenWindow();
    const device = devices.find((candidate) => String(candidate.id) === $('vehicle').value);
    if (!span || !device) return;
    const token = ++vehicleRequest;
    const figure = $('vehicle-chart');
    figure.setAttribute('aria-busy', 'true');
    try {
      const daily = await api('Vehicle days', '/api/v1/devices/' + encodeURIComponent(device.id) + '/hours/daily', { from: span.from, to: span.to });
      if (token !== vehicleRequest) return;
      const series = daily.data.map((entry) => ({
        date: entry.date,
        moving: entry.moving_seconds,
        idle: entry.idle_seconds,
        dayLength: dayLengthSeconds(entry.date, daily.timezone),
      }));
      const unusual = series.filter((day) => day.dayLength !== 86400);
      setProblem('Vehicle days', '');
      drawChart(figure, series, device.name + ' per local day in ' + daily.timezone + ', ' + appliedWindow(span, [daily]) + ': ' + totalsOf(series) + '. ' +
        (unusual.length ? unusual.map((day) => day.date + ' lasted ' + lengthText(day.dayLength)).join(', ') + ' (clock change), marked above its bar.' : 'Every day of the window lasted 24 h.'));
    } catch (error) {
      handleError('Vehicle days', error);
    } finally {
      if (token === vehicleRequest) figure.removeAttribute('aria-busy');
    }
  }

  // --- Starting and stopping ---------------------------------------------------------------------
  function remember(key) {
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch (ignored) { /* storage disabled: the key lives in this page only */ }
  }
  function recall() {
    try {
      return sessionStorage.getItem(KEY_STORAGE) || '';
    } catch (ignored) {
      return '';
    }
  }

  /** Empties every view, so that nothing of an earlier key stays on screen. */
  function clearViews() {
    notices.clear();
    problems.clear();
    setNotice('', '');
    setProblem('', '');
    devices = [];
    meters = new Map();
    choiceSignature = '';
    $('vehicle').textContent = '';
    $('vehicles-body').textContent = '';
    $('meters-note').textContent = '';
    drawn.clear();
    ['fleet-chart', 'vehicle-chart'].forEach((id) => {
      const figure = $(id);
      figure.querySelector('svg.chart').textContent = '';
      figure.querySelector('figcaption').textContent = '';
      figure.querySelector('table').textContent = '';
    });
  }

  function start(key) {
    apiKey = key;
    generation += 1;
    remember(key);
    clearViews();
    $('fleet').hidden = false;
    stopRefresh();
    refreshTimer = setInterval(() => {
      if (!document.hidden) refreshVehicles();
    }, REFRESH_MS);
    refreshVehicles();
    loadFleetDays();
  }

  function forget() {
    generation += 1;
    apiKey = '';
    remember('');
    stopRefresh();
    $('api-key').value = '';
    clearViews();
    $('fleet').hidden = true;
  }

  $('docs-link').setAttribute('href', base + '/docs');
  $('to').value = browserToday();
  $('from').value = addDays(browserToday(), -6);
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = $('api-key').value.trim();
    if (!key) {
      setProblem('Key', 'Enter an API key to see the fleet');
      return;
    }
    setProblem('Key', '');
    start(key);
  });
  $('forget-key').addEventListener('click', forget);
  $('window-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!apiKey) return;
    loadFleetDays();
    loadVehicleDays();
  });
  $('vehicle').addEventListener('change', loadVehicleDays);
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => drawn.forEach((last, id) => drawChart($(id), last.series, last.summary)), 150);
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && refreshTimer !== null) refreshVehicles();
  });

  const stored = recall();
  if (stored) {
    $('api-key').value = stored;
    start(stored);
  }
})();
`;
