// @ts-check
/*
 * The day's plan over the operator API, for the board: reads the newest plan (GET /dispatch/plans), plans the day
 * (POST, a `fill` plan) and applies its proposals (POST …/apply, as by hand), saying what each action answered in
 * the plan card's status line. Nothing is assigned until a proposal is applied.
 */
import { api, failed } from './api.js';
import { clear, h, maybe, say } from './dom.js';
import { count } from './board-words.js';
import { crew, ghosts, inWords, planOf, planState, standing } from './plan-state.js';

/** @typedef {import('./plan-state.js').Actions} Actions */
/** @typedef {import('./plan-state.js').Day} Day */
/** @typedef {import('./plan-state.js').Plan} Plan */
/** @typedef {import('./plan-state.js').Result} Result */

/** How often the board reads the plans while its jobs do not change (a plan of the automatic pass, say). */
const PLANS_EVERY_MS = 60000;

/** Why a proposal was not applied, in words (the plan's reasons, then an assignment's refusals). @type {Record<string, string>} */
const SKIPPED = {
  changed_since_plan: 'the job changed since the plan (assigned, cancelled or moved): plan again',
  already_applied: 'applied before',
  not_in_plan: 'the plan does not propose it',
  overlap: 'the driver or the vehicle is on another job then',
  travel_time: 'not enough time to drive there between jobs',
  outside_shift: "outside the driver's hours",
  class_full: 'no room left in the vehicle’s class',
  pickup_passed: 'its pickup time has passed',
  vehicle_too_small: 'the vehicle is too small for the party',
  vehicle_lacks_equipment: 'the vehicle lacks a seat the job needs',
  driver_inactive: 'the driver is no longer on the roster',
  vehicle_inactive: 'the vehicle is out of service',
};

/** The day's plan as read now. @param {string} date @param {Plan | null} plan */
function keep(date, plan) {
  planState.date = date;
  planState.plan = plan;
  planState.at = Date.now();
}

/** No action's answer any more: the status line is emptied. */
function clearResult() {
  planState.result = null;
  const status = maybe('plan-result');
  if (status) say(status, '');
}

/** Another day is shown, or the operator signed out: the plan is read afresh. */
export function resetPlan() {
  planState.date = '';
  planState.plan = null;
  planState.at = 0;
  planState.shown = '';
  const body = maybe('plan-body');
  if (body) clear(body);
  clearResult();
}

/**
 * Reads the day's newest plan: always when `force` (the board opened, its jobs changed, an action), else once a
 * minute (a plan made elsewhere, by the automatic pass say, shows within a minute). Resolves whether it changed.
 * @param {string} date
 * @param {boolean} force
 * @returns {Promise<boolean>}
 */
export async function loadPlan(date, force) {
  if (!force && planState.date === date && Date.now() - planState.at < PLANS_EVERY_MS) return false;
  const r = await api('listDispatchPlans', 'GET', '/dispatch/plans?date=' + date + '&limit=1');
  if (!r.ok) return false; // The board shows its jobs whatever; the last plan read stays.
  const was = planState.date === date && planState.plan ? planState.plan.plan_id + ':' + planState.plan.applied_at : '';
  const plan = r.json.data[0] || null;
  if (planState.date !== date) clearResult();
  keep(date, plan);
  return was !== (plan ? plan.plan_id + ':' + plan.applied_at : '');
}

/** The last action's answer, in the card's status line. */
function showResult() {
  const el = maybe('plan-result');
  const r = planState.result;
  if (!el || !r) return;
  if ('refused' in r) return failed(el, r.refused);
  say(el, r.text, r.kind);
  if (r.list && r.list.length)
    el.appendChild(
      h(
        'ul',
        { class: 'field-errors' },
        r.list.map((x) => h('li', {}, x)),
      ),
    );
}

/** An action's answer, shown at once (and kept until the next). @param {Result} r */
function result(r) {
  planState.result = r;
  showResult();
}

/**
 * Plans the day shown (`fill`: what is assigned stays; the rest is proposed).
 * @param {Day} day
 * @param {Actions} actions
 */
export async function planDay(day, actions) {
  if (planState.busy) return;
  planState.busy = true;
  result({ text: 'Planning ' + day.date + '…', kind: '' });
  try {
    const r = await api('createDispatchPlan', 'POST', '/dispatch/plans', { date: day.date, mode: 'fill' });
    if (!r.ok) return result({ refused: r });
    keep(day.date, r.json);
    const n = r.json.assignments.filter((a) => a.change !== 'kept').length;
    result({
      text:
        'Planned: ' +
        (n ? count(n, 'proposal') + ' to apply' : 'nothing new to propose') +
        ', covering ' +
        r.json.totals.covered +
        ' of ' +
        r.json.totals.jobs +
        ' jobs. Nothing is assigned until applied.',
      kind: 'ok',
    });
  } finally {
    planState.busy = false;
    await actions.reload();
  }
}

/**
 * Applies the plan's proposals: these jobs' (a ghost's "Apply"), or all of them ("Apply all", no body). What was
 * skipped is said with why, except the proposals that were already true before (applied earlier).
 * @param {Day} day
 * @param {Actions} actions
 * @param {string[]} [jobIds]
 */
export async function apply(day, actions, jobIds) {
  const plan = planOf(day);
  if (!plan || planState.busy) return;
  const shown = ghosts(day);
  const done = new Set(plan.assignments.filter((a) => standing(a, day) === 'done').map((a) => a.job_id));
  planState.busy = true;
  result({ text: 'Applying…', kind: '' });
  /** @type {{ job_ids: string[] } | undefined} the API takes `job_ids` (ops-v1.yaml); the typings read its optional body as none */
  const body = jobIds ? { job_ids: jobIds } : undefined;
  try {
    const r = await api('applyDispatchPlan', 'POST', '/dispatch/plans/' + encodeURIComponent(plan.plan_id) + '/apply', /** @type {undefined} */ (body));
    if (!r.ok) return result({ refused: r });
    const applied = r.json.applied;
    const skipped = r.json.skipped.filter((s) => !done.has(s.job_id));
    /** @param {string} id */
    const who = (id) => {
      const g = shown.find((x) => x.job.job_id === id);
      return 'job ' + id + (g ? ' to ' + crew(g) : '');
    };
    const text = applied.length
      ? applied.length === 1
        ? 'Applied: ' + who(applied[0]) + '.'
        : 'Applied ' + applied.length + ' proposals: ' + applied.map(who).join('; ') + '.'
      : 'Nothing was applied.';
    result({
      text: text + (skipped.length ? ' Not applied:' : ''),
      kind: skipped.length ? 'error' : 'ok',
      list: skipped.map((s) => 'Job ' + s.job_id + ': ' + inWords(s.reason, SKIPPED) + '.'),
    });
  } finally {
    planState.busy = false;
    await actions.reload();
  }
  // The proposal applied is a job of the vehicle now: the focus goes to its block.
  /** @type {HTMLElement | null} */
  const real = jobIds && jobIds.length === 1 ? document.querySelector('#timeline [data-job="' + jobIds[0] + '"]') : null;
  if (real) real.focus();
}
