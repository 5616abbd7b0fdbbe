// @ts-check
/*
 * The plan's proposals on the dispatch board's timeline (board-timeline.js): each still to apply drawn as a ghost
 * block on the proposed vehicle's row, dashed and see-through, its text opening the job and its "Apply" (a
 * dispatcher's) assigning it as proposed (plan-api.js). A viewer sees the proposals, without the buttons.
 */
import { handler } from './api.js';
import { timedRoute } from './board-words.js';
import { h } from './dom.js';
import { hhmm, pickupOf, shortPlace } from './format.js';
import { apply } from './plan-api.js';
import { crew } from './plan-state.js';
import { can } from './state.js';

/** @typedef {import('./plan-state.js').Actions} Actions */
/** @typedef {import('./plan-state.js').Day} Day */
/** @typedef {import('./plan-state.js').Ghost} Ghost */

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
 * @param {{ style: string, cut: string }} box where it sits on the row (board-timeline.js), and the classes of an edge it is cut at
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
      timedRoute(g.job),
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
