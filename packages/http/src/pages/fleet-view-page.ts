/**
 * The fleet view served at `/` when `createFleetHoursApp({ fleetView: true })`: one self-contained
 * HTML page where a fleet manager enters an API key and sees every vehicle with its meters and hour
 * meter (D38), where its service stands (D39) and the schedules due soon or overdue, the fleet's
 * engine time per local day and one vehicle's days with its 23- and 25-hour days marked, and each
 * vehicle's utilization of the current week (D60). It reads only the public API (`/api/v1/devices`,
 * the fleet endpoints of D32 — `/meter`, `/service`, `/hours/daily`, `/utilization` — and a
 * device's `/hours/daily`), from its own origin. Nothing is fetched from anywhere else — it works with no
 * internet access — and a strict Content-Security-Policy admits exactly its inline style and script
 * by hash, like the reference page at `/docs`.
 */
import type { RoutePolicy } from '@fleet-hours/core/adapter';
import { FLEET_VIEW_STYLE } from './fleet-view-style.js';
import { fleetViewScript } from './fleet-view-script.js';
import { inlinePagePolicy } from './inline-page-policy.js';

/** Where the fleet view is served. */
export const FLEET_VIEW_PATH = '/';

/**
 * The fleet view's access rule: open and not counted, like the reference (P14) — the page holds no
 * data; every figure on it comes from API requests made with the key the user enters.
 */
export const FLEET_VIEW_POLICY = { template: FLEET_VIEW_PATH, credential: null, limit: null } as const satisfies RoutePolicy;

/** The page and the Content-Security-Policy that admits exactly its inline style and script. */
export interface FleetViewPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * A labelled control with its place for a problem, `{id}-problem`, where the script says what is
 * wrong with it; `attributes` follow its id.
 */
const _field = (id: string, label: string, control: 'input' | 'select', attributes: string, className = 'field') =>
  `<div class="${className}"><label for="${id}">${label}</label><${control} id="${id}"${attributes} aria-describedby="${id}-problem">${control === 'select' ? '</select>' : ''}<span class="field-problem" id="${id}-problem"></span></div>`;

/** A form of an action (D56): its fields, a place for a problem of the whole form, its buttons. */
const _form = (id: string, legend: string, fields: readonly string[], buttons: string) => `<form id="${id}" class="action" novalidate>
<fieldset>
${legend}
${fields.join('\n')}
<p class="form-problem" role="alert"></p>
${buttons}
</fieldset>
</form>`;

/**
 * The service panel of one vehicle: its schedules, and the forms of the actions (D56), hidden until
 * the key is known to manage (P96). Every input has its label and a place for its problem.
 */
const _SERVICE_PANEL = `<section id="service-panel" aria-labelledby="service-panel-title">
<h2 id="service-panel-title">Service of one vehicle</h2>
<div class="row">
<label for="service-vehicle">Vehicle</label>
<select id="service-vehicle"></select>
</div>
<p class="muted" id="service-panel-meter"></p>
<table id="schedules">
<caption class="visually-hidden">The service schedules of the chosen vehicle: each one's interval, last service, when it is due and what is left</caption>
<thead><tr><th scope="col">Schedule</th><th scope="col">Every</th><th scope="col">Last done</th><th scope="col">Due</th><th scope="col">Status</th><th scope="col" class="num">Remaining</th><th scope="col" id="schedule-actions-title" hidden>Actions</th></tr></thead>
<tbody id="schedules-body"></tbody>
</table>
<div id="manage" hidden>
<p id="manage-note" class="muted">This key may change the fleet. Times are the vehicle's local time (<span class="zone-name"></span>); leave a time empty for now. Hours are engine hours, as 250, 250:30 or 12.5.</p>
<div id="manage-result" role="status" aria-live="polite"></div>
${_form(
  'done-form',
  '<legend>Record a service as done</legend>',
  [
    _field('done-schedule', 'Schedule', 'select', ''),
    _field('done-at', 'Done at (empty: now)', 'input', ' type="datetime-local" step="60"'),
    _field('done-hours', 'Hour meter then, h (optional)', 'input', ' inputmode="decimal" autocomplete="off"'),
  ],
  '<button type="submit">Record service</button>',
)}
${_form(
  'reading-form',
  '<legend>Add an hour-meter reading</legend>',
  [
    _field('reading-hours', 'Reading, h', 'input', ' inputmode="decimal" autocomplete="off" required'),
    _field('reading-at', 'Read at (empty: now)', 'input', ' type="datetime-local" step="60"'),
  ],
  '<button type="submit">Add reading</button>',
)}
${_form(
  'schedule-form',
  '<legend id="schedule-form-title">New schedule</legend>',
  [
    _field('schedule-name', 'Name', 'input', ' autocomplete="off" required'),
    _field('schedule-every-hours', 'Every, engine h', 'input', ' inputmode="decimal" autocomplete="off" required'),
    _field('schedule-every-days', 'Or every, days (optional)', 'input', ' inputmode="numeric" autocomplete="off"'),
    _field('schedule-soon-hours', 'Due soon within, h (optional)', 'input', ' inputmode="decimal" autocomplete="off"'),
    _field('schedule-soon-days', 'Due soon within, days (optional)', 'input', ' inputmode="numeric" autocomplete="off"'),
    _field('schedule-last-at', 'Last done at (empty: now)', 'input', ' type="datetime-local" step="60"', 'field creating'),
    _field('schedule-last-hours', 'Hour meter then, h (optional)', 'input', ' inputmode="decimal" autocomplete="off"', 'field creating'),
  ],
  '<button type="submit" id="schedule-submit">Create schedule</button>\n<button type="button" id="schedule-cancel" hidden>Cancel the change</button>',
)}
</div>
</section>
`;

/** The page, with its script inline. */
const _html = (script: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Fleet Hours · fleet view</title>
<link rel="icon" href="data:,">
<style>${FLEET_VIEW_STYLE}</style>
</head>
<body>
<header>
<h1>Fleet view</h1>
<p class="muted">Engine time of every vehicle on the account — moving and idle, per local day and as a running meter — with its hour meter and service schedules, read from the Fleet Hours API. <a id="docs-link" href="docs">API reference</a></p>
<form id="key-form" class="row" autocomplete="off">
<label for="api-key">API key</label>
<input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="fh_…" aria-describedby="key-note">
<button type="submit">Show the fleet</button>
<button type="button" id="forget-key">Forget the key</button>
</form>
<p class="muted" id="key-note">The key is sent only to this server, as <code>Authorization: Bearer …</code>, and kept in this tab's session storage until you forget it or close the tab.</p>
<div id="status" role="status" aria-live="polite"></div>
<div id="problem" role="alert"></div>
</header>
<main id="fleet" hidden data-refresh-seconds="30">
<section aria-labelledby="service-title">
<h2 id="service-title">Due soon and overdue</h2>
<table id="service-list">
<caption class="visually-hidden">Every service schedule that is due soon or overdue, the most urgent first</caption>
<thead><tr><th scope="col">Vehicle</th><th scope="col">Schedule</th><th scope="col">Status</th><th scope="col" class="num">Remaining</th></tr></thead>
<tbody id="service-body"></tbody>
</table>
<p class="muted" id="service-note">A schedule is due at its last service plus its interval of engine hours or of calendar days, whichever comes first; it is due soon within its margin. What remains is shown for the limit that comes first: engine time as h:mm, calendar time in days.</p>
</section>
<section aria-labelledby="vehicles-title">
<h2 id="vehicles-title">Vehicles</h2>
<p class="muted" id="meters-note"></p>
<table id="vehicles">
<caption class="visually-hidden">Every vehicle with its meters (engine, moving and idle time since its tracker was fitted, in hours and minutes), the machine's own hour meter, where its service stands and its last report</caption>
<thead><tr><th scope="col">Vehicle</th><th scope="col">Zone</th><th scope="col" class="num">Engine (h:mm)</th><th scope="col" class="num">Hour meter (h:mm)</th><th scope="col" class="num">Moving (h:mm)</th><th scope="col" class="num">Idle (h:mm)</th><th scope="col">Service</th><th scope="col">Last report</th></tr></thead>
<tbody id="vehicles-body"></tbody>
</table>
</section>
<section aria-labelledby="utilization-title">
<h2 id="utilization-title">Utilization this week</h2>
<p class="muted" id="utilization-week"></p>
<table id="utilization">
<caption class="visually-hidden">Every vehicle's current week against its work calendar: the share of the scheduled time it ran, and its engine time outside the calendar, the most after hours first</caption>
<thead><tr><th scope="col">Vehicle</th><th scope="col" class="num">Utilization</th><th scope="col" class="num">After hours (h:mm)</th><th scope="col" class="num">In schedule (h:mm)</th><th scope="col" class="num">Scheduled (h:mm)</th></tr></thead>
<tbody id="utilization-body"></tbody>
</table>
<p class="muted" id="utilization-note">Utilization is the engine time inside the work calendar over the time the calendar schedules; after hours is the engine time outside it. The vehicles with the most time after hours come first, then those with the lowest utilization. A vehicle without a calendar has nothing scheduled: its utilization shows as –.</p>
</section>
${_SERVICE_PANEL}<section aria-labelledby="days-title">
<h2 id="days-title">Engine time per local day</h2>
<form id="window-form" class="row">
<label for="from">From</label>
<input id="from" type="date" required>
<label for="to">To</label>
<input id="to" type="date" required>
<button type="submit">Show these days</button>
<button type="button" id="fleet-csv">Download these days (CSV)</button>
</form>
<p class="muted" id="fleet-csv-note" aria-live="polite"></p>
<p class="muted">Each vehicle's days are its own local days, in its own zone.</p>
<ul class="legend" aria-hidden="true"><li><span class="swatch moving"></span>Moving</li><li><span class="swatch idle"></span>Idle</li></ul>
<figure id="fleet-chart">
<svg class="chart" role="img" aria-label="The fleet's engine time per day (loading)"></svg>
<figcaption></figcaption>
<details><summary>The values as a table</summary><table></table></details>
</figure>
<h3 id="vehicle-title">One vehicle</h3>
<div class="row">
<label for="vehicle">Vehicle</label>
<select id="vehicle"></select>
</div>
<ul class="legend" aria-hidden="true"><li><span class="swatch moving"></span>Moving</li><li><span class="swatch idle"></span>Idle</li><li><span class="swatch day"></span>A day that is not 24 h long (clock change)</li></ul>
<figure id="vehicle-chart">
<svg class="chart" role="img" aria-label="One vehicle's engine time per day (loading)"></svg>
<figcaption></figcaption>
<details><summary>The values as a table</summary><table></table></details>
</figure>
</section>
</main>
<noscript><p>This page needs JavaScript. The API itself is described at docs.</p></noscript>
<script>${script}</script>
</body>
</html>
`;

/**
 * Builds the fleet view and the Content-Security-Policy that admits exactly its inline style and
 * script (by SHA-256), lets it call only its own origin, and forbids forms from submitting
 * anywhere (so the key can never travel in a URL, even with scripts off).
 *
 * @returns The HTML and its Content-Security-Policy.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * import { createFleetHoursApp } from '@fleet-hours/http';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const app = createFleetHoursApp({ fleetHours, fleetView: true, logger: () => {} });
 * const page = await app.request('/'); // the fleet view, with its Content-Security-Policy header
 * ```
 */
export async function createFleetViewPage(): Promise<FleetViewPage> {
  const script = await fleetViewScript();
  return {
    html: _html(script),
    contentSecurityPolicy: await inlinePagePolicy({ script, style: FLEET_VIEW_STYLE, imgSrc: 'data:' }),
  };
}
