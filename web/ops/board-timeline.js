// @ts-check
/*
 * The dispatch board's timeline (board.js): a row per vehicle with its jobs on the hours, the plan's proposals as
 * ghosts (plan-ghosts.js) and now (today). A job's window runs from its pickup (as a flight moved it) to its
 * drop-off, clipped to the day: one that runs past midnight is drawn to the right edge, one from the evening before
 * from the left edge, each marked as cut there.
 */
import { $, append, clear, h } from './dom.js';
import { route, timedRoute } from './board-words.js';
import { addDays, alertText, dayName, dayStart, FLEET_NAMES, FLEET_ORDER, HOUR, hhmm, pickupOf, shortPlace, statusText, whereabouts } from './format.js';
import { ghostBlock } from './plan-ghosts.js';
import { can, serviceNow } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Vehicle} Vehicle */
/** @typedef {NonNullable<Job['vehicle']>} JobVehicle */
/** @typedef {import('./board.js').Board} Board */
/** @typedef {import('./plan-state.js').Ghost} Ghost */
/** @typedef {import('./plan-state.js').Actions} Actions */

/**
 * The hours the timeline shows: the day's jobs' windows (and now, today) with an hour either side, at least 12
 * hours, within the day (from 00:00 when a job runs into it from the evening before, to 24:00 when one runs past
 * midnight). Ticks every 2 or 3 hours.
 * @param {Job[]} jobs
 * @param {number} start the day's midnight
 */
function timelineRange(jobs, start) {
  /** @type {number[]} */
  const times = [];
  jobs.forEach((j) => {
    times.push(Date.parse(pickupOf(j)), Date.parse(j.dropoff_at));
  });
  const now = serviceNow();
  if (now >= start && now < start + 24 * HOUR) times.push(now);
  let lo = times.length ? Math.max(0, Math.floor((Math.min(...times) - start) / HOUR) - 1) : 0;
  let hi = times.length ? Math.min(24, Math.ceil((Math.max(...times) - start) / HOUR) + 1) : 24;
  const tick = hi - lo > 16 ? 3 : 2;
  lo -= lo % tick;
  if (hi - lo < 12) hi = Math.min(24, lo + 12);
  if (hi - lo < 12) lo = Math.max(0, hi - 12);
  return { from: start + lo * HOUR, hours: hi - lo, first: lo, tick };
}

/**
 * Draws the timeline afresh; the first time for a day, it scrolls to two hours before now (today) or to its start.
 * @param {Board} board
 * @param {Ghost[]} shown the plan's proposals still to apply
 * @param {Actions} actions what a block's click and a ghost's "Apply" do
 */
export function renderTimeline(board, shown, actions) {
  const range = timelineRange(board.jobs, dayStart(board.date));
  const span = range.hours * HOUR;
  const rows = [];
  /** @type {Record<string, Job[]>} */
  const byVehicle = {};
  board.jobs.forEach((j) => {
    if (j.vehicle) (byVehicle[j.vehicle.vehicle_id] = byVehicle[j.vehicle.vehicle_id] || []).push(j);
  });
  /** @type {(Vehicle | JobVehicle)[]} */
  const vehicles = board.vehicles.slice();
  // A vehicle taken out of service keeps the jobs it holds on the board.
  Object.keys(byVehicle).forEach((id) => {
    const held = byVehicle[id][0].vehicle;
    if (held && !vehicles.some((v) => v.vehicle_id === id)) vehicles.push(held);
  });
  vehicles.sort((a, b) => FLEET_ORDER.indexOf(a.fleet_code) - FLEET_ORDER.indexOf(b.fleet_code) || (a.plate < b.plate ? -1 : 1));

  const scale = h('div', { class: 'tl-track' });
  for (let i = 0; i < range.hours; i += range.tick) {
    const hour = range.first + i;
    scale.appendChild(h('span', { class: 'tl-hour', style: 'left:' + (i / range.hours) * 100 + '%' }, (hour < 10 ? '0' : '') + hour + ':00'));
  }
  rows.push(h('div', { class: 'tl-row tl-hours', 'aria-hidden': 'true' }, h('div', { class: 'tl-label' }), scale));

  const grid = 'background-size:' + (range.tick / range.hours) * 100 + '% 100%';
  const nowPct = ((serviceNow() - range.from) / span) * 100;
  /** A vehicle's row: its jobs on the hours, the plan's proposals for it, and now (today). @param {Job[]} jobs @param {Ghost[]} [proposed] */
  const track = (jobs, proposed = []) =>
    h(
      'div',
      // A row with proposals a dispatcher may apply is taller, for their "Apply".
      { class: 'tl-track' + (proposed.length && can('dispatcher') ? ' proposed' : ''), style: grid },
      nowPct >= 0 && nowPct <= 100 && h('span', { class: 'tl-now', style: 'left:' + nowPct + '%', 'aria-hidden': 'true' }),
      jobs.map((j) => jobBlock(j, windowBox(j, range.from, span), board, actions)),
      proposed.map((g) => ghostBlock(g, windowBox(g.job, range.from, span), board, actions)),
    );
  vehicles.forEach((v) => {
    rows.push(
      h(
        'div',
        { class: 'tl-row', role: 'group', 'aria-label': v.plate + ', ' + FLEET_NAMES[v.fleet_code] },
        h('div', { class: 'tl-label' }, h('strong', {}, v.plate), h('span', {}, FLEET_NAMES[v.fleet_code])),
        track(
          byVehicle[v.vehicle_id] || [],
          shown.filter((g) => g.a.vehicle_id === v.vehicle_id),
        ),
      ),
    );
  });
  // Jobs closed without a vehicle (a no-show before anyone was assigned), the day's own.
  const loose = board.own.filter((j) => !j.vehicle && j.status !== 'confirmed');
  if (loose.length)
    rows.push(h('div', { class: 'tl-row' }, h('div', { class: 'tl-label' }, h('strong', {}, 'No vehicle'), h('span', {}, 'closed')), track(loose)));
  if (vehicles.length === 0) rows.push(h('p', { class: 'empty' }, 'No active vehicle: register the fleet with the operator API or the CLI (vehicle add).'));
  const tl = clear($('timeline'));
  append(tl, h('div', { class: 'tl-grid' }, rows));
  // When the day's timeline is wider than the screen, it opens two hours before now (today) or at the first job.
  if (board.scrolledFor !== board.date) {
    board.scrolledFor = board.date;
    const first = tl.querySelector('.tl-track');
    const width = first ? first.clientWidth : 0;
    tl.scrollLeft = nowPct >= 0 && nowPct <= 100 ? Math.max(0, ((serviceNow() - 2 * HOUR - range.from) / span) * width) : 0;
  }
}

/** The ride's states while the driver holds the job: the block names them. */
const RIDING = ['en_route', 'arrived', 'on_board'];

/**
 * Where a job's window (pickup, as a flight moved it, to drop-off) sits on a row of the timeline: its left and width,
 * clipped to the timeline. One cut at the end (past midnight) is drawn to the right edge, one cut at the start (from
 * the evening before) from the left edge; `cut` names the edges it is cut at (a hint that it goes on).
 * @param {Job} j
 * @param {number} origin the timeline's first hour
 * @param {number} span its length
 */
function windowBox(j, origin, span) {
  const from = (Date.parse(pickupOf(j)) - origin) / span;
  const to = (Date.parse(j.dropoff_at) - origin) / span;
  const left = Math.max(0, from);
  const width = Math.max(1.5, (Math.min(1, to) - left) * 100);
  const cut = (from < 0 ? ' cut-start' : '') + (to > 1 ? ' cut-end' : '');
  return { style: (to > 1 ? 'right:0' : 'left:' + left * 100 + '%') + ';width:' + width + '%', cut };
}

/** "Sat 23:50" for a time on another day than the board's, else "23:50". @param {string} iso @param {string} date the board's */
function timeOnBoard(iso, date) {
  const t = Date.parse(iso);
  const start = dayStart(date);
  if (t >= start && t < start + 24 * HOUR) return hhmm(iso);
  return dayName(addDays(date, t < start ? -1 : 1)).slice(0, 3) + ' ' + hhmm(iso);
}

/**
 * A job the vehicle holds, on its row: its text opens the job.
 * @param {Job} j
 * @param {{ style: string, cut: string }} box where it sits on the row (windowBox)
 * @param {Board} board
 * @param {Actions} actions
 */
function jobBlock(j, box, board, actions) {
  const midnight = dayStart(board.date);
  const before = Date.parse(pickupOf(j)) < midnight;
  const after = Date.parse(j.dropoff_at) > midnight + 24 * HOUR;
  const label =
    'Job ' +
    j.job_id +
    ', ' +
    timeOnBoard(pickupOf(j), board.date) +
    ' to ' +
    timeOnBoard(j.dropoff_at, board.date) +
    (before ? ' (from the evening before)' : '') +
    (after ? ' (runs past midnight)' : '') +
    ', ' +
    shortPlace(j.pickup) +
    ' to ' +
    shortPlace(j.dropoff) +
    ', ' +
    statusText(j) +
    (j.driver ? ', driver ' + j.driver.name : '') +
    (j.assigned_by === 'plan' ? ', assigned by a plan' : '') +
    (j.alerts.length ? '. ' + alertText(j) : '');
  return h(
    'button',
    {
      type: 'button',
      class:
        'tl-job ' +
        j.status +
        box.cut +
        (j.last_location ? ' located' : '') +
        (j.alerts.length ? ' alert' : '') +
        (board.selected === j.job_id ? ' selected' : ''),
      style: box.style,
      title: label + '. ' + whereabouts(j),
      'aria-label': label,
      'data-job': j.job_id,
      'data-assigned-by': j.assigned_by,
      onclick: () => actions.select(j.job_id),
    },
    // From the evening before, the block says until when the vehicle is held.
    h('span', {}, (j.alerts.length ? '⚠ ' : '') + (before ? 'until ' + hhmm(j.dropoff_at) + ' · ' + route(j) : timedRoute(j))),
    j.driver
      ? h(
          'span',
          { class: 'who' },
          j.assigned_by === 'plan' ? h('span', { class: 'by-plan', 'aria-hidden': 'true' }, 'plan') : null,
          j.driver.name + (RIDING.includes(j.status) ? ' · ' + statusText(j) : ''),
        )
      : null,
  );
}
