/**
 * The inline style of the fleet view (`fleet-view-page.ts`). It is kept as text, like the script
 * (`fleet-view-script.ts`), so the page stays one self-contained document that works with no
 * internet access, and so its SHA-256 can be named in the page's Content-Security-Policy.
 *
 * The charts are drawn by hand as SVG: stacked bars need a few dozen lines, a chart library would
 * add a dependency to bundle and keep current for no gain.
 */

/** The page's style sheet. */
export const FLEET_VIEW_STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #6b7280; --accent: #2563eb; --moving: #2563eb; --idle: #f59e0b; --day: #8882; --marker: #9333ea; --bad: #b91c1c; --ok: #15803d; --soon: #b45309; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; overflow-wrap: anywhere; }
header, main { max-width: 80rem; margin: 0 auto; padding: .75rem 1rem; }
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
.status { display: inline-block; padding: 0 .35em; border: 1px solid currentColor; border-radius: 3px; font-size: .85em; font-weight: 600; white-space: nowrap; }
.status-ok { color: var(--ok); }
.status-due_soon { color: var(--soon); }
.status-overdue { color: var(--bad); background: #b91c1c18; }
td.service { white-space: nowrap; }
td.service .sub { white-space: normal; }
td.hour-meter .sub { font-variant-numeric: normal; }
details { margin: .25rem 0; }
#manage { margin: .75rem 0; }
#manage-result:empty, .form-problem:empty, .field-problem:empty { display: none; }
#manage-result { margin: .5rem 0; padding: .4rem .6rem; border-left: 4px solid var(--ok); }
form.action fieldset { margin: .75rem 0; padding: .5rem .75rem .75rem; border: 1px solid var(--line); border-radius: 4px; min-width: 0; }
form.action legend { font-weight: 600; padding: 0 .25rem; }
form.action .field { display: grid; grid-template-columns: 16rem minmax(0, 20rem); gap: .1rem .75rem; align-items: center; margin: .35rem 0; }
form.action .field-problem { grid-column: 2; color: var(--bad); font-weight: 600; font-size: .9em; }
form.action .form-problem { color: var(--bad); font-weight: 600; margin: .35rem 0; }
form.action button { margin-top: .35rem; }
[aria-invalid="true"] { border-color: var(--bad); outline: 1px solid var(--bad); }
button:disabled { cursor: progress; opacity: .6; }
td.actions span { display: inline-flex; flex-wrap: wrap; gap: .35rem; justify-content: flex-end; }
td.actions button { padding: .1rem .4rem; font-size: .9em; }
details table { font-size: .9em; }
@media (max-width: 40rem) {
  :is(#vehicles, #service-list, #schedules, #utilization) thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  :is(#vehicles, #service-list, #schedules, #utilization), :is(#vehicles, #service-list, #schedules, #utilization) :is(tbody, tr, th, td) { display: block; width: 100%; }
  :is(#vehicles, #service-list, #schedules, #utilization) tr { border-top: 1px solid var(--line); padding: .4rem 0; }
  :is(#vehicles, #service-list, #schedules, #utilization) :is(th, td) { border: 0; padding: .1rem 0; }
  :is(#vehicles, #service-list, #schedules, #utilization) td { display: flex; justify-content: space-between; gap: 1rem; text-align: right; }
  :is(#vehicles, #service-list, #schedules, #utilization) td::before { content: attr(data-label); color: var(--muted); text-align: left; }
  form.action .field { grid-template-columns: minmax(0, 1fr); }
  form.action .field-problem { grid-column: 1; }
  form.action :is(input, select) { width: 100%; }
}
`;
