// @ts-check
/*
 * The dispatch board (#board): the day's jobs on a timeline per vehicle (board-timeline.js), the unassigned ones in a
 * list, and the selected job's panel (job-panel.js); the day's plan in its card (plan-card.js), its proposals drawn
 * as ghosts (plan-ghosts.js). This module holds the board's state and reads it: the day's jobs, and the day before's
 * that run past midnight into it (the next day's board draws them from 00:00). Polled: with the last ETags, an
 * unchanged day costs a 304.
 */
import { api, handler, refusal } from './api.js';
import { renderTimeline } from './board-timeline.js';
import { count, route } from './board-words.js';
import { $, clear, h, maybe } from './dom.js';
import {
  addDays,
  dayName,
  dayStart,
  FLEET_NAMES,
  hhmm,
  party,
  releasedText,
  alertText,
  pickupOf,
  seats,
  todayInSriLanka,
  whereabouts,
  whoFor,
} from './format.js';
import { renderJobPanel, resetPanel } from './job-panel.js';
import { loadPlan, resetPlan } from './plan-api.js';
import { planCard, planNote, renderPlan } from './plan-card.js';
import { ghosts } from './plan-state.js';
import { poll, POLL_MS, registerView } from './router.js';
import { serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Vehicle} Vehicle */
/** @typedef {import('./plan-state.js').Ghost} Ghost */

/**
 * `own`: the day's jobs (picked up that day, cancelled ones left out; `cancelled` counts those); `carried`: the
 * jobs of the day before that hold a vehicle past midnight; `jobs`: both, what the timeline and the job's panel work
 * with. `etag` and `beforeEtag`: the last answers' ETags, for each day.
 * @typedef {{ day: 0 | 1, date: string, etag: string | null, beforeEtag: string | null, own: Job[], carried: Job[], cancelled: number, jobs: Job[],
 *   vehicles: Vehicle[], drivers: import('./api.js').Driver[], selected: string | null, scrolledFor: string | null }} Board
 */
/** @type {Board} */
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

/** What the timeline's blocks, the plan's card and its ghosts may do on the board. @type {import('./plan-state.js').Actions} */
const boardActions = { reload: () => reload(), select: (id) => selectJob(id) };

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
    count(n, 'job') +
    (board.cancelled ? ' (and ' + board.cancelled + ' cancelled)' : '') +
    (carried ? '; ' + carried + (carried === 1 ? ' job of the evening before runs' : ' jobs of the evening before run') + ' past midnight' : '') +
    '. ' +
    checked;
  // Nothing changed (both 304, the same plan): the board stays as it is, and the focus where it was.
  if (changed || planChanged || forcePlan) renderBoard();
}

function renderBoard() {
  const shown = ghosts(board);
  renderTimeline(board, shown, boardActions);
  renderUnassigned(shown);
  renderPlan(board, shown, boardActions);
  renderJobPanel(
    board.jobs.find((x) => x.job_id === board.selected),
    board,
    { close: closePanel, reload },
  );
}

/** No job selected: the panel closes. */
function closePanel() {
  board.selected = null;
  renderBoard();
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
          h('span', { class: 'route' }, route(j)),
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
      closePanel();
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
