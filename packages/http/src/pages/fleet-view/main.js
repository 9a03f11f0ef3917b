// @ts-check
/** The fleet view's script: the vehicles and meters, the service list, the two daily charts and the key, wired to the page. The entry point of the bundle the page inlines (`fleet-view-script.ts`). */
import { $, input, vehicleSelect, inside, el } from './dom.js';
import { hoursMinutes, lengthText, addDays, browserToday, dayLengthSeconds, localTime } from './days.js';
import { base, Stale, ApiProblem, notices, problems, setNotice, setProblem, api, allPages, describeProblem, session } from './api.js';
import { statusBadge, firstLimit, byUrgency, remainingText, limitsText, limitData, serviceCell } from './service.js';
import { drawn, drawChart, totalsOf } from './chart.js';
import { initPanel, renderPanel, setScope, clearPanel } from './actions.js';
import { renderUtilization, UTILIZATION_QUERY } from './utilization.js';

/** @typedef {import('./types.js').Device} Device */
/** @typedef {import('./types.js').Meter} Meter */
/** @typedef {import('./types.js').Schedule} Schedule */
/** @typedef {import('./types.js').Service} Service */
/** @typedef {import('./types.js').Limit} Limit */
/** @typedef {import('./types.js').Daily} Daily */
/** @typedef {import('./types.js').Day} Day */
/** @typedef {import('./types.js').Span} Span */
/** @typedef {import('./types.js').PresentedKey} PresentedKey */
/** @typedef {import('./types.js').Utilization} Utilization */

const KEY_STORAGE = 'fleet-hours-api-key';
const REFRESH_MS = 1000 * (Number($('fleet').getAttribute('data-refresh-seconds')) || 30);

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
// Null until the week's utilization has been read once for this key (D60).
/** @type {Utilization[] | null} */
let utilization = null;
/** @type {ReturnType<typeof setInterval> | null} */
let refreshTimer = null;
let refreshingGeneration = -1;
// Counts the reads made after a change: a periodic read that started before one is older than it, and dropped.
let writeEpoch = 0;
const stopRefresh = () => {
  if (refreshTimer !== null) clearInterval(refreshTimer);
  refreshTimer = null;
};

async function refreshVehicles() {
  if (refreshingGeneration === session.generation) return;
  const myGeneration = session.generation;
  const myEpoch = writeEpoch;
  refreshingGeneration = myGeneration;
  try {
    refreshService();
    refreshUtilization();
    /** @type {[{ data: Device[] }, Meter[]]} */
    const [list, meterList] = await Promise.all([api('Vehicles', '/api/v1/devices'), allPages('Meters', '/api/v1/meter', { limit: 500 })]);
    if (myGeneration !== session.generation) return;
    devices = list.data;
    if (myEpoch === writeEpoch) meters = new Map(meterList.map((meter) => [meter.device_id, meter]));
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
  if (serviceGeneration === session.generation) return;
  const myGeneration = session.generation;
  const myEpoch = writeEpoch;
  serviceGeneration = myGeneration;
  try {
    /** @type {Service[]} */
    const list = await allPages('Service', '/api/v1/service', { limit: 500 });
    if (myGeneration !== session.generation || myEpoch !== writeEpoch) return;
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

let utilizationGeneration = -1;
/** Reads the fleet's utilization of the current week (D60, P145), beside the vehicles: its own problem on screen. */
async function refreshUtilization() {
  if (utilizationGeneration === session.generation) return;
  const myGeneration = session.generation;
  utilizationGeneration = myGeneration;
  try {
    /** @type {Utilization[]} */
    const list = await allPages('Utilization', '/api/v1/utilization', UTILIZATION_QUERY);
    if (myGeneration !== session.generation) return;
    utilization = list;
    setProblem('Utilization', '');
    renderUtilization(utilization, devices);
  } catch (error) {
    handleError('Utilization', error);
  } finally {
    if (utilizationGeneration === myGeneration) utilizationGeneration = -1;
  }
}

/**
 * Reads the service schedules and the meters again after a change (D56), whatever read is under
 * way: that one started before the change and is dropped, so the figures shown are the new ones.
 */
async function reloadAfterChange() {
  const myGeneration = session.generation;
  const myEpoch = ++writeEpoch;
  try {
    /** @type {[Service[], Meter[]]} */
    const [list, meterList] = await Promise.all([
      allPages('Service', '/api/v1/service', { limit: 500 }),
      allPages('Meters', '/api/v1/meter', { limit: 500 }),
    ]);
    if (myGeneration !== session.generation || myEpoch !== writeEpoch) return;
    services = new Map(list.map((service) => [service.device_id, service]));
    meters = new Map(meterList.map((meter) => [meter.device_id, meter]));
    setProblem('Service', '');
    renderVehicles();
    renderServiceList();
  } catch (error) {
    handleError('Service', error);
  }
}

/** Asks the server what the key may do (P96): the actions show only for a key of the manage scope (D56). */
async function loadScope() {
  try {
    /** @type {PresentedKey} */
    const presented = await api('Key', '/api/v1/key');
    setScope(presented.scope);
  } catch (error) {
    // A server without /api/v1/key predates the actions: the key reads.
    if (error instanceof ApiProblem && error.status === 404) setScope('read');
    else handleError('Key', error);
  }
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

/**
 * P157: the machine's identity under its name — manufacturer, model, serial number, PIN — only
 * those given; nothing when none is.
 * @param {Device} device
 */
function identityLine(device) {
  const parts = [
    device.oem_name,
    device.equipment_model,
    device.serial_number ? `S/N ${device.serial_number}` : null,
    device.pin ? `PIN ${device.pin}` : null,
  ].filter(Boolean);
  return parts.length ? el('span', { class: 'sub identity' }, [parts.join(' · ')]) : null;
}

/**
 * P157: the newest position as text, "52.52000, 13.40500 at …" (the time in the vehicle's zone),
 * linked as `geo:` for the device's own map app: the page loads no map from elsewhere.
 * @param {Device} device
 */
function positionLine(device) {
  const position = device.position;
  if (!position) return null;
  const where = `${position.latitude.toFixed(5)}, ${position.longitude.toFixed(5)}`;
  const link = el('a', { href: `geo:${position.latitude},${position.longitude}`, title: `Position reported ${position.at}` }, [
    `${where} at ${localTime(position.at, device.timezone)}`,
  ]);
  return el('span', { class: 'sub position' }, [link]);
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
    const pick = el('button', { type: 'button', class: 'link', 'data-device-id': device.id, 'aria-label': `Show ${device.name} per day` }, [
      device.name,
    ]);
    pick.addEventListener('click', () => {
      vehicleSelect().value = String(device.id);
      loadVehicleDays();
      $('vehicle-title').scrollIntoView({ block: 'start' });
    });
    const row = el('tr', { 'data-device-id': device.id }, [
      el('th', { scope: 'row' }, [
        pick,
        el('span', { class: 'sub' }, [[device.registration, device.model].filter(Boolean).join(' · ')]),
        identityLine(device),
      ]),
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
    row.appendChild(el('td', { class: 'last-report', 'data-label': 'Last report' }, [last, positionLine(device)]));
    body.appendChild(row);
  });
  if (!devices.length) body.appendChild(el('tr', {}, [el('td', { colspan: 8 }, ['No vehicles on this account yet.'])]));
  renderUtilization(utilization, devices);
  renderPanel();
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

/**
 * Saves the fleet's days of the window as one CSV file: the key goes in a header, so the page asks
 * for the file itself and hands it to the browser as a download (a link to the API could not carry
 * the key).
 */
async function downloadFleetDays() {
  const span = chosenWindow();
  if (!span || !session.apiKey) return;
  const button = /** @type {HTMLButtonElement} */ ($('fleet-csv'));
  button.disabled = true;
  setNotice('Fleet CSV', 'Fleet CSV: preparing the file');
  try {
    /** @type {{ blob: Blob, fileName: string }} */
    const file = await api('Fleet CSV', '/api/v1/hours/daily', { from: span.from, to: span.to }, true);
    // Through bound names: the page never names a CSS URL function, which its check for loads from elsewhere looks for.
    const objectLink = URL.createObjectURL.bind(URL);
    const dropObjectLink = URL.revokeObjectURL.bind(URL);
    const url = objectLink(file.blob);
    const link = el('a', { href: url, download: file.fileName, hidden: '' }, []);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => dropObjectLink(url), 60_000);
    setProblem('Fleet CSV', '');
    $('fleet-csv-note').textContent =
      `Saved ${file.fileName}: every vehicle's days from ${span.from} to ${span.to}, one row per vehicle and day.`;
  } catch (error) {
    handleError('Fleet CSV', error);
  } finally {
    button.disabled = false;
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
  utilization = null;
  renderUtilization(null, []);
  choiceSignature = '';
  vehicleSelect().textContent = '';
  $('vehicles-body').textContent = '';
  $('service-body').textContent = '';
  $('meters-note').textContent = '';
  clearPanel();
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
  session.apiKey = key;
  session.generation += 1;
  remember(key);
  clearViews();
  $('fleet').hidden = false;
  stopRefresh();
  refreshTimer = setInterval(() => {
    if (!document.hidden) refreshVehicles();
  }, REFRESH_MS);
  refreshVehicles();
  loadScope();
  loadFleetDays();
}

function forget() {
  session.generation += 1;
  session.apiKey = '';
  remember('');
  stopRefresh();
  input('api-key').value = '';
  clearViews();
  $('fleet').hidden = true;
}

$('docs-link').setAttribute('href', `${base}/docs`);
initPanel({ devices: () => devices, meters: () => meters, services: () => services, reload: reloadAfterChange });
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
  if (!session.apiKey) return;
  loadFleetDays();
  loadVehicleDays();
});
$('vehicle').addEventListener('change', loadVehicleDays);
$('fleet-csv').addEventListener('click', downloadFleetDays);
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
