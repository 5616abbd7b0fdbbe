// @ts-check
/*
 * The dispatch board (#board): the day's jobs on a timeline per vehicle, the unassigned ones in a list, and the
 * selected job's panel (job-panel.js); the day's plan, its proposals drawn as ghosts (plan-ghosts.js). A job's
 * window runs from its pickup (as a flight moved it) to its drop-off, across midnight too: one that runs into the
 * next day is drawn to the day's edge, and the next day's board draws it from 00:00 (it reads the day before's jobs
 * for them). Polled: with the last ETags, an unchanged day costs a 304.
 */
import { api, handler, refusal } from './api.js';
import { $, append, clear, h, maybe } from './dom.js';
import {
  addDays,
  dayName,
  dayStart,
  FLEET_NAMES,
  FLEET_ORDER,
  HOUR,
  hhmm,
  party,
  releasedText,
  alertText,
  pickupOf,
  seats,
  shortPlace,
  statusText,
  todayInSriLanka,
  whereabouts,
  whoFor,
} from './format.js';
import { renderJobPanel, resetPanel } from './job-panel.js';
import { ghostBlock, ghosts, loadPlan, planCard, planNote, renderPlan, resetPlan } from './plan-ghosts.js';
import { poll, POLL_MS, registerView } from './router.js';
import { can, serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Vehicle} Vehicle */
/** @typedef {NonNullable<Job['vehicle']>} JobVehicle */

/** @typedef {import('./plan-ghosts.js').Ghost} Ghost */

/**
 * `own`: the day's jobs (picked up that day, cancelled ones left out; `cancelled` counts those); `carried`: the
 * jobs of the day before that hold a vehicle past midnight; `jobs`: both, what the timeline and the job's panel work
 * with. `etag` and `beforeEtag`: the last answers' ETags, for each day.
 * @type {{ day: 0 | 1, date: string, etag: string | null, beforeEtag: string | null, own: Job[], carried: Job[], cancelled: number, jobs: Job[],
 *   vehicles: Vehicle[], drivers: import('./api.js').Driver[], selected: string | null, scrolledFor: string | null }}
 */
const board = {
  day: 0,
  date: '',
  etag: null,
  beforeEtag: null,
  own: [],
  carried: [],
  cancelled: 0,
  jobs: [],
  vehicles: [],
  drivers: [],
  selected: null,
  scrolledFor: null,
};

/** What the plan's card and ghosts may do on the board. @type {import('./plan-ghosts.js').Actions} */
const planActions = { reload: () => reload(), select: (id) => selectJob(id) };

async function openBoard() {
  board.date = addDays(todayInSriLanka(), board.day);
  $('day-today').textContent = 'Today, ' + dayName(addDays(todayInSriLanka(), 0));
  $('day-tomorrow').textContent = 'Tomorrow, ' + dayName(addDays(todayInSriLanka(), 1));
  $('day-today').setAttribute('aria-pressed', String(board.day === 0));
  $('day-tomorrow').setAttribute('aria-pressed', String(board.day === 1));
  const [vehicles, drivers] = await Promise.all([api('listVehicles', 'GET', '/vehicles?active=true'), api('listDrivers', 'GET', '/drivers?active=true')]);
  if (vehicles.ok) board.vehicles = vehicles.json.data;
  if (drivers.ok) board.drivers = drivers.json.data;
  await reload();
  poll();
}

/** The day afresh, its plan too (after an action). */
function reload() {
  board.etag = null;
  board.beforeEtag = null;
  return loadJobs(true);
}

/**
 * The day's jobs, and the day before's that run past midnight into it; with the last ETags, an unchanged day costs
 * a 304. The day's newest plan is read again when the jobs changed (and once a minute).
 * @param {boolean} [forcePlan]
 */
async function loadJobs(forcePlan = false) {
  const date = board.date;
  const midnight = dayStart(date);
  const [r, before] = await Promise.all([
    api('listJobs', 'GET', '/jobs?date=' + date + '&limit=500', undefined, { etag: board.etag }),
    api('listJobs', 'GET', '/jobs?date=' + addDays(date, -1) + '&limit=500', undefined, { etag: board.beforeEtag }),
  ]);
  if (date !== board.date) return;
  const checked = 'Checked at ' + hhmm(new Date(serviceNow()).toISOString()) + '; updates every ' + POLL_MS / 1000 + ' s.';
  if (r.status !== 304 && !r.ok) {
    $('board-status').textContent = 'Could not load the jobs: ' + refusal(r);
    return;
  }
  const changed = r.status !== 304 || before.status !== 304;
  if (r.ok) {
    board.etag = r.etag;
    board.own = r.json.data.filter((j) => j.status !== 'cancelled');
    board.cancelled = r.json.data.length - board.own.length;
  }
  // The evening before: only the jobs that hold a vehicle past midnight (a refusal leaves those last read).
  if (before.ok) {
    board.beforeEtag = before.etag;
    board.carried = before.json.data.filter((j) => j.status !== 'cancelled' && j.vehicle && Date.parse(j.dropoff_at) > midnight);
  }
  board.jobs = board.carried.concat(board.own);
  const planChanged = await loadPlan(date, forcePlan || changed);
  if (date !== board.date) return;
  const n = board.own.length;
  const carried = board.carried.length;
  $('board-status').textContent =
    n +
    (n === 1 ? ' job' : ' jobs') +
    (board.cancelled ? ' (and ' + board.cancelled + ' cancelled)' : '') +
    (carried ? '; ' + carried + (carried === 1 ? ' job of the evening before runs' : ' jobs of the evening before run') + ' past midnight' : '') +
    '. ' +
    checked;
  // Nothing changed (both 304, the same plan): the board stays as it is, and the focus where it was.
  if (changed || planChanged || forcePlan) renderBoard();
}

function renderBoard() {
  const shown = ghosts(board);
  renderTimeline(shown);
  renderUnassigned(shown);
  renderPlan(board, shown, planActions);
  renderJobPanel(
    board.jobs.find((x) => x.job_id === board.selected),
    board,
    {
      close: () => {
        board.selected = null;
        renderBoard();
      },
      reload,
    },
  );
}

/**
 * The hours the timeline shows: the day's jobs' windows (and now, today) with an hour either side, at least 12
 * hours, within the day (from 00:00 when a job runs into it from the evening before, to 24:00 when one runs past
 * midnight). Ticks every 2 or 3 hours.
 * @param {number} start the day's midnight
 */
function timelineRange(start) {
  /** @type {number[]} */
  const times = [];
  board.jobs.forEach((j) => {
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

/** @param {Ghost[]} shown the plan's proposals still to apply */
function renderTimeline(shown) {
  const range = timelineRange(dayStart(board.date));
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
      jobs.map((j) => jobBlock(j, range.from, span)),
      proposed.map((g) => ghostBlock(g, windowBox(g.job, range.from, span), board, planActions)),
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

/** "Sat 23:50" for a time on another day than the board's, else "23:50". @param {string} iso */
function timeOnBoard(iso) {
  const t = Date.parse(iso);
  const start = dayStart(board.date);
  if (t >= start && t < start + 24 * HOUR) return hhmm(iso);
  return dayName(addDays(board.date, t < start ? -1 : 1)).slice(0, 3) + ' ' + hhmm(iso);
}

/** @param {Job} j @param {number} origin @param {number} span */
function jobBlock(j, origin, span) {
  const box = windowBox(j, origin, span);
  const midnight = dayStart(board.date);
  const before = Date.parse(pickupOf(j)) < midnight;
  const after = Date.parse(j.dropoff_at) > midnight + 24 * HOUR;
  const label =
    'Job ' +
    j.job_id +
    ', ' +
    timeOnBoard(pickupOf(j)) +
    ' to ' +
    timeOnBoard(j.dropoff_at) +
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
      onclick: () => selectJob(j.job_id),
    },
    // From the evening before, the block says until when the vehicle is held.
    h(
      'span',
      {},
      (j.alerts.length ? '⚠ ' : '') +
        (before ? 'until ' + hhmm(j.dropoff_at) + ' · ' : hhmm(pickupOf(j)) + ' ') +
        shortPlace(j.pickup) +
        ' → ' +
        shortPlace(j.dropoff),
    ),
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

/** The day's jobs without a driver (those of the evening before are the day before's). @param {Ghost[]} shown */
function renderUnassigned(shown) {
  const open = board.own.filter((j) => j.status === 'confirmed');
  $('unassigned-count').textContent = String(open.length);
  const list = clear($('unassigned'));
  if (!open.length) list.appendChild(h('li', { class: 'empty' }, board.own.length ? 'Every job of the day has a driver.' : 'No job on this day.'));
  open.forEach((j) => {
    const planned = planNote(board, shown, j.job_id);
    list.appendChild(
      h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'job-card' + (board.selected === j.job_id ? ' selected' : ''),
            'data-job': j.job_id,
            onclick: () => selectJob(j.job_id),
          },
          h('span', { class: 'when' }, hhmm(pickupOf(j)) + '–' + hhmm(j.dropoff_at), h('span', { class: 'id' }, 'Job ' + j.job_id)),
          h('span', { class: 'route' }, shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff)),
          h('span', { class: 'what' }, FLEET_NAMES[j.fleet_code] + ' · ' + party(j) + (j.extras.length ? ' · ' + seats(j) : '') + ' · ' + whoFor(j)),
          j.released ? h('span', { class: 'released' }, releasedText(j)) : null,
          j.alerts.length ? h('span', { class: 'alerts' }, alertText(j)) : null,
          planned ? h('span', { class: 'planned' }, planned) : null,
          h('span', { class: 'where' }, whereabouts(j)),
        ),
      ),
    );
  });
}

/** @param {string} id */
function selectJob(id) {
  board.selected = id;
  resetPanel();
  renderBoard();
  const panel = $('job-panel');
  const side = panel.parentElement;
  // Wide screens: the side column scrolls by itself; narrow ones: the panel is above the timeline.
  if (side && getComputedStyle(side).position === 'sticky') side.scrollTop = 0;
  else panel.scrollIntoView({ block: 'nearest' });
  maybe('job-title')?.focus({ preventScroll: true });
}

/** @param {0 | 1} day */
function showDay(day) {
  board.day = day;
  board.selected = null;
  resetPlan();
  return openBoard();
}

export function setUpBoard() {
  // The day's plan, beside the timeline: above the unassigned jobs (on a phone, above the timeline).
  const unassigned = $('unassigned').closest('section');
  if (unassigned && unassigned.parentElement) unassigned.parentElement.insertBefore(planCard(), unassigned);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && session.view === 'board' && board.selected) {
      const id = board.selected;
      board.selected = null;
      renderBoard();
      /** @type {HTMLElement | null} */
      const back = document.querySelector('[data-job="' + id + '"]');
      if (back) back.focus();
    }
  });
  $('day-today').addEventListener(
    'click',
    handler(() => showDay(0)),
  );
  $('day-tomorrow').addEventListener(
    'click',
    handler(() => showDay(1)),
  );
  $('board-refresh').addEventListener('click', handler(openBoard));
  registerView('board', {
    open: openBoard,
    refresh: () => loadJobs(),
    reset: () => {
      board.jobs = [];
      board.own = [];
      board.carried = [];
      board.etag = null;
      board.beforeEtag = null;
      board.selected = null;
      board.scrolledFor = null;
      resetPlan();
    },
  });
}
