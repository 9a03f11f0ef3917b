// @ts-check
/**
 * The service panel of one vehicle (D56): its schedules and, with a key of the `manage` scope
 * (P96), the actions — record a service as done, add an hour-meter reading, create, change and
 * remove a schedule. Every action is a request to the public API with one Idempotency-Key per
 * intent of the user (P97), so that a double click or a retry records it once.
 */
import { $, input, el, inside } from './dom.js';
import { hoursMinutes, localTime } from './days.js';
import { ApiProblem, Stale, describeProblem, newIdempotencyKey, send, serverNow } from './api.js';
import { statusBadge, firstLimit, remainingText } from './service.js';
import { parseDays, parseHours, zonedInstant } from './entry.js';

/** @typedef {import('./types.js').Device} Device */
/** @typedef {import('./types.js').Meter} Meter */
/** @typedef {import('./types.js').Schedule} Schedule */
/** @typedef {import('./types.js').Service} Service */
/** @typedef {import('./api.js').Write} Write */

/**
 * What the panel reads from the rest of the page: the vehicles, their meters and service as last
 * read, and how to read them again after a change.
 * @typedef {{ devices: () => Device[], meters: () => Map<number, Meter>, services: () => Map<number, Service> | null, reload: () => Promise<void> }} PanelSource
 */

/** @type {PanelSource} */
let source = { devices: () => [], meters: () => new Map(), services: () => null, reload: async () => {} };
let manage = false;
/** The schedule being changed in the schedule form; null while it creates one. @type {{ deviceId: number, schedule: Schedule } | null} */
let editing = null;

const vehicleChoice = () => /** @type {HTMLSelectElement} */ ($('service-vehicle'));
const scheduleChoice = () => /** @type {HTMLSelectElement} */ ($('done-schedule'));

/** The vehicle the panel shows. @returns {Device | null} */
function chosenDevice() {
  const id = vehicleChoice().value;
  return source.devices().find((device) => String(device.id) === id) || null;
}
/** @param {number} deviceId @returns {Schedule[] | null} */
function schedulesOf(deviceId) {
  const services = source.services();
  if (services === null) return null;
  const service = services.get(deviceId);
  return service ? service.data : [];
}
/**
 * The versions of schedules as this page's own changes answered them (D54): `/service` lists a
 * schedule without its version, a write's answer carries it.
 * @type {Map<number, string>}
 */
const knownVersions = new Map();
/** @param {unknown} answer */
function learnVersion(answer) {
  const written = /** @type {{ id?: unknown, version?: unknown } | null} */ (answer);
  if (written && typeof written.id === 'number' && typeof written.version === 'string') knownVersions.set(written.id, written.version);
}
/**
 * The `If-Match` of a schedule as this page last saw it (D54): its version as listed, else as this
 * page's last change of it answered; none when neither is known.
 * @param {Schedule} schedule
 */
function ifMatchOf(schedule) {
  const version = schedule.version || knownVersions.get(schedule.id);
  return version ? `"${version}"` : null;
}
/** @param {number} deviceId */
const schedulesPath = (deviceId) => `/api/v1/devices/${encodeURIComponent(deviceId)}/service/schedules`;

// --- Drawing the panel -------------------------------------------------------------------------
/** @param {Schedule} schedule */
const everyText = (schedule) =>
  `${hoursMinutes(schedule.interval_seconds)} h${schedule.interval_days === null ? '' : ` or ${schedule.interval_days} days`}`;
/** @param {Schedule} schedule */
const dueText = (schedule) =>
  `at ${hoursMinutes(schedule.due_hour_meter_seconds)} h${schedule.due_date === null ? '' : ` or on ${schedule.due_date}`}`;

/** @param {Device} device @param {Schedule} schedule */
function scheduleRow(device, schedule) {
  const row = el(
    'tr',
    {
      'data-schedule-id': schedule.id,
      'data-status': schedule.status,
      'data-version': schedule.version || knownVersions.get(schedule.id) || null,
    },
    [
      el('th', { scope: 'row', class: 'schedule-name' }, [schedule.name]),
      el('td', { 'data-label': 'Every' }, [everyText(schedule)]),
      el('td', { class: 'last-done', 'data-label': 'Last done', 'data-at': schedule.last_done_at || null }, [
        schedule.last_done_at
          ? `${localTime(schedule.last_done_at, device.timezone)} at ${hoursMinutes(schedule.last_done_hour_meter_seconds)} h`
          : '–',
      ]),
      el('td', { 'data-label': 'Due' }, [dueText(schedule)]),
      el('td', { 'data-label': 'Status' }, [statusBadge(schedule.status)]),
      el('td', { class: 'num remaining', 'data-label': 'Remaining' }, [remainingText(firstLimit(schedule))]),
    ],
  );
  if (manage) row.appendChild(el('td', { class: 'actions', 'data-label': 'Actions' }, [el('span', {}, rowButtons(device, schedule))]));
  return row;
}

/** The actions of a schedule's row: each names its schedule for a screen reader. @param {Device} device @param {Schedule} schedule */
function rowButtons(device, schedule) {
  const button = (/** @type {string} */ action, /** @type {string} */ text, /** @type {string} */ label, /** @type {() => void} */ run) => {
    const node = el('button', { type: 'button', class: `${action}-button`, 'aria-label': `${label} ${schedule.name}` }, [text]);
    node.addEventListener('click', run);
    return node;
  };
  return [
    button('done', 'Mark done', 'Mark done:', () => {
      scheduleChoice().value = String(schedule.id);
      $('done-form').scrollIntoView({ block: 'nearest' });
      scheduleChoice().focus();
    }),
    ' ',
    button('edit', 'Edit', 'Edit', () => startEditing(device, schedule)),
    ' ',
    button('remove', 'Remove', 'Remove', () => removeSchedule(device, schedule)),
  ];
}

/** Draws the panel from what the page read last: the vehicles to choose from, the chosen one's hour meter and schedules. */
export function renderPanel() {
  const devices = source.devices();
  const select = vehicleChoice();
  const chosen = select.value;
  const signature = JSON.stringify(devices.map((device) => [device.id, device.name]));
  if (select.getAttribute('data-signature') !== signature) {
    select.setAttribute('data-signature', signature);
    select.textContent = '';
    devices.forEach((device) => select.appendChild(el('option', { value: device.id }, [device.name])));
    if (devices.some((device) => String(device.id) === chosen)) select.value = chosen;
  }
  const device = chosenDevice();
  const body = $('schedules-body');
  // The table is drawn again at every refresh: a button that had the focus gets it back.
  const focused = document.activeElement;
  const focusedRow = focused && body.contains(focused) ? focused.closest('tr') : null;
  const refocus =
    focusedRow && focused ? `tr[data-schedule-id="${focusedRow.getAttribute('data-schedule-id')}"] button.${focused.classList[0]}` : null;
  body.textContent = '';
  document.querySelectorAll('#service-panel .zone-name').forEach((span) => {
    span.textContent = device ? device.timezone : '';
  });
  if (!device) {
    $('service-panel-meter').textContent = '';
    return;
  }
  const meter = source.meters().get(device.id);
  $('service-panel-meter').textContent = meter
    ? `${device.name}: hour meter ${hoursMinutes(meter.hour_meter_seconds)} h${meter.hour_meter_read_at ? `, counted from the reading of ${localTime(meter.hour_meter_read_at, device.timezone)}` : ' (no reading of its own hour meter yet)'}.`
    : '';
  const schedules = schedulesOf(device.id);
  if (schedules === null) body.appendChild(el('tr', {}, [el('td', { colspan: 7 }, ['…'])]));
  else if (!schedules.length) body.appendChild(el('tr', {}, [el('td', { colspan: 7 }, [`${device.name} has no service schedules.`])]));
  else schedules.forEach((schedule) => body.appendChild(scheduleRow(device, schedule)));
  const again = refocus ? body.querySelector(refocus) : null;
  if (again) /** @type {HTMLElement} */ (again).focus();
  fillScheduleChoice(schedules || []);
}

/** The schedules to record as done; rebuilt only when they changed, so a refresh does not close an open menu. @param {Schedule[]} schedules */
function fillScheduleChoice(schedules) {
  const select = scheduleChoice();
  const signature = JSON.stringify(schedules.map((schedule) => [schedule.id, schedule.name]));
  if (select.getAttribute('data-signature') === signature) return;
  const chosen = select.value;
  select.setAttribute('data-signature', signature);
  select.textContent = '';
  schedules.forEach((schedule) => select.appendChild(el('option', { value: schedule.id }, [schedule.name])));
  if (schedules.some((schedule) => String(schedule.id) === chosen)) select.value = chosen;
}

/**
 * Shows the actions for a key of the `manage` scope and hides them for any other (D56): a read
 * key sees the schedules and no control.
 * @param {'read' | 'manage' | null} scope
 */
export function setScope(scope) {
  manage = scope === 'manage';
  $('service-panel').setAttribute('data-scope', scope || '');
  $('manage').hidden = !manage;
  $('schedule-actions-title').hidden = !manage;
  if (!manage) stopEditing();
  renderPanel();
}

/** Forgets what the panel showed, for another key. */
export function clearPanel() {
  manage = false;
  $('service-panel').removeAttribute('data-scope');
  $('manage').hidden = true;
  $('schedule-actions-title').hidden = true;
  stopEditing();
  vehicleChoice().textContent = '';
  vehicleChoice().removeAttribute('data-signature');
  scheduleChoice().textContent = '';
  scheduleChoice().removeAttribute('data-signature');
  $('schedules-body').textContent = '';
  $('service-panel-meter').textContent = '';
  $('manage-result').textContent = '';
  document.querySelectorAll('#manage form').forEach((form) => {
    /** @type {HTMLFormElement} */ (form).reset();
    clearProblems(/** @type {HTMLFormElement} */ (form));
  });
  intents.clear();
  knownVersions.clear();
}

// --- Problems next to the fields ---------------------------------------------------------------
/** @param {HTMLFormElement} form */
function clearProblems(form) {
  form.querySelectorAll('.field-problem, .form-problem').forEach((node) => {
    node.textContent = '';
  });
  form.querySelectorAll('[aria-invalid]').forEach((node) => node.removeAttribute('aria-invalid'));
}
/** Says what is wrong with a field, beside it. @param {string} inputId @param {string} text */
function fieldProblem(inputId, text) {
  $(`${inputId}-problem`).textContent = text;
  $(inputId).setAttribute('aria-invalid', 'true');
}
/** @param {HTMLFormElement} form @param {string} text */
const formProblem = (form, text) => {
  inside(form, '.form-problem').textContent = text;
};

/**
 * Reads an optional field: undefined when empty, null (and the problem said beside it) when `parse`
 * finds no value in it.
 * @template T
 * @param {string} id
 * @param {(text: string) => T | null} parse
 * @param {string} problem
 * @returns {T | null | undefined}
 */
function optionalField(id, parse, problem) {
  const text = input(id).value;
  if (text.trim() === '') return undefined;
  const value = parse(text);
  if (value === null) fieldProblem(id, problem);
  return value;
}
/** Optional engine hours, as seconds. @param {string} id @returns {number | null | undefined} */
function hoursField(id) {
  return optionalField(id, parseHours, 'Give engine hours, e.g. 250, 250:30 or 12.5');
}
/** @param {string} id @returns {number | null | undefined} */
function daysField(id) {
  return optionalField(id, parseDays, 'Give a whole number of days, e.g. 180');
}
/** An optional wall time of the vehicle's zone, as an instant. @param {string} id @param {string} zone @returns {string | null | undefined} */
function instantField(id, zone) {
  return optionalField(id, (text) => zonedInstant(text, zone), 'Give a date and a time');
}

// --- Sending an action -------------------------------------------------------------------------
/**
 * The Idempotency-Key of each form's intent (P97): made when the user asks, kept for as long as
 * the same request may be sent again — a double click, a retry after no answer or a 5xx — and
 * dropped once the server gave a final answer or the request changed.
 * @type {Map<string, { key: string, request: string }>}
 */
const intents = new Map();
/** @param {string} formId @param {Write} write */
function intentKey(formId, write) {
  const request = JSON.stringify([write.method, write.path, write.body]);
  const intent = intents.get(formId);
  if (intent && intent.request === request) return intent.key;
  const key = newIdempotencyKey();
  intents.set(formId, { key: key, request: request });
  return key;
}

/**
 * The API fields of each form's inputs: a 400 naming a field is shown beside its input.
 * @type {Record<string, Record<string, string>>}
 */
const FIELD_INPUTS = {
  'done-form': { done_at: 'done-at', hour_meter_seconds: 'done-hours' },
  'reading-form': { read_at: 'reading-at', reading_seconds: 'reading-hours' },
  'schedule-form': {
    name: 'schedule-name',
    interval_seconds: 'schedule-every-hours',
    interval_days: 'schedule-every-days',
    due_soon_seconds: 'schedule-soon-hours',
    due_soon_days: 'schedule-soon-days',
    last_done_at: 'schedule-last-at',
    last_done_hour_meter_seconds: 'schedule-last-hours',
  },
};

/**
 * Sends a form's request once at a time: its buttons are disabled while it is in flight, a second
 * submit meanwhile is dropped, and the intent's Idempotency-Key goes with a POST.
 * @param {HTMLFormElement} form
 * @param {string} topic
 * @param {Write} write
 * @returns {Promise<any>} The answer's body; undefined when the request failed (the failure is shown).
 */
async function submit(form, topic, write) {
  const buttons = Array.from(form.querySelectorAll('button'));
  form.setAttribute('aria-busy', 'true');
  buttons.forEach((button) => {
    /** @type {HTMLButtonElement} */ (button).disabled = true;
  });
  const request = write.method === 'POST' ? Object.assign({}, write, { idempotencyKey: intentKey(form.id, write) }) : write;
  try {
    const answer = await send(topic, request);
    intents.delete(form.id);
    learnVersion(answer);
    return answer;
  } catch (error) {
    if (error instanceof Stale) return undefined;
    // No answer, or a failure of the server: the same request may go again with the same key.
    if (!(error instanceof ApiProblem) || (error.status !== 0 && error.status < 500)) intents.delete(form.id);
    await showFailure(form, error);
    return undefined;
  } finally {
    form.removeAttribute('aria-busy');
    buttons.forEach((button) => {
      /** @type {HTMLButtonElement} */ (button).disabled = false;
    });
  }
}

/** A refusal beside the field it names, else under the form; a version that changed meanwhile reloads. @param {HTMLFormElement} form @param {unknown} error */
async function showFailure(form, error) {
  const inputId = error instanceof ApiProblem && error.field ? FIELD_INPUTS[form.id]?.[error.field] : undefined;
  if (inputId && error instanceof ApiProblem) {
    fieldProblem(inputId, error.message || describeProblem(error));
    return;
  }
  if (error instanceof ApiProblem && (error.status === 412 || error.status === 404)) {
    knownVersions.clear();
    formProblem(
      form,
      error.status === 412
        ? 'It changed meanwhile, reloaded: check it and send again'
        : 'That schedule or vehicle is not there any more, reloaded',
    );
    await source.reload();
    if (editing) refillEditing();
    return;
  }
  formProblem(form, describeProblem(error));
}

/** Says what was done and reads the figures again. @param {string} text */
async function succeeded(text) {
  $('manage-result').textContent = text;
  await source.reload();
}

// --- The forms ---------------------------------------------------------------------------------
/**
 * Takes a form's submission over from the browser: the form it came from, its problems cleared;
 * null while that form is still sending (aria-busy), so that a second press sends nothing.
 * @param {SubmitEvent} event
 * @returns {HTMLFormElement | null}
 */
function takeSubmit(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  if (form.hasAttribute('aria-busy')) return null;
  clearProblems(form);
  return form;
}

/** @param {SubmitEvent} event */
async function onDone(event) {
  const form = takeSubmit(event);
  if (!form) return;
  const device = chosenDevice();
  const schedule = device && (schedulesOf(device.id) || []).find((each) => String(each.id) === scheduleChoice().value);
  if (!device || !schedule) {
    fieldProblem('done-schedule', 'Choose a schedule');
    return;
  }
  const doneAt = instantField('done-at', device.timezone);
  const hours = hoursField('done-hours');
  if (doneAt === null || hours === null) return;
  /** @type {Record<string, unknown>} */
  const body = {};
  if (doneAt !== undefined) body.done_at = doneAt;
  if (hours !== undefined) body.hour_meter_seconds = hours;
  const answer = await submit(form, 'Record service', {
    method: 'POST',
    path: `${schedulesPath(device.id)}/${encodeURIComponent(schedule.id)}/done`,
    body: body,
  });
  if (answer === undefined) return;
  input('done-at').value = '';
  input('done-hours').value = '';
  await succeeded(`Service of ${schedule.name} recorded for ${device.name}.`);
}

/** @param {SubmitEvent} event */
async function onReading(event) {
  const form = takeSubmit(event);
  if (!form) return;
  const device = chosenDevice();
  if (!device) return;
  const hours = hoursField('reading-hours');
  if (hours === undefined) fieldProblem('reading-hours', 'Give the reading of the hour meter, in hours');
  const readAt = instantField('reading-at', device.timezone);
  if (hours === null || hours === undefined || readAt === null) return;
  // "Now" is the server's now, given: a reading needs its instant.
  const body = { read_at: readAt === undefined ? serverNow() : readAt, reading_seconds: hours };
  const answer = await submit(form, 'Add reading', {
    method: 'POST',
    path: `/api/v1/devices/${encodeURIComponent(device.id)}/hour-meter/readings`,
    body: body,
  });
  if (answer === undefined) return;
  form.reset();
  await succeeded(`Reading of ${hoursMinutes(hours)} h added for ${device.name}.`);
}

/**
 * The schedule form's fields as the API names them; only those typed (creating) or changed
 * (editing, where an emptied optional field is null). Null when a field is wrong (said beside it).
 * @returns {Record<string, unknown> | null}
 */
function scheduleFields() {
  /** @type {Record<string, unknown>} */
  const fields = {};
  const name = input('schedule-name').value.trim();
  if (name === '') fieldProblem('schedule-name', 'Give the schedule a name');
  else fields.name = name;
  const every = hoursField('schedule-every-hours');
  if (every === undefined) fieldProblem('schedule-every-hours', 'Give the engine hours between services');
  else fields.interval_seconds = every;
  /** @type {[string, number | null | undefined][]} */
  const optional = [
    ['interval_days', daysField('schedule-every-days')],
    ['due_soon_seconds', hoursField('schedule-soon-hours')],
    ['due_soon_days', daysField('schedule-soon-days')],
  ];
  if (!editing) {
    const device = chosenDevice();
    optional.push(['last_done_hour_meter_seconds', hoursField('schedule-last-hours')]);
    const lastAt = device ? instantField('schedule-last-at', device.timezone) : undefined;
    if (lastAt === null) return null;
    if (lastAt !== undefined) fields.last_done_at = lastAt;
  }
  if (document.querySelector('#schedule-form [aria-invalid]')) return null;
  optional.forEach(([field, value]) => {
    if (value !== undefined) fields[field] = value;
    else if (editing) fields[field] = null;
  });
  if (!editing) return fields;
  // A change sends what differs from the schedule as read.
  const before = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (editing.schedule));
  /** @type {Record<string, unknown>} */
  const changed = {};
  Object.keys(fields).forEach((field) => {
    if (fields[field] !== before[field]) changed[field] = fields[field];
  });
  return changed;
}

/** @param {SubmitEvent} event */
async function onSchedule(event) {
  const form = takeSubmit(event);
  if (!form) return;
  const device = chosenDevice();
  if (!device) return;
  const fields = scheduleFields();
  if (fields === null) return;
  if (editing) {
    const { schedule } = editing;
    if (!Object.keys(fields).length) {
      formProblem(form, 'Nothing changed');
      return;
    }
    const answer = await submit(form, 'Change schedule', {
      method: 'PATCH',
      path: `${schedulesPath(editing.deviceId)}/${encodeURIComponent(schedule.id)}`,
      body: fields,
      ifMatch: ifMatchOf(schedule),
    });
    if (answer === undefined) return;
    stopEditing();
    await succeeded(`Schedule ${String(fields.name || schedule.name)} changed.`);
    return;
  }
  const answer = await submit(form, 'Create schedule', { method: 'POST', path: schedulesPath(device.id), body: fields });
  if (answer === undefined) return;
  form.reset();
  await succeeded(`Schedule ${String(fields.name)} created for ${device.name}.`);
}

/** Fills the schedule form with a schedule to change. @param {Device} device @param {Schedule} schedule */
function startEditing(device, schedule) {
  editing = { deviceId: device.id, schedule: schedule };
  const form = /** @type {HTMLFormElement} */ ($('schedule-form'));
  clearProblems(form);
  form.querySelectorAll('.creating').forEach((node) => {
    /** @type {HTMLElement} */ (node).hidden = true;
  });
  $('schedule-form-title').textContent = `Change ${schedule.name}`;
  $('schedule-submit').textContent = 'Save changes';
  $('schedule-cancel').hidden = false;
  fillEditing(schedule);
  form.scrollIntoView({ block: 'nearest' });
  input('schedule-name').focus();
}
/** @param {Schedule} schedule */
function fillEditing(schedule) {
  input('schedule-name').value = schedule.name;
  input('schedule-every-hours').value = hoursMinutes(schedule.interval_seconds);
  input('schedule-every-days').value = schedule.interval_days === null ? '' : String(schedule.interval_days);
  input('schedule-soon-hours').value = hoursMinutes(schedule.due_soon_seconds);
  input('schedule-soon-days').value = schedule.due_soon_days === null ? '' : String(schedule.due_soon_days);
}
/** After a 412, the schedule as it is now, in the form (or the form back to creating when it is gone). */
function refillEditing() {
  if (!editing) return;
  const id = editing.schedule.id;
  const fresh = (schedulesOf(editing.deviceId) || []).find((schedule) => schedule.id === id);
  if (!fresh) {
    stopEditing();
    return;
  }
  editing = { deviceId: editing.deviceId, schedule: fresh };
  fillEditing(fresh);
}
function stopEditing() {
  editing = null;
  const form = /** @type {HTMLFormElement} */ ($('schedule-form'));
  form.reset();
  form.querySelectorAll('.creating').forEach((node) => {
    /** @type {HTMLElement} */ (node).hidden = false;
  });
  $('schedule-form-title').textContent = 'New schedule';
  $('schedule-submit').textContent = 'Create schedule';
  $('schedule-cancel').hidden = true;
}

/** Removes a schedule once the user confirmed, as it was read (If-Match, D54). @param {Device} device @param {Schedule} schedule */
async function removeSchedule(device, schedule) {
  const form = /** @type {HTMLFormElement} */ ($('schedule-form'));
  if (form.hasAttribute('aria-busy')) return;
  if (!window.confirm(`Remove the schedule "${schedule.name}" of ${device.name}?`)) return;
  clearProblems(form);
  const answer = await submit(form, 'Remove schedule', {
    method: 'DELETE',
    path: `${schedulesPath(device.id)}/${encodeURIComponent(schedule.id)}`,
    ifMatch: ifMatchOf(schedule),
  });
  if (answer === undefined) return;
  if (editing && editing.schedule.id === schedule.id) stopEditing();
  await succeeded(`Schedule ${schedule.name} removed from ${device.name}.`);
}

/**
 * Wires the panel to the page once.
 * @param {PanelSource} given
 */
export function initPanel(given) {
  source = given;
  vehicleChoice().addEventListener('change', () => {
    stopEditing();
    $('manage-result').textContent = '';
    renderPanel();
  });
  $('done-form').addEventListener('submit', (event) => onDone(/** @type {SubmitEvent} */ (event)));
  $('reading-form').addEventListener('submit', (event) => onReading(/** @type {SubmitEvent} */ (event)));
  $('schedule-form').addEventListener('submit', (event) => onSchedule(/** @type {SubmitEvent} */ (event)));
  $('schedule-cancel').addEventListener('click', stopEditing);
}
