// @ts-check
/**
 * The fleet view's script, inlined into the page (`fleet-view-page.ts`) as it is written here: the
 * build and the tests read this file as text, and the page's Content-Security-Policy names its
 * SHA-256. Plain browser JavaScript, type-checked through its JSDoc (`npm run typecheck`). It uses
 * only the public read API, with the key the user types (kept in sessionStorage, never in a URL).
 */

/** @typedef {{ id: number, name: string, registration: string | null, model: string | null, timezone: string, last_reported_at: string | null }} Device A vehicle, as `/api/v1/devices` lists it (the fields the page reads). */
/** @typedef {{ device_id: number, as_of: string, engine_seconds: number, moving_seconds: number, idle_seconds: number, hour_meter_seconds: number, hour_meter_read_at: string | null }} Meter An element of `/api/v1/meter` (the hour meter: D38). */
/** @typedef {'ok' | 'due_soon' | 'overdue'} ServiceStatus Where a schedule stands (D39). */
/** @typedef {{ id: number, name: string, interval_seconds: number, interval_days: number | null, due_soon_seconds: number, due_soon_days: number | null, due_hour_meter_seconds: number, due_date: string | null, remaining_seconds: number, remaining_days: number | null, status: ServiceStatus }} Schedule A schedule of a service body (the fields the page reads). */
/** @typedef {{ device_id: number, as_of: string, hour_meter_seconds: number, data: Schedule[] }} Service An element of `/api/v1/service` (D39). */
/** @typedef {{ schedule: Schedule, unit: 'seconds' | 'days', remaining: number, share: number }} Limit The limit of a schedule that comes first: engine seconds or calendar days left, and the share of its interval that is left. */
/** @typedef {{ date: string, moving_seconds: number, idle_seconds: number }} DailyEntry One local date of a daily series. */
/** @typedef {{ device_id: number, timezone: string, from: string, to: string, data: DailyEntry[] }} Daily The body of `/hours/daily`, and an element of the fleet's. */
/** @typedef {{ date: string, moving: number, idle: number, dayLength?: number }} Day A bar of a chart: engine seconds of one local date, and the date's length when it is one vehicle's. */
/** @typedef {{ from: string, to: string }} Span A window as chosen in the form: two local dates. */
/** @typedef {Record<string, string | number | null | undefined>} Attributes Attributes to set; null and undefined ones are left out. */
/** @typedef {Node | string | number | null | undefined} Child A child to append; text for strings and numbers, nothing for null, undefined and "". */
/** @typedef {Record<string, string | number | null | undefined>} Query Query parameters; empty ones are left out. */

(() => {
  const KEY_STORAGE = 'fleet-hours-api-key';
  // The API lives beside the page, wherever the app is mounted ("/" alone, "/fleet" in a host app).
  const base = location.pathname.replace(/\/+$/, '');
  /**
   * An element of the page by id. Every id the script asks for is in the page's HTML: a missing
   * one is a bug of the page, told at once rather than as a null dereference later.
   * @param {string} id
   * @returns {HTMLElement}
   */
  function $(id) {
    const element = document.getElementById(id);
    if (!element) throw new Error(`The page has no element #${id}`);
    return element;
  }
  /** @param {string} id @returns {HTMLInputElement} */
  const input = (id) => /** @type {HTMLInputElement} */ ($(id));
  /** @returns {HTMLSelectElement} */
  const vehicleSelect = () => /** @type {HTMLSelectElement} */ ($('vehicle'));
  /**
   * The element matching a selector inside another, which the page's HTML always holds.
   * @param {ParentNode} parent
   * @param {string} selector
   * @returns {Element}
   */
  function inside(parent, selector) {
    const element = parent.querySelector(selector);
    if (!element) throw new Error(`The page has no ${selector}`);
    return element;
  }
  // How often the vehicles and meters are read again, so open segments are seen counting up.
  const REFRESH_MS = 1000 * (Number($('fleet').getAttribute('data-refresh-seconds')) || 30);
  const SVG_NS = inside(document, 'svg.chart').namespaceURI;

  // --- Small DOM helpers -------------------------------------------------------------------------
  /**
   * @template {Element} T
   * @param {T} node
   * @param {Attributes} [attributes]
   * @param {Child[]} [children]
   * @returns {T}
   */
  function fill(node, attributes, children) {
    const given = attributes || {};
    Object.keys(given).forEach((name) => {
      const value = given[name];
      if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    });
    (children || []).forEach((child) => {
      if (child === null || child === undefined || child === '') return;
      node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    });
    return node;
  }
  /** @param {string} tag @param {Attributes} [attributes] @param {Child[]} [children] */
  const el = (tag, attributes, children) => fill(document.createElement(tag), attributes, children);
  /** @param {string} tag @param {Attributes} [attributes] @param {Child[]} [children] */
  const svg = (tag, attributes, children) => fill(document.createElementNS(SVG_NS, tag), attributes, children);

  // --- Numbers, dates and local days ---------------------------------------------------------------
  /** @param {number} number */
  const pad2 = (number) => String(number).padStart(2, '0');
  /** Whole seconds as hours:minutes, the seconds dropped: 9000 → "2:30". @param {number} seconds */
  function hoursMinutes(seconds) {
    const minutes = Math.floor(seconds / 60);
    return `${Math.floor(minutes / 60)}:${pad2(minutes % 60)}`;
  }
  /** A day's length in words: 82800 → "23 h", 84600 → "23 h 30 min". @param {number} seconds */
  function lengthText(seconds) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    return `${hours} h${minutes ? ` ${minutes} min` : ''}`;
  }
  /** @param {string} date @param {number} days @returns {string} */
  function addDays(date, days) {
    const [year, month, day] = dateParts(date);
    return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
  }
  function browserToday() {
    const now = new Date();
    return `${now.getFullYear()}-${pad2(now.getMonth() + 1)}-${pad2(now.getDate())}`;
  }
  const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  /** @param {string} date */
  const dateLabel = (date) => shortDate.format(new Date(`${date}T12:00:00Z`));
  /** The year, month and day of a local date "YYYY-MM-DD". @param {string} date @returns {[number, number, number]} */
  function dateParts(date) {
    const [year, month, day] = date.split('-').map(Number);
    return [year || 0, month || 0, day || 0];
  }

  /** @type {Map<string, Intl.DateTimeFormat>} */
  const dateFormats = new Map();
  /** The local date at an instant in a zone, as a number YYYYMMDD (so dates compare as numbers). @param {number} epochSeconds @param {string} zone */
  function localDateNumber(epochSeconds, zone) {
    let format = dateFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' });
      dateFormats.set(zone, format);
    }
    /** @type {Record<string, string>} */
    const parts = {};
    format.formatToParts(new Date(epochSeconds * 1000)).forEach((part) => {
      parts[part.type] = part.value;
    });
    return Number(parts.year) * 10000 + Number(parts.month) * 100 + Number(parts.day);
  }
  /**
   * The first second of a local date in a zone: the first instant whose local date is that date or
   * later. Not always 00:00 (a zone may skip midnight); found by bisection, since no zone is more
   * than 14 h ahead of UTC or 12 h behind it.
   * @param {string} date
   * @param {string} zone
   */
  function startOfLocalDay(date, zone) {
    const [year, month, day] = dateParts(date);
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
  /** Seconds from the start of a local date to the start of the next: 82800 or 90000 on DST days. @param {string} date @param {string} zone */
  const dayLengthSeconds = (date, zone) => startOfLocalDay(addDays(date, 1), zone) - startOfLocalDay(date, zone);

  // --- Talking to the API ------------------------------------------------------------------------
  let apiKey = '';
  // Bumped whenever the key changes: answers and waits that belong to an older key are dropped.
  let generation = 0;
  class Stale extends Error {}
  class ApiProblem extends Error {
    /** @param {number} status @param {string} code @param {string} message */
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  // Waiting notices ("rate limited, retrying in 12 s") and problems, one per topic.
  /** @type {Map<string, string>} */
  const notices = new Map();
  /** @type {Map<string, string>} */
  const problems = new Map();
  /** @param {string} topic @param {string} text */
  function setNotice(topic, text) {
    if (text) notices.set(topic, text);
    else notices.delete(topic);
    $('status').textContent = Array.from(notices.values()).join(' · ');
  }
  /** @param {string} topic @param {string} text */
  function setProblem(topic, text) {
    if (text) problems.set(topic, text);
    else problems.delete(topic);
    const box = $('problem');
    box.textContent = '';
    problems.forEach((message) => box.appendChild(el('p', {}, [message])));
  }

  /** @param {number} ms */
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  /** @param {string} topic @param {number} seconds @param {(left: number) => string} describe @param {number} myGeneration */
  async function countdown(topic, seconds, describe, myGeneration) {
    for (let left = seconds; left > 0; left -= 1) {
      if (myGeneration !== generation) throw new Stale();
      setNotice(topic, describe(left));
      await sleep(1000);
    }
    if (myGeneration !== generation) throw new Stale();
    setNotice(topic, `${topic}: retrying now`);
  }
  /** @param {Response} response @param {number} fallback */
  function retryAfterSeconds(response, fallback) {
    const value = (response.headers.get('Retry-After') || '').trim();
    if (/^\d+$/.test(value)) return Math.max(1, Number(value));
    const at = Date.parse(value);
    return Number.isNaN(at) ? fallback : Math.max(1, Math.ceil((at - Date.now()) / 1000));
  }

  /**
   * GET one API path with the key. Waits and retries on 429 and 503 as Retry-After says, and while
   * the network is down, telling so on screen; any other error becomes an ApiProblem.
   * @param {string} topic
   * @param {string} path
   * @param {Query} [query]
   * @returns {Promise<any>} The JSON body: each caller knows the shape of its endpoint's.
   */
  async function api(topic, path, query) {
    const myGeneration = generation;
    const search = new URLSearchParams();
    const given = query || {};
    Object.keys(given).forEach((name) => {
      const value = given[name];
      if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
    });
    const url = base + path + (search.toString() ? `?${search.toString()}` : '');
    let networkDelay = 2;
    for (;;) {
      if (myGeneration !== generation) throw new Stale();
      let response;
      try {
        response = await fetch(url, {
          headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (_error) {
        await countdown(
          topic,
          networkDelay,
          (left) => `${topic}: cannot reach the server (is the network down?), retrying in ${left} s`,
          myGeneration,
        );
        networkDelay = Math.min(networkDelay * 2, 60);
        continue;
      }
      if (myGeneration !== generation) throw new Stale();
      if (response.ok) {
        const body = await response.json();
        setNotice(topic, '');
        return body;
      }
      /** @type {{ code?: string, message?: string }} */
      let error = {};
      try {
        error = (await response.json()).error || {};
      } catch (_ignored) {
        /* not JSON: a proxy's page */
      }
      if (response.status === 429) {
        await countdown(topic, retryAfterSeconds(response, 60), (left) => `${topic}: rate limited, retrying in ${left} s`, myGeneration);
        continue;
      }
      if (response.status === 503) {
        await countdown(
          topic,
          retryAfterSeconds(response, 10),
          (left) => `${topic}: the service is unavailable (503), retrying in ${left} s`,
          myGeneration,
        );
        continue;
      }
      setNotice(topic, '');
      throw new ApiProblem(response.status, error.code || '', error.message || response.statusText || '');
    }
  }

  /**
   * Every item of a paged fleet endpoint, following next_cursor.
   * @template T
   * @param {string} topic
   * @param {string} path
   * @param {Query} query
   * @returns {Promise<T[]>}
   */
  async function allPages(topic, path, query) {
    /** @type {T[]} */
    const items = [];
    const seen = new Set();
    let cursor = null;
    do {
      /** @type {{ data: T[], next_cursor: string | null }} */
      const page = await api(topic, path, Object.assign({}, query, { cursor: cursor }));
      page.data.forEach((item) => items.push(item));
      cursor = page.next_cursor;
      if (cursor !== null && seen.has(cursor)) throw new Error('the server sent the same page cursor twice');
      seen.add(cursor);
    } while (cursor !== null && cursor !== undefined);
    return items;
  }

  /** @type {Record<string, string>} */
  const WORDS = {
    missing_api_key: 'Enter an API key to see the fleet',
    unknown_api_key: 'The server does not know this key: check that it was copied whole',
    revoked_api_key: 'The key is revoked: ask the account holder for a new one',
    expired_api_key: 'The key has expired: ask the account holder for a new one',
    multiple_credentials: 'The request carried more than one key',
    plan_without_api_access: "This account's plan does not include API access",
    invalid_parameter: 'The server refused the request',
    device_not_found: 'That vehicle is not on this account any more',
    not_found: 'This server does not offer this part of the API',
    internal_error: 'The server failed to answer',
  };
  /** @param {unknown} error */
  function describeProblem(error) {
    if (!(error instanceof ApiProblem))
      return `Something went wrong in this page: ${error instanceof Error ? error.message : String(error)}`;
    const words = WORDS[error.code] || 'The request failed';
    return `${words} (${error.status}${error.message ? `: ${error.message}` : ''})`;
  }
  /** @param {string} topic @param {unknown} error */
  function handleError(topic, error) {
    if (error instanceof Stale) return;
    const refused = error instanceof ApiProblem && (error.status === 401 || error.status === 403);
    // A refused key is one problem, however many requests it failed; the rest name their topic.
    if (refused) setProblem('Key', describeProblem(error));
    else setProblem(topic, `${topic}: ${describeProblem(error)}`);
    // A key that is refused stays refused: stop asking, and do not offer it again after a reload.
    if (refused) {
      stopRefresh();
      remember('');
    }
  }

  // --- Vehicles and meters -----------------------------------------------------------------------
  /** @type {Device[]} */
  let devices = [];
  /** @type {Map<number, Meter>} */
  let meters = new Map();
  // Null until the service schedules have been read once for this key.
  /** @type {Map<number, Service> | null} */
  let services = null;
  /** @type {ReturnType<typeof setInterval> | null} */
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
      refreshService();
      /** @type {[{ data: Device[] }, Meter[]]} */
      const [list, meterList] = await Promise.all([
        api('Vehicles', '/api/v1/devices'),
        allPages('Meters', '/api/v1/meter', { limit: 500 }),
      ]);
      if (myGeneration !== generation) return;
      devices = list.data;
      meters = new Map(meterList.map((meter) => [meter.device_id, meter]));
      setProblem('Vehicles', '');
      setProblem('Meters', '');
      renderVehicles();
      renderServiceList();
      fillVehicleChoice();
    } catch (error) {
      handleError(error instanceof ApiProblem && error.code === 'not_found' ? 'Meters' : 'Vehicles', error);
    } finally {
      if (refreshingGeneration === myGeneration) refreshingGeneration = -1;
    }
  }

  let serviceGeneration = -1;
  /**
   * Reads the whole fleet's service schedules in pages (D32, D39), not a request per vehicle, beside
   * the vehicles and meters rather than with them: while it waits or fails, they are shown all the
   * same (with the schedules read last), and it is its own problem on screen.
   */
  async function refreshService() {
    if (serviceGeneration === generation) return;
    const myGeneration = generation;
    serviceGeneration = myGeneration;
    try {
      /** @type {Service[]} */
      const list = await allPages('Service', '/api/v1/service', { limit: 500 });
      if (myGeneration !== generation) return;
      services = new Map(list.map((service) => [service.device_id, service]));
      setProblem('Service', '');
      renderVehicles();
      renderServiceList();
    } catch (error) {
      handleError('Service', error);
    } finally {
      if (serviceGeneration === myGeneration) serviceGeneration = -1;
    }
  }

  /** @type {Map<string, Intl.DateTimeFormat>} */
  const instantFormats = new Map();
  /** @param {string} iso @param {string} zone */
  function localTime(iso, zone) {
    let format = instantFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
      instantFormats.set(zone, format);
    }
    return format.format(new Date(iso));
  }
  /** An instant as a time of this browser's zone, with the zone said: "7:03:51 PM GMT+1 (Europe/Berlin)". @param {string} iso */
  function browserTime(iso) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return new Date(iso).toLocaleTimeString(undefined, { timeZoneName: 'short' }) + (zone ? ` (${zone})` : '');
  }
  /** @param {string} iso */
  function ago(iso) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (seconds < 90) return 'just now';
    if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
    if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
    return `${Math.round(seconds / 86400)} days ago`;
  }

  function renderVehicles() {
    const body = $('vehicles-body');
    body.textContent = '';
    /** @type {string | null} */
    let asOf = null;
    devices.forEach((device) => {
      const meter = meters.get(device.id) || null;
      // Instants written in different zones: compared as instants, not as text.
      if (meter && (asOf === null || Date.parse(meter.as_of) > Date.parse(asOf))) asOf = meter.as_of;
      const pick = el(
        'button',
        { type: 'button', class: 'link', 'data-device-id': device.id, 'aria-label': `Show ${device.name} per day` },
        [device.name],
      );
      pick.addEventListener('click', () => {
        vehicleSelect().value = String(device.id);
        loadVehicleDays();
        $('vehicle-title').scrollIntoView({ block: 'start' });
      });
      const row = el('tr', { 'data-device-id': device.id }, [
        el('th', { scope: 'row' }, [pick, el('span', { class: 'sub' }, [[device.registration, device.model].filter(Boolean).join(' · ')])]),
        // A zone breaks after its slashes, never inside a name ("America/" "New_York"). A cell of
        // several parts holds them in one span: on a phone each cell is a flex row of label and value.
        el('td', { 'data-label': 'Zone' }, [
          el(
            'span',
            {},
            device.timezone.split('/').flatMap((part, index) => (index ? [el('wbr'), `/${part}`] : [part])),
          ),
        ]),
      ]);
      /** @type {[string, number | null][]} */
      const figures = [
        ['engine', meter ? meter.engine_seconds : null],
        ['moving', meter ? meter.moving_seconds : null],
        ['idle', meter ? meter.idle_seconds : null],
      ];
      figures.forEach(([kind, seconds]) => {
        row.appendChild(
          el(
            'td',
            {
              class: `num meter-${kind}`,
              'data-label': `${kind.charAt(0).toUpperCase() + kind.slice(1)} (h:mm)`,
              'data-seconds': seconds,
              title: seconds === null ? null : `${seconds} s`,
            },
            [seconds === null ? '–' : hoursMinutes(seconds)],
          ),
        );
        // The machine's own hour meter beside the tracker's engine meter.
        if (kind === 'engine') row.appendChild(hourMeterCell(device, meter));
      });
      row.appendChild(serviceCell(services === null ? undefined : services.get(device.id) || null));
      const last = device.last_reported_at
        ? el('time', { datetime: device.last_reported_at, title: device.last_reported_at }, [
            `${localTime(device.last_reported_at, device.timezone)} · ${ago(device.last_reported_at)}`,
          ])
        : 'never';
      row.appendChild(el('td', { class: 'last-report', 'data-label': 'Last report' }, [last]));
      body.appendChild(row);
    });
    if (!devices.length) body.appendChild(el('tr', {}, [el('td', { colspan: 8 }, ['No vehicles on this account yet.'])]));
    $('meters-note').textContent =
      (asOf ? `Meters since each tracker was fitted, as of ${browserTime(asOf)}; ` : '') +
      'refreshed every ' +
      REFRESH_MS / 1000 +
      ' s. Times of the last report are local to each vehicle.';
  }

  /**
   * The hour meter of a vehicle (D38), marked "uncalibrated" when no reading of the machine's own
   * hour meter exists: then it is the tracker's engine meter.
   * @param {Device} device
   * @param {Meter | null} meter
   */
  function hourMeterCell(device, meter) {
    const seconds = meter && typeof meter.hour_meter_seconds === 'number' ? meter.hour_meter_seconds : null;
    const readAt = meter ? meter.hour_meter_read_at : null;
    const calibrated = seconds !== null && readAt !== null;
    return el(
      'td',
      {
        class: 'num hour-meter',
        'data-label': 'Hour meter (h:mm)',
        'data-seconds': seconds,
        'data-read-at': calibrated ? readAt : null,
        'data-calibrated': seconds === null ? null : String(calibrated),
        title:
          seconds === null
            ? null
            : calibrated
              ? `${seconds} s, counted from the reading of ${localTime(readAt, device.timezone)}`
              : `${seconds} s: no reading of the machine's own hour meter yet, so this is the tracker's engine meter`,
      },
      [
        el('span', {}, [
          el('span', { class: 'figure' }, [seconds === null ? '–' : hoursMinutes(seconds)]),
          seconds !== null && !calibrated ? el('span', { class: 'sub uncalibrated' }, ['uncalibrated']) : null,
        ]),
      ],
    );
  }

  // --- Service schedules (D39) -------------------------------------------------------------------
  /** @type {Record<ServiceStatus, string>} */
  const STATUS_WORDS = { ok: 'OK', due_soon: 'Due soon', overdue: 'Overdue' };
  /** @type {Record<ServiceStatus, number>} */
  const STATUS_RANK = { ok: 0, due_soon: 1, overdue: 2 };
  /** @param {ServiceStatus} status */
  const statusBadge = (status) => el('span', { class: `status status-${status}` }, [STATUS_WORDS[status] || status]);

  /**
   * The limit of a schedule that comes first: the one whose own status is worse (an interval run
   * out, then a margin reached), else the one with the smaller share of its interval left; engine
   * hours on a tie.
   * @param {Schedule} schedule
   * @returns {Limit}
   */
  function firstLimit(schedule) {
    /** @type {Limit} */
    const hours = {
      schedule: schedule,
      unit: 'seconds',
      remaining: schedule.remaining_seconds,
      share: schedule.remaining_seconds / schedule.interval_seconds,
    };
    if (schedule.remaining_days === null || schedule.interval_days === null) return hours;
    /** @type {Limit} */
    const days = {
      schedule: schedule,
      unit: 'days',
      remaining: schedule.remaining_days,
      share: schedule.remaining_days / schedule.interval_days,
    };
    const hoursRank = schedule.remaining_seconds <= 0 ? 2 : schedule.remaining_seconds <= schedule.due_soon_seconds ? 1 : 0;
    const daysRank = schedule.remaining_days < 0 ? 2 : schedule.remaining_days <= (schedule.due_soon_days || 0) ? 1 : 0;
    return daysRank > hoursRank || (daysRank === hoursRank && days.share < hours.share) ? days : hours;
  }
  /** Orders limits most urgent first: the schedule's status (D39), then the share of the interval left. @param {Limit} a @param {Limit} b */
  const byUrgency = (a, b) => STATUS_RANK[b.schedule.status] - STATUS_RANK[a.schedule.status] || a.share - b.share;

  /** @param {number} days */
  const daysText = (days) => `${days} day${days === 1 ? '' : 's'}`;
  /** What is left of a limit: "9:30 h left", "14:00 h over", "12 days left", "due today", "3 days over". @param {Limit} limit */
  function remainingText(limit) {
    const value = limit.remaining;
    if (limit.unit === 'seconds') return value > 0 ? `${hoursMinutes(value)} h left` : `${hoursMinutes(-value)} h over`;
    if (value === 0) return 'due today';
    return value > 0 ? `${daysText(value)} left` : `${daysText(-value)} over`;
  }
  /** Both limits of a schedule in words, for a tooltip. @param {Schedule} schedule */
  function limitsText(schedule) {
    const hours = `due at ${hoursMinutes(schedule.due_hour_meter_seconds)} h on the hour meter (${remainingText({ schedule: schedule, unit: 'seconds', remaining: schedule.remaining_seconds, share: 0 })})`;
    if (schedule.due_date === null || schedule.remaining_days === null) return hours;
    return `${hours} or on ${schedule.due_date} (${remainingText({ schedule: schedule, unit: 'days', remaining: schedule.remaining_days, share: 0 })}), whichever comes first`;
  }
  /** The data attributes of a shown limit, which the tests read. @param {Limit} limit */
  const limitData = (limit) => ({
    'data-status': limit.schedule.status,
    'data-schedule-id': limit.schedule.id,
    'data-unit': limit.unit,
    'data-remaining': limit.remaining,
  });

  /**
   * A vehicle's service: its worst status and what is left of its most urgent schedule; "–" for a
   * vehicle without schedules, and nothing until the schedules have been read.
   * @param {Service | null | undefined} service
   */
  function serviceCell(service) {
    const attributes = { class: 'service', 'data-label': 'Service' };
    if (service === undefined) return el('td', attributes, ['…']);
    if (service === null || !service.data.length) {
      return el('td', Object.assign(attributes, { 'data-status': 'none', title: 'No service schedules' }), ['–']);
    }
    const urgent = service.data.map(firstLimit).sort(byUrgency)[0];
    if (!urgent) return el('td', attributes, ['–']);
    return el('td', Object.assign(attributes, limitData(urgent), { title: `${urgent.schedule.name}: ${limitsText(urgent.schedule)}` }), [
      el('span', {}, [
        statusBadge(urgent.schedule.status),
        ' ',
        el('span', { class: 'remaining' }, [remainingText(urgent)]),
        el('span', { class: 'sub schedule-name' }, [urgent.schedule.name]),
      ]),
    ]);
  }

  /** The schedules due soon or overdue over the whole fleet, the most urgent first. */
  function renderServiceList() {
    const body = $('service-body');
    body.textContent = '';
    if (services === null) return;
    const names = new Map(devices.map((device) => [device.id, device.name]));
    /** @type {{ deviceId: number, limit: Limit }[]} */
    const due = [];
    services.forEach((service) =>
      service.data.forEach((schedule) => {
        if (schedule.status !== 'ok') due.push({ deviceId: service.device_id, limit: firstLimit(schedule) });
      }),
    );
    due.sort((a, b) => byUrgency(a.limit, b.limit));
    due.forEach(({ deviceId, limit }) =>
      body.appendChild(
        el('tr', Object.assign({ 'data-device-id': deviceId }, limitData(limit)), [
          el('th', { scope: 'row', class: 'vehicle' }, [names.get(deviceId) || `Vehicle ${deviceId}`]),
          el('td', { class: 'schedule-name', 'data-label': 'Schedule' }, [limit.schedule.name]),
          el('td', { class: 'status-cell', 'data-label': 'Status' }, [statusBadge(limit.schedule.status)]),
          el('td', { class: 'num remaining', 'data-label': 'Remaining', title: limitsText(limit.schedule) }, [remainingText(limit)]),
        ]),
      ),
    );
    if (!due.length) body.appendChild(el('tr', {}, [el('td', { colspan: 4 }, ['Nothing is due soon or overdue.'])]));
  }

  let choiceSignature = '';
  function fillVehicleChoice() {
    const select = vehicleSelect();
    const chosen = select.value;
    // Rebuilt only when the list changed, so a refresh does not close an open menu.
    const signature = JSON.stringify(devices.map((device) => [device.id, device.name, device.timezone]));
    if (signature === choiceSignature && chosen) return;
    choiceSignature = signature;
    select.textContent = '';
    devices.forEach((device) => select.appendChild(el('option', { value: device.id }, [`${device.name} (${device.timezone})`])));
    if (devices.some((device) => String(device.id) === chosen)) select.value = chosen;
    if (!chosen && devices.length) loadVehicleDays();
  }

  // --- Charts ------------------------------------------------------------------------------------
  const STEPS = [1, 2, 3, 4, 6, 8, 12, 24, 48, 72, 96, 120, 168, 240, 360, 480, 720, 960, 1200];
  /** @type {Map<string, { series: Day[], summary: string }>} */
  const drawn = new Map();

  /**
   * Draws stacked moving/idle bars per local date into a figure, with a text alternative: a summary
   * in the figcaption and every value in a table. With day lengths (one vehicle), each day's real
   * length stands behind its bar and days that are not 24 h long are marked.
   * @param {HTMLElement} figure
   * @param {Day[]} series
   * @param {string} summary
   */
  function drawChart(figure, series, summary) {
    drawn.set(figure.id, { series: series, summary: summary });
    const chart = inside(figure, 'svg.chart');
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
    /** @param {number} seconds */
    const y = (seconds) => top + plotHeight - (seconds / 3600 / topHours) * plotHeight;

    chart.textContent = '';
    fill(chart, { viewBox: `0 0 ${width} ${height}`, width: width, height: height, role: 'img', 'aria-label': summary });
    for (let hours = 0; hours <= topHours; hours += step) {
      chart.appendChild(svg('line', { class: 'grid', x1: left, x2: width - right, y1: y(hours * 3600), y2: y(hours * 3600) }));
      chart.appendChild(svg('text', { x: left - 4, y: y(hours * 3600) + 4, 'text-anchor': 'end' }, [`${hours} h`]));
    }
    const slot = plotWidth / Math.max(1, series.length);
    const barWidth = Math.max(1, slot * 0.7);
    const labelEvery = Math.max(1, Math.ceil(series.length / Math.max(1, Math.floor(plotWidth / 52))));
    series.forEach((day, index) => {
      const x = left + index * slot + (slot - barWidth) / 2;
      const length = day.dayLength;
      const unusual = length !== undefined && length !== 86400;
      const note = unusual ? `; the day lasted ${lengthText(length)}` : '';
      const bar = svg(
        'g',
        {
          class: `bar${unusual ? ' dst-day' : ''}`,
          'data-date': day.date,
          'data-moving-seconds': day.moving,
          'data-idle-seconds': day.idle,
          'data-day-seconds': day.dayLength,
        },
        [
          svg('title', {}, [
            day.date +
              ': engine ' +
              hoursMinutes(day.moving + day.idle) +
              ' (moving ' +
              hoursMinutes(day.moving) +
              ', idle ' +
              hoursMinutes(day.idle) +
              ')' +
              note,
          ]),
        ],
      );
      if (length !== undefined) {
        bar.appendChild(svg('rect', { class: 'day-length', x: x, width: barWidth, y: y(length), height: y(0) - y(length) }));
      }
      bar.appendChild(svg('rect', { class: 'moving', x: x, width: barWidth, y: y(day.moving), height: y(0) - y(day.moving) }));
      bar.appendChild(
        svg('rect', {
          class: 'idle',
          x: x,
          width: barWidth,
          y: y(day.moving + day.idle),
          height: y(day.moving) - y(day.moving + day.idle),
        }),
      );
      if (unusual) {
        bar.appendChild(
          svg('text', { class: 'day-marker', x: x + barWidth / 2, y: y(length) - 5, 'text-anchor': 'middle' }, [lengthText(length)]),
        );
      }
      chart.appendChild(bar);
      if (index % labelEvery === 0) {
        chart.appendChild(svg('text', { x: x + barWidth / 2, y: height - 8, 'text-anchor': 'middle' }, [dateLabel(day.date)]));
      }
    });

    inside(figure, 'figcaption').textContent = summary;
    const rows = series.map((day) =>
      el('tr', { 'data-date': day.date }, [
        el('th', { scope: 'row' }, [day.date]),
        el('td', { class: 'num' }, [hoursMinutes(day.moving + day.idle)]),
        el('td', { class: 'num' }, [hoursMinutes(day.moving)]),
        el('td', { class: 'num' }, [hoursMinutes(day.idle)]),
        withDays && day.dayLength !== undefined
          ? el('td', { class: `num${day.dayLength !== 86400 ? ' marker-text' : ''}` }, [
              lengthText(day.dayLength) + (day.dayLength !== 86400 ? ' (clock change)' : ''),
            ])
          : null,
      ]),
    );
    const table = inside(figure, 'table');
    table.textContent = '';
    table.appendChild(
      el('thead', {}, [
        el('tr', {}, [
          el('th', { scope: 'col' }, ['Local date']),
          el('th', { scope: 'col', class: 'num' }, ['Engine']),
          el('th', { scope: 'col', class: 'num' }, ['Moving']),
          el('th', { scope: 'col', class: 'num' }, ['Idle']),
          withDays ? el('th', { scope: 'col', class: 'num' }, ['Day length']) : null,
        ]),
      ]),
    );
    table.appendChild(el('tbody', {}, rows));
  }

  /** @param {Day[]} series */
  function totalsOf(series) {
    const moving = series.reduce((sum, day) => sum + day.moving, 0);
    const idle = series.reduce((sum, day) => sum + day.idle, 0);
    const busiest = series.reduce(
      (/** @type {Day | null} */ best, day) => (best === null || day.moving + day.idle > best.moving + best.idle ? day : best),
      null,
    );
    return (
      'engine ' +
      hoursMinutes(moving + idle) +
      ' in all (moving ' +
      hoursMinutes(moving) +
      ', idle ' +
      hoursMinutes(idle) +
      ')' +
      (busiest && busiest.moving + busiest.idle > 0
        ? `; the busiest day was ${busiest.date} with ${hoursMinutes(busiest.moving + busiest.idle)}`
        : '')
    );
  }

  // --- The window and the two daily charts -------------------------------------------------------
  /** Whole days from one date to a later one. @param {string} from @param {string} to */
  const daysBetween = (from, to) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86400000);
  /**
   * The window the API applied, from the from and to of its answers (timestamps on the vehicles'
   * own clocks, so their first ten characters are the local dates), and what the caption says of
   * it: the server shortens a window that reaches back too far, and the caption must show the days
   * the chart holds, not the ones asked for.
   * @param {Span} span
   * @param {{ from: string, to: string }[]} answers
   */
  function appliedWindow(span, answers) {
    if (!answers.length) return `${span.from} to ${span.to}`;
    const from = answers.map((answer) => answer.from.slice(0, 10)).sort()[0] || span.from;
    const to =
      answers
        .map((answer) => answer.to.slice(0, 10))
        .sort()
        .reverse()[0] || span.to;
    const text = `${from} to ${to}`;
    if (from > span.from) return `${text} (shortened from ${span.from}: the API answers at most ${daysBetween(from, to)} days before To)`;
    return text;
  }

  let fleetRequest = 0;
  let vehicleRequest = 0;
  /** @returns {Span | null} */
  function chosenWindow() {
    const from = input('from').value;
    const to = input('to').value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) {
      setProblem('Window', 'Window: choose a From and a To date');
      return null;
    }
    if (from > to) {
      setProblem('Window', `Window: From (${from}) is after To (${to})`);
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
      /** @type {Daily[]} */
      const dailies = await allPages('Fleet days', '/api/v1/hours/daily', { from: span.from, to: span.to, limit: 100 });
      if (token !== fleetRequest) return;
      // The fleet's engine time per local date: every vehicle's own local day, summed by date.
      /** @type {Map<string, Day>} */
      const byDate = new Map();
      dailies.forEach((daily) =>
        daily.data.forEach((entry) => {
          const day = byDate.get(entry.date) || { date: entry.date, moving: 0, idle: 0 };
          day.moving += entry.moving_seconds;
          day.idle += entry.idle_seconds;
          byDate.set(entry.date, day);
        }),
      );
      const series = Array.from(byDate.values()).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      setProblem('Fleet days', '');
      drawChart(
        figure,
        series,
        `Engine time of all ${dailies.length} vehicles per local day, ${appliedWindow(span, dailies)}: ${totalsOf(series)}.`,
      );
    } catch (error) {
      handleError('Fleet days', error);
    } finally {
      if (token === fleetRequest) figure.removeAttribute('aria-busy');
    }
  }

  async function loadVehicleDays() {
    const span = chosenWindow();
    const device = devices.find((candidate) => String(candidate.id) === vehicleSelect().value);
    if (!span || !device) return;
    const token = ++vehicleRequest;
    const figure = $('vehicle-chart');
    figure.setAttribute('aria-busy', 'true');
    try {
      /** @type {Daily} */
      const daily = await api('Vehicle days', `/api/v1/devices/${encodeURIComponent(device.id)}/hours/daily`, {
        from: span.from,
        to: span.to,
      });
      if (token !== vehicleRequest) return;
      /** @type {Day[]} */
      const series = daily.data.map((entry) => ({
        date: entry.date,
        moving: entry.moving_seconds,
        idle: entry.idle_seconds,
        dayLength: dayLengthSeconds(entry.date, daily.timezone),
      }));
      const unusual = series.flatMap((day) =>
        day.dayLength !== undefined && day.dayLength !== 86400 ? [`${day.date} lasted ${lengthText(day.dayLength)}`] : [],
      );
      setProblem('Vehicle days', '');
      drawChart(
        figure,
        series,
        device.name +
          ' per local day in ' +
          daily.timezone +
          ', ' +
          appliedWindow(span, [daily]) +
          ': ' +
          totalsOf(series) +
          '. ' +
          (unusual.length ? `${unusual.join(', ')} (clock change), marked above its bar.` : 'Every day of the window lasted 24 h.'),
      );
    } catch (error) {
      handleError('Vehicle days', error);
    } finally {
      if (token === vehicleRequest) figure.removeAttribute('aria-busy');
    }
  }

  // --- Starting and stopping ---------------------------------------------------------------------
  /** @param {string} key */
  function remember(key) {
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch (_ignored) {
      /* storage disabled: the key lives in this page only */
    }
  }
  function recall() {
    try {
      return sessionStorage.getItem(KEY_STORAGE) || '';
    } catch (_ignored) {
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
    services = null;
    choiceSignature = '';
    vehicleSelect().textContent = '';
    $('vehicles-body').textContent = '';
    $('service-body').textContent = '';
    $('meters-note').textContent = '';
    drawn.clear();
    ['fleet-chart', 'vehicle-chart'].forEach((id) => {
      const figure = $(id);
      inside(figure, 'svg.chart').textContent = '';
      inside(figure, 'figcaption').textContent = '';
      inside(figure, 'table').textContent = '';
    });
  }

  /** @param {string} key */
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
    input('api-key').value = '';
    clearViews();
    $('fleet').hidden = true;
  }

  $('docs-link').setAttribute('href', `${base}/docs`);
  input('to').value = browserToday();
  input('from').value = addDays(browserToday(), -6);
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input('api-key').value.trim();
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
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let resizeTimer;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => drawn.forEach((last, id) => drawChart($(id), last.series, last.summary)), 150);
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && refreshTimer !== null) refreshVehicles();
  });

  const stored = recall();
  if (stored) {
    input('api-key').value = stored;
    start(stored);
  }
})();
