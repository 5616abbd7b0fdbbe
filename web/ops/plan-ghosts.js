// @ts-check
/*
 * The day's plan on the dispatch board (board.js): the newest plan's proposals that are not yet true, drawn as ghost
 * blocks on the proposed vehicle's row, each with its "Apply"; a card with the plan's totals, "Apply all", the jobs it
 * could not cover and why, in words; and "Plan the day" (a `fill` plan), for a dispatcher. A viewer sees the
 * proposals, without the buttons. Nothing is assigned until a proposal is applied (POST …/apply, as by hand).
 */
import { api, failed, handler } from './api.js';
import { $, append, clear, h, maybe, say } from './dom.js';
import { hhmm, pickupOf, shortPlace } from './format.js';
import { can, serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Schemas['DispatchPlan']} Plan */
/** @typedef {Plan['assignments'][number]} Proposal */
/** @typedef {{ date: string, jobs: Job[], drivers: import('./api.js').Driver[], vehicles: import('./api.js').Vehicle[] }} Day */
/** @typedef {{ reload: () => Promise<unknown>, select: (jobId: string) => void }} Actions */
/**
 * A proposal still to apply, with its job, and who and what it proposes, by name.
 * @typedef {{ a: Proposal, job: Job, driver: string, plate: string }} Ghost
 */
/** @typedef {{ text: string, kind: 'ok' | 'error' | '', list?: string[] } | { refused: import('./api.js').AnyAnswer }} Result */

/**
 * `plan`: the day's newest plan (null: none yet); `at`: when it was read (the browser's clock); `result`: what the
 * last action answered, shown under the card until the next one; `busy`: an action is under way (another click
 * waits for it); `shown`: what the card was last drawn from (a poll that changes nothing leaves it alone).
 * @type {{ date: string, plan: Plan | null, at: number, result: Result | null, busy: boolean, shown: string }}
 */
const planState = { date: '', plan: null, at: 0, result: null, busy: false, shown: '' };

/** How often the board reads the plans while its jobs do not change (a plan of the automatic pass, say). */
const PLANS_EVERY_MS = 60000;

/** Why the plan left a job uncovered, in words. @type {Record<string, string>} */
const NOT_COVERED = {
  no_driver_in_shift: 'no driver with a base is in shift then',
  no_vehicle_fits: 'no vehicle the planned drivers drive fits the party',
  equipment_missing: 'no vehicle the planned drivers drive carries the seats it needs',
  travel_time: 'no driver can get there in time',
};

/** Why a driver was left out of the plan, in words. @type {Record<string, string>} */
const NOT_PLANNED = {
  no_base: 'no base set',
  no_shift: 'no hours that day',
  no_vehicle: 'no vehicle free',
};

/** Why a proposal was not applied, in words (the plan's reasons, then an assignment's refusals). @type {Record<string, string>} */
const SKIPPED = {
  changed_since_plan: 'the job changed since the plan (assigned, cancelled or moved): plan again',
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

/** @param {string} reason @param {Record<string, string>} words */
const inWords = (reason, words) => words[reason] || reason.replace(/_/g, ' ');

/** Another day is shown, or the operator signed out: the plan is read afresh. */
export function resetPlan() {
  planState.date = '';
  planState.plan = null;
  planState.at = 0;
  planState.result = null;
  planState.shown = '';
  const body = maybe('plan-body');
  if (body) clear(body);
  const status = maybe('plan-result');
  if (status) say(status, '');
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
  if (planState.date !== date) {
    planState.result = null;
    const status = maybe('plan-result');
    if (status) say(status, '');
  }
  planState.date = date;
  planState.plan = plan;
  planState.at = Date.now();
  return was !== (plan ? plan.plan_id + ':' + plan.applied_at : '');
}

/**
 * Whether a proposal is already true (`done`: the job has that driver and vehicle), still to apply (`open`), or no
 * longer holds (`stale`: the job is gone, closed, under way or past its pickup, assigned elsewhere since, or the
 * vehicle left service).
 * @param {Proposal} a
 * @param {Job | undefined} job
 * @param {Day} day
 * @returns {'done' | 'open' | 'stale'}
 */
function standing(a, job, day) {
  if (!job) return 'stale';
  if (job.driver && job.driver.driver_id === a.driver_id && job.vehicle && job.vehicle.vehicle_id === a.vehicle_id) return 'done';
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') return 'stale';
  if (serviceNow() >= Date.parse(job.pickup_at)) return 'stale';
  if (a.change === 'new' && job.driver) return 'stale';
  if (!day.vehicles.some((v) => v.vehicle_id === a.vehicle_id)) return 'stale';
  return 'open';
}

/** The plan of the day shown, if it is read. @param {Day} day */
const planOf = (day) => (planState.plan && planState.date === day.date && planState.plan.date === day.date ? planState.plan : null);

/**
 * The newest plan's proposals that are not yet true: what the board draws as ghosts.
 * @param {Day} day
 * @returns {Ghost[]}
 */
export function ghosts(day) {
  const plan = planOf(day);
  if (!plan) return [];
  /** @type {Ghost[]} */
  const out = [];
  plan.assignments.forEach((a) => {
    if (a.change === 'kept') return;
    const job = day.jobs.find((j) => j.job_id === a.job_id);
    if (!job || standing(a, job, day) !== 'open') return;
    const driver = day.drivers.find((d) => d.driver_id === a.driver_id);
    const vehicle = day.vehicles.find((v) => v.vehicle_id === a.vehicle_id);
    out.push({ a, job, driver: driver ? driver.name : a.driver_id, plate: vehicle ? vehicle.plate : a.vehicle_id });
  });
  return out;
}

/** "Sunil Fernando with CAB-4821". @param {Ghost} g */
const crew = (g) => g.driver + ' with ' + g.plate;

/** The proposal in words, for its label. @param {Ghost} g */
function proposalText(g) {
  const j = g.job;
  return (
    'Proposed: job ' +
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
    crew(g) +
    (g.a.change === 'moved' ? ' (moved from ' + (j.driver ? j.driver.name : 'its driver') + ')' : '') +
    ', ' +
    g.a.deadhead_km_before.toFixed(1) +
    ' km empty to the pickup'
  );
}

/**
 * A proposal on its vehicle's row: dashed and see-through, not a job the vehicle holds. Its text opens the job; its
 * "Apply" (a dispatcher's) assigns it as proposed.
 * @param {Ghost} g
 * @param {{ style: string, cut: string }} box where it sits on the row (board.js), and the classes of an edge it is cut at
 * @param {Day} day
 * @param {Actions} actions
 */
export function ghostBlock(g, box, day, actions) {
  const label = proposalText(g);
  return h(
    'div',
    { class: 'tl-ghost' + box.cut, style: box.style, role: 'group', 'aria-label': label, title: label, 'data-ghost': g.job.job_id },
    h(
      'button',
      { type: 'button', class: 'ghost-open', 'aria-label': label + '. Open the job', onclick: () => actions.select(g.job.job_id) },
      hhmm(pickupOf(g.job)) + ' ' + shortPlace(g.job.pickup) + ' → ' + shortPlace(g.job.dropoff),
    ),
    h(
      'span',
      { class: 'ghost-foot' },
      can('dispatcher')
        ? h(
            'button',
            {
              type: 'button',
              class: 'ghost-apply',
              'data-apply': g.job.job_id,
              'aria-label': 'Apply the proposal: job ' + g.job.job_id + ' to ' + crew(g),
              onclick: handler(() => apply(day, actions, [g.job.job_id])),
            },
            'Apply',
          )
        : null,
      h('span', { class: 'who', 'aria-hidden': 'true' }, g.driver),
    ),
  );
}

/**
 * What the plan says of an unassigned job, for its card: who it proposes, or why it could not cover it ('' when it
 * says nothing).
 * @param {Day} day
 * @param {Ghost[]} shown
 * @param {string} jobId
 */
export function planNote(day, shown, jobId) {
  const g = shown.find((x) => x.job.job_id === jobId);
  if (g) return 'Proposed: ' + crew(g) + ' (dashed on the timeline)';
  const plan = planOf(day);
  const u = plan && plan.unassigned.find((x) => x.job_id === jobId);
  return u ? 'Not covered by the plan: ' + inWords(u.reason, NOT_COVERED) : '';
}

/**
 * The card the plan is shown in, beside the timeline (made once, by board.js): its body is redrawn with the board;
 * its status line stays, so what an action answered is read out once.
 */
export function planCard() {
  return h(
    'section',
    { id: 'plan-card', class: 'card plan-card', 'aria-labelledby': 'plan-title' },
    h('h2', { id: 'plan-title', tabindex: '-1' }, 'Day plan'),
    h('div', { id: 'plan-body' }),
    h('p', { id: 'plan-result', class: 'status', role: 'status', 'aria-live': 'polite', hidden: true }),
    h(
      'p',
      { class: 'legend plan-legend' },
      h('span', { class: 'ghost-key', 'aria-hidden': 'true' }),
      'dashed: a proposal, not yet assigned; ',
      h('span', { class: 'by-plan' }, 'plan'),
      ' a job assigned by a plan.',
    ),
  );
}

/** Who made a plan, in words. @param {Plan} p */
function madeBy(p) {
  if (p.created_by === 'auto') return 'the automatic pass';
  if (session.me && p.created_by === session.me.operator_id) return 'you';
  return 'operator ' + p.created_by;
}

/**
 * The plan's card: who made it and when, its totals, "Apply all" and "Plan the day" (a dispatcher's), the jobs it
 * could not cover and the drivers it left out, with why; and what the last action answered.
 * @param {Day} day
 * @param {Ghost[]} shown the proposals drawn (ghosts(day))
 * @param {Actions} actions
 */
export function renderPlan(day, shown, actions) {
  const card = $('plan-body');
  const plan = planOf(day);
  const open = new Set(day.jobs.filter((j) => j.status === 'confirmed').map((j) => j.job_id));
  const uncovered = plan ? plan.unassigned.filter((u) => open.has(u.job_id)) : [];
  const stale = plan
    ? plan.assignments.filter(
        (a) =>
          a.change !== 'kept' &&
          standing(
            a,
            day.jobs.find((j) => j.job_id === a.job_id),
            day,
          ) === 'stale',
      )
    : [];
  const key = JSON.stringify([
    day.date,
    plan && [plan.plan_id, plan.applied_at],
    shown.map((g) => g.job.job_id),
    uncovered.map((u) => u.job_id),
    stale.length,
    session.me && session.me.role,
  ]);
  // A poll that changes none of it leaves the card alone (and the focus in it).
  if (key === planState.shown && card.firstChild) return;
  planState.shown = key;
  const focused = document.activeElement && card.contains(document.activeElement) ? document.activeElement.id : '';

  const dispatcher = can('dispatcher');
  const planButton = dispatcher
    ? h(
        'button',
        { type: 'button', id: 'plan-day', class: plan && shown.length ? null : 'primary', onclick: handler(() => planDay(day, actions)) },
        plan ? 'Plan again' : 'Plan the day',
      )
    : null;
  /** @type {import('./dom.js').Child[]} */
  const body = [];
  if (!plan) {
    body.push(
      h(
        'p',
        { class: 'hint' },
        'No plan for this day yet. ',
        dispatcher
          ? 'Plan the day: a driver and a vehicle proposed for each open job, drawn dashed on the timeline. Nothing is assigned until you apply it.'
          : 'A dispatcher can plan it: the proposals will show here and dashed on the timeline.',
      ),
      h('div', { class: 'plan-actions' }, planButton),
    );
  } else {
    const t = plan.totals;
    body.push(
      h(
        'p',
        { class: 'meta', id: 'plan-made' },
        'Made ' + hhmm(plan.created_at) + ' by ' + madeBy(plan) + (plan.applied_at ? ' · last applied ' + hhmm(plan.applied_at) : ''),
      ),
      h(
        'p',
        { class: 'plan-totals', id: 'plan-totals' },
        h('strong', {}, 'Covers ' + t.covered + ' of ' + t.jobs + (t.jobs === 1 ? ' job' : ' jobs')),
        ' · ' + t.deadhead_km.toFixed(1) + ' km empty · ' + t.driver_hours.toFixed(1) + ' driver hours',
      ),
      h(
        'p',
        { class: 'plan-open', id: 'plan-open' },
        shown.length
          ? shown.length + (shown.length === 1 ? ' proposal' : ' proposals') + ' to apply, dashed on the timeline.'
          : 'Nothing left to apply: every proposal is on the board' + (stale.length ? ' or no longer holds.' : '.'),
        stale.length ? ' ' + stale.length + (stale.length === 1 ? ' proposal no longer holds' : ' proposals no longer hold') + ' (the job changed since).' : '',
      ),
      dispatcher
        ? h(
            'div',
            { class: 'plan-actions' },
            shown.length
              ? h(
                  'button',
                  {
                    type: 'button',
                    id: 'plan-apply-all',
                    class: 'primary',
                    onclick: handler(() => apply(day, actions)),
                  },
                  'Apply all ' + shown.length,
                )
              : null,
            planButton,
          )
        : null,
    );
    if (uncovered.length) {
      body.push(
        h('h3', { id: 'plan-uncovered-title' }, 'Not covered'),
        h(
          'ul',
          { class: 'plan-list', id: 'plan-uncovered', 'aria-labelledby': 'plan-uncovered-title' },
          uncovered.map((u) => {
            const j = day.jobs.find((x) => x.job_id === u.job_id);
            return h(
              'li',
              { 'data-job-reason': u.job_id },
              h('strong', {}, 'Job ' + u.job_id + (j ? ', ' + hhmm(pickupOf(j)) + ' ' + shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff) : '')),
              ': ' + inWords(u.reason, NOT_COVERED) + '.',
            );
          }),
        ),
      );
    }
    if (plan.drivers_not_planned.length) {
      const names = plan.drivers_not_planned.map((d) => {
        const driver = day.drivers.find((x) => x.driver_id === d.driver_id);
        return (driver ? driver.name : d.driver_id) + ' (' + inWords(d.reason, NOT_PLANNED) + ')';
      });
      body.push(h('p', { class: 'meta plan-left-out' }, 'Not planned: ' + names.join(', ') + '. ', h('a', { href: '#drivers' }, 'Drivers’ bases and hours')));
    }
  }
  clear(card);
  body.forEach((c) => append(card, c));
  // The button pressed may be gone (all applied): the focus stays in the card.
  if (focused) (maybe(focused) || $('plan-title')).focus({ preventScroll: true });
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
async function planDay(day, actions) {
  if (planState.busy) return;
  planState.busy = true;
  result({ text: 'Planning ' + day.date + '…', kind: '' });
  try {
    const r = await api('createDispatchPlan', 'POST', '/dispatch/plans', { date: day.date, mode: 'fill' });
    if (!r.ok) return result({ refused: r });
    planState.plan = r.json;
    planState.date = day.date;
    planState.at = Date.now();
    const n = r.json.assignments.filter((a) => a.change !== 'kept').length;
    result({
      text:
        'Planned: ' +
        (n ? n + (n === 1 ? ' proposal' : ' proposals') + ' to apply' : 'nothing new to propose') +
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
async function apply(day, actions, jobIds) {
  const plan = planOf(day);
  if (!plan || planState.busy) return;
  const shown = ghosts(day);
  const done = new Set(
    plan.assignments
      .filter(
        (a) =>
          standing(
            a,
            day.jobs.find((j) => j.job_id === a.job_id),
            day,
          ) === 'done',
      )
      .map((a) => a.job_id),
  );
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
