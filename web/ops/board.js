// @ts-check
/*
 * The dispatch board (#board): the day's jobs on a timeline per vehicle, the unassigned ones in a list, and the
 * selected job's panel (job-panel.js). Polled: with the last ETag, an unchanged day costs a 304.
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
import { poll, POLL_MS, registerView } from './router.js';
import { serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Vehicle} Vehicle */
/** @typedef {NonNullable<Job['vehicle']>} JobVehicle */

/**
 * @type {{ day: 0 | 1, date: string, etag: string | null, jobs: Job[], vehicles: Vehicle[], drivers: import('./api.js').Driver[],
 *   selected: string | null, scrolledFor: string | null }}
 */
const board = { day: 0, date: '', etag: null, jobs: [], vehicles: [], drivers: [], selected: null, scrolledFor: null };

async function openBoard() {
  board.date = addDays(todayInSriLanka(), board.day);
  $('day-today').textContent = 'Today, ' + dayName(addDays(todayInSriLanka(), 0));
  $('day-tomorrow').textContent = 'Tomorrow, ' + dayName(addDays(todayInSriLanka(), 1));
  $('day-today').setAttribute('aria-pressed', String(board.day === 0));
  $('day-tomorrow').setAttribute('aria-pressed', String(board.day === 1));
  const [vehicles, drivers] = await Promise.all([api('listVehicles', 'GET', '/vehicles?active=true'), api('listDrivers', 'GET', '/drivers?active=true')]);
  if (vehicles.ok) board.vehicles = vehicles.json.data;
  if (drivers.ok) board.drivers = drivers.json.data;
  board.etag = null;
  await loadJobs();
  poll();
}

/** The day's jobs; with the last ETag, an unchanged list costs a 304. */
async function loadJobs() {
  const date = board.date;
  const r = await api('listJobs', 'GET', '/jobs?date=' + date + '&limit=500', undefined, { etag: board.etag });
  if (date !== board.date) return;
  const checked = 'Checked at ' + hhmm(new Date(serviceNow()).toISOString()) + '; updates every ' + POLL_MS / 1000 + ' s.';
  if (r.status === 304) {
    $('board-status').textContent = checked;
    return;
  }
  if (!r.ok) {
    $('board-status').textContent = 'Could not load the jobs: ' + refusal(r);
    return;
  }
  board.etag = r.etag;
  board.jobs = r.json.data.filter((j) => j.status !== 'cancelled');
  const cancelled = r.json.data.length - board.jobs.length;
  $('board-status').textContent =
    board.jobs.length + (board.jobs.length === 1 ? ' job' : ' jobs') + (cancelled ? ' (and ' + cancelled + ' cancelled)' : '') + '. ' + checked;
  renderBoard();
}

function renderBoard() {
  renderTimeline();
  renderUnassigned();
  renderJobPanel(
    board.jobs.find((x) => x.job_id === board.selected),
    board,
    {
      close: () => {
        board.selected = null;
        renderBoard();
      },
      reload: () => {
        board.etag = null;
        return loadJobs();
      },
    },
  );
}

/**
 * The hours the timeline shows: the day's jobs (and now, today) with an hour either side, at least 12 hours,
 * within the day. Ticks every 2 or 3 hours.
 * @param {number} start the day's midnight
 */
function timelineRange(start) {
  /** @type {number[]} */
  const times = [];
  board.jobs.forEach((j) => {
    times.push(Date.parse(j.pickup_at), Date.parse(j.dropoff_at));
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

function renderTimeline() {
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
  /** A vehicle's row: its jobs on the hours, and now (today). @param {Job[]} jobs */
  const track = (jobs) =>
    h(
      'div',
      { class: 'tl-track', style: grid },
      nowPct >= 0 && nowPct <= 100 && h('span', { class: 'tl-now', style: 'left:' + nowPct + '%', 'aria-hidden': 'true' }),
      jobs.map((j) => jobBlock(j, range.from, span)),
    );
  vehicles.forEach((v) => {
    rows.push(
      h(
        'div',
        { class: 'tl-row', role: 'group', 'aria-label': v.plate + ', ' + FLEET_NAMES[v.fleet_code] },
        h('div', { class: 'tl-label' }, h('strong', {}, v.plate), h('span', {}, FLEET_NAMES[v.fleet_code])),
        track(byVehicle[v.vehicle_id] || []),
      ),
    );
  });
  // Jobs closed without a vehicle (a no-show before anyone was assigned).
  const loose = board.jobs.filter((j) => !j.vehicle && j.status !== 'confirmed');
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

/** @param {Job} j @param {number} origin @param {number} span */
function jobBlock(j, origin, span) {
  const from = Math.max(0, (Date.parse(pickupOf(j)) - origin) / span);
  const to = Math.min(1, (Date.parse(j.dropoff_at) - origin) / span);
  const label =
    'Job ' +
    j.job_id +
    ', ' +
    hhmm(pickupOf(j)) +
    ' to ' +
    hhmm(j.dropoff_at) +
    ', ' +
    shortPlace(j.pickup) +
    ' to ' +
    shortPlace(j.dropoff) +
    ', ' +
    statusText(j) +
    (j.driver ? ', driver ' + j.driver.name : '') +
    (j.alerts.length ? '. ' + alertText(j) : '');
  return h(
    'button',
    {
      type: 'button',
      class: 'tl-job ' + j.status + (j.last_location ? ' located' : '') + (j.alerts.length ? ' alert' : '') + (board.selected === j.job_id ? ' selected' : ''),
      style: 'left:' + from * 100 + '%;width:' + Math.max(1.5, (to - from) * 100) + '%',
      title: label + '. ' + whereabouts(j),
      'aria-label': label,
      'data-job': j.job_id,
      onclick: () => selectJob(j.job_id),
    },
    h('span', {}, (j.alerts.length ? '⚠ ' : '') + hhmm(pickupOf(j)) + ' ' + shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff)),
    j.driver ? h('span', { class: 'who' }, j.driver.name + (RIDING.includes(j.status) ? ' · ' + statusText(j) : '')) : null,
  );
}

function renderUnassigned() {
  const open = board.jobs.filter((j) => j.status === 'confirmed');
  $('unassigned-count').textContent = String(open.length);
  const list = clear($('unassigned'));
  if (!open.length) list.appendChild(h('li', { class: 'empty' }, board.jobs.length ? 'Every job of the day has a driver.' : 'No job on this day.'));
  open.forEach((j) => {
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
  return openBoard();
}

export function setUpBoard() {
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
    refresh: loadJobs,
    reset: () => {
      board.jobs = [];
      board.etag = null;
      board.selected = null;
      board.scrolledFor = null;
    },
  });
}
