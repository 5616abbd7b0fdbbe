// @ts-check
/*
 * The day's plan card on the dispatch board (board.js), beside the timeline: who made the plan and when, its totals,
 * "Apply all" and "Plan the day" (a dispatcher's, through plan-api.js), the jobs it could not cover and the drivers
 * it left out, with why, in words; and, on an unassigned job's card, what the plan says of it.
 */
import { handler } from './api.js';
import { count, timedRoute } from './board-words.js';
import { $, append, clear, h, maybe } from './dom.js';
import { hhmm } from './format.js';
import { apply, planDay } from './plan-api.js';
import { crew, inWords, jobOf, planOf, planState, standing } from './plan-state.js';
import { can, session } from './state.js';

/** @typedef {import('./plan-state.js').Actions} Actions */
/** @typedef {import('./plan-state.js').Day} Day */
/** @typedef {import('./plan-state.js').Ghost} Ghost */
/** @typedef {import('./plan-state.js').Plan} Plan */

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
  const stale = plan ? plan.assignments.filter((a) => a.change !== 'kept' && standing(a, day) === 'stale') : [];
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
        h('strong', {}, 'Covers ' + t.covered + ' of ' + count(t.jobs, 'job')),
        ' · ' + t.deadhead_km.toFixed(1) + ' km empty · ' + t.driver_hours.toFixed(1) + ' driver hours',
      ),
      h(
        'p',
        { class: 'plan-open', id: 'plan-open' },
        shown.length
          ? count(shown.length, 'proposal') + ' to apply, dashed on the timeline.'
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
            const j = jobOf(day, u.job_id);
            return h(
              'li',
              { 'data-job-reason': u.job_id },
              h('strong', {}, 'Job ' + u.job_id + (j ? ', ' + timedRoute(j) : '')),
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
