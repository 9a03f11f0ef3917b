// @ts-check
/** The stacked bar charts of engine time per local day, drawn by hand as SVG, with a text alternative. */
import { inside, fill, el, svg } from './dom.js';
import { hoursMinutes, lengthText, dateLabel } from './days.js';

/** @typedef {import('./types.js').Day} Day */

// --- Charts ------------------------------------------------------------------------------------
const STEPS = [1, 2, 3, 4, 6, 8, 12, 24, 48, 72, 96, 120, 168, 240, 360, 480, 720, 960, 1200];
/** @type {Map<string, { series: Day[], summary: string }>} */
export const drawn = new Map();

/**
 * Draws stacked moving/idle bars per local date into a figure, with a text alternative: a summary
 * in the figcaption and every value in a table. With day lengths (one vehicle), each day's real
 * length stands behind its bar and days that are not 24 h long are marked.
 * @param {HTMLElement} figure
 * @param {Day[]} series
 * @param {string} summary
 */
export function drawChart(figure, series, summary) {
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
export function totalsOf(series) {
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
