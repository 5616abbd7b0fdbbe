// @ts-check
/*
 * The driver's jobs: yesterday's still under way (a ride past midnight), today's and tomorrow's, "today" being the
 * service's (GET /me), not the phone's. The next job comes first, open; the others fold, by day. Reloaded every
 * REFRESH_MS while the page is shown, and when the network is back. A tap on a job's button goes through the
 * queue (queue.js): its answer replaces the job, its refusal is said in plain words by the button.
 */
import { api, errorOf, plain, stopIfSignedOut } from './api.js';
import { renderCard, untilText } from './card.js';
import { $, clear, h } from './dom.js';
import { addDays, dayName, fromNow, hhmm, isLive, isOver, pickupTime, STATES } from './format.js';
import { renderStatusBar, shareLocation } from './location.js';
import { flush, link, onQueue, pendingFor, queueStatus, sending } from './queue.js';
import { serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').NextStatus} NextStatus */
/** @typedef {import('./card.js').JobUi} JobUi */

export const REFRESH_MS = 30000;

/**
 * @type {{ today: string, days: Record<string, Job[]>, checkedAt: number, problem: string, shown: string,
 *   timer: ReturnType<typeof setTimeout> | undefined, loading: Promise<void> | null, version: number }}
 * `version`: counts the jobs replaced by a tap's answer.
 */
const list = { today: '', days: {}, checkedAt: 0, problem: '', shown: '', timer: undefined, loading: null, version: 0 };
/** @type {Record<string, JobUi>} */
let ui = {};

/** The days shown: yesterday (only what is not over), today, tomorrow. */
function dates() {
  return list.today ? [addDays(list.today, -1), list.today, addDays(list.today, 1)] : [];
}

/** Every job shown, by pickup time. */
function allJobs() {
  if (!list.today) return [];
  const [yesterday, today, tomorrow] = dates();
  return [...(list.days[yesterday] || []).filter((j) => !isOver(j)), ...(list.days[today] || []), ...(list.days[tomorrow] || [])];
}

/** The job the driver works on now: the one under way, else the first not over. @param {Job[]} jobs */
function nextJob(jobs) {
  return jobs.find(isLive) || jobs.find((j) => !isOver(j));
}

/** Reads who is signed in (the service's clock and today), then the days' jobs; one load at a time. */
export function loadJobs() {
  list.loading ??= load().finally(() => {
    list.loading = null;
  });
  return list.loading;
}

async function load() {
  // A tap's answer that lands while this load is under way is newer than what the load read: it loads again.
  const version = list.version;
  const me = await api('getDriverMe', 'GET', '/me');
  if (!me.ok) return trouble(me);
  session.me = me.json;
  session.clockOffset = Date.parse(me.json.time) - Date.now();
  list.today = me.json.today;
  const days = dates();
  const answers = await Promise.all(days.map((d) => api('listDriverJobs', 'GET', '/jobs?date=' + d)));
  const bad = answers.find((r) => !r.ok);
  if (bad) return trouble(bad);
  if (version !== list.version) return load();
  answers.forEach((r, i) => {
    if (r.ok) list.days[days[i]] = r.json.data;
  });
  list.checkedAt = serviceNow();
  list.problem = '';
  render();
  tickClocks();
}

/** @param {import('./api.js').AnyAnswer} r */
function trouble(r) {
  const since = list.checkedAt ? ' Showing the jobs as they were at ' + hhmm(list.checkedAt) + '.' : '';
  list.problem = (r.networkError ? 'No network — could not update the jobs.' : plain(r)) + since;
  render();
}

/** Replaces a job with the API's copy of it. @param {Job} job */
function replaced(job) {
  list.version += 1;
  for (const d of Object.keys(list.days)) list.days[d] = list.days[d].map((j) => (j.job_id === job.job_id ? job : j));
  render();
}

/** @param {string} jobId @param {Partial<JobUi>} patch @param {boolean} rerender */
function setUi(jobId, patch, rerender) {
  ui[jobId] = { ...ui[jobId], ...patch };
  if (rerender) render();
}

/** The driver taps a job's button: queued, and sent at once if it can be. @param {Job} job @param {NextStatus} status @param {string} [note] */
function tap(job, status, note) {
  setUi(job.job_id, { message: '', confirming: false, completing: false, note: '' }, false);
  queueStatus(note ? { job_id: job.job_id, status, note } : { job_id: job.job_id, status });
  flush().catch(stopIfSignedOut);
}

/** A refused tap in plain words. @param {import('./queue.js').StatusTap} t @param {import('./api.js').AnyAnswer} r */
function refusedWords(t, r) {
  const job = allJobs().find((j) => j.job_id === t.job_id);
  const e = errorOf(r);
  const d = e && e.details ? e.details : {};
  if (r.status === 404) return 'This job is no longer yours — dispatch moved or cancelled it.';
  if (r.status === 409 && d.reason === 'too_early' && (typeof d.en_route_from === 'string' || job)) {
    const from = typeof d.en_route_from === 'string' ? d.en_route_from : Date.parse(pickupTime(/** @type {Job} */ (job))) - 3 * 3600000;
    return 'Too early: you can start driving to this pickup from ' + hhmm(from) + ' (3 hours before the pickup).';
  }
  if (r.status === 409 && d.reason === 'waiting_time' && typeof d.no_show_from === 'string')
    return 'Please keep waiting: you can report that the passenger did not come from ' + hhmm(d.no_show_from) + '.';
  if (r.status === 409 && d.reason === 'job_closed') return 'This job is over or was cancelled — nothing more to do here. Call dispatch if unsure.';
  if (r.status === 409 && d.reason === 'invalid_transition' && typeof d.status === 'string' && d.status in STATES)
    return 'Not possible now: this job is already at "' + STATES[/** @type {Job['status']} */ (d.status)] + '". The screen is updated.';
  return plain(r);
}

onQueue({
  statusDone: (job) => {
    // A ride just ended stays open in the day's list (the next job takes its place on top), saying so.
    if (isOver(job)) setUi(job.job_id, { open: true }, false);
    replaced(job);
    // And the service's clock again: the waiting clock counts from it.
    loadJobs().catch(stopIfSignedOut);
  },
  statusRefused: (t, r) => {
    // What the driver wrote with a refused no-show is kept for the next try.
    setUi(t.job_id, { message: refusedWords(t, r), note: t.note || '' }, true);
    loadJobs().catch(stopIfSignedOut);
  },
  changed: () => {
    render();
    renderStatusBar();
  },
});

/** How the queue stands for the button: a tap being sent, or waiting for the network or the service. */
function linkState() {
  if (!navigator.onLine || link.problem === 'network') return 'network';
  if (link.problem === 'service') return 'service';
  return sending() ? 'sending' : null;
}

/** Draws the jobs, unless nothing the driver sees has changed (so an open note keeps its focus). */
function render() {
  const jobs = allJobs();
  shareLocation(jobs.some(isLive));
  const state = linkState();
  const pending = jobs.map((j) => pendingFor(j.job_id) || null);
  const sig = JSON.stringify([list.today, list.problem, jobs, ui, pending, state]);
  if (sig === list.shown || !session.token) return;
  list.shown = sig;
  const focused = document.activeElement && document.activeElement.id;

  const next = nextJob(jobs);
  const box = clear($('jobs'));
  /** @param {Job} j @param {boolean} isNext */
  const card = (j, isNext) =>
    renderCard(j, {
      next: isNext,
      today: list.today,
      ui: ui[j.job_id] || {},
      pending: pendingFor(j.job_id),
      link: state,
      tap: (status, note) => tap(j, status, note),
      retry: () => flush().catch(stopIfSignedOut),
      setUi: (patch, rerender) => setUi(j.job_id, patch, rerender),
    });
  if (list.problem) box.append(h('p', { class: 'status warn', role: 'status' }, list.problem));
  box.append(
    h(
      'section',
      { class: 'day', 'aria-labelledby': 'next-title' },
      h('h2', { id: 'next-title' }, next ? (isLive(next) ? 'Now' : 'Next job') : 'Next job'),
      next ? card(next, true) : h('p', { class: 'empty' }, list.checkedAt ? 'No more jobs today or tomorrow.' : 'Loading your jobs…'),
    ),
  );
  if (!list.today) return;
  const [yesterday, today, tomorrow] = dates();
  /** @type {[string, string][]} */
  const days = [
    [today, 'Today, ' + dayName(today)],
    [tomorrow, 'Tomorrow, ' + dayName(tomorrow)],
  ];
  if (jobs.some((j) => j !== next && (list.days[yesterday] || []).includes(j))) days.unshift([yesterday, 'Yesterday, ' + dayName(yesterday)]);
  for (const [date, title] of days) {
    const others = (list.days[date] || []).filter((j) => j !== next && (date !== yesterday || !isOver(j)));
    const all = (list.days[date] || []).length;
    box.append(
      h(
        'section',
        { class: 'day', 'aria-labelledby': 'day-' + date },
        h('h2', { id: 'day-' + date }, title, h('span', { class: 'count' }, all === 1 ? '1 job' : all + ' jobs')),
        others.length ? others.map((j) => card(j, false)) : h('p', { class: 'empty' }, all ? 'Nothing else this day.' : 'No jobs this day.'),
      ),
    );
  }
  if (list.checkedAt) $('jobs-checked').textContent = 'Checked at ' + hhmm(list.checkedAt) + ' · updates every ' + REFRESH_MS / 1000 + ' s';
  if (focused) document.getElementById(focused)?.focus();
}

/** Keeps the "in 25 min" and the waiting clock current between renders. */
function tickClocks() {
  document.querySelectorAll('[data-from-now]').forEach((el) => {
    el.textContent = ' · ' + fromNow(el.getAttribute('data-from-now') || '');
  });
  document.querySelectorAll('[data-until]').forEach((el) => {
    el.textContent = untilText(el.getAttribute('data-until') || '');
  });
}

function schedule() {
  clearTimeout(list.timer);
  list.timer = setTimeout(() => {
    if (!session.token) return;
    tickClocks();
    const again = document.hidden ? Promise.resolve() : loadJobs();
    again.then(schedule, (err) => {
      stopIfSignedOut(err);
    });
  }, REFRESH_MS);
}

/** Signed in: shows the jobs and keeps them fresh. */
export function startJobs() {
  list.shown = '';
  render();
  loadJobs().then(schedule, stopIfSignedOut);
}

/** Signed out: forgets the jobs and stops sharing the position. */
export function stopJobs() {
  clearTimeout(list.timer);
  list.timer = undefined;
  list.today = '';
  list.days = {};
  list.checkedAt = 0;
  list.problem = '';
  list.shown = '';
  ui = {};
  shareLocation(false);
  clear($('jobs'));
  $('jobs-checked').textContent = '';
}

/** Back online or back to the page: reload at once. */
export function refreshNow() {
  if (session.token) loadJobs().then(schedule, stopIfSignedOut);
}

setInterval(tickClocks, 15000);
