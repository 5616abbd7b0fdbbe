// @ts-check
/*
 * One job as a card: the pickup time (large), where from and to, the passenger (a tel: link), the party and the
 * seats, the flight, the notes and meeting instructions, the car; and ONE big button for the next state, with a
 * smaller "Passenger did not come" (confirmed first, with an optional note) once the API offers it. "Ride completed"
 * is final and billed: it asks first, and the API offers it only once the ride is plausibly over. At the pickup,
 * the waiting clock. The next job's card is open; the others fold.
 */
import { h } from './dom.js';
import { serviceNow } from './state.js';
import { ACTIONS, addDays, dayName, flightText, fromNow, hhmm, isOver, party, pickupTime, placeLines, seats, sltDate, STATES, telHref } from './format.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').NextStatus} NextStatus */
/** @typedef {import('./queue.js').StatusTap} StatusTap */
/**
 * What the driver has open or was told, per job, kept across refreshes.
 * @typedef {{ open?: boolean, confirming?: boolean, completing?: boolean, note?: string, message?: string }} JobUi
 */
/**
 * @typedef {{ next: boolean, today: string, ui: JobUi, pending: StatusTap | undefined, link: 'sending' | 'network' | 'service' | null,
 *   tap: (status: NextStatus, note?: string) => void, retry: () => void, setUi: (patch: Partial<JobUi>, rerender: boolean) => void }} CardCtx
 */

/** @param {Job} job @param {CardCtx} ctx */
export function renderCard(job, ctx) {
  const id = 'job-' + job.job_id;
  const time = hhmm(pickupTime(job));
  const date = sltDate(pickupTime(job));
  const day = date === ctx.today ? '' : date === addDays(ctx.today, 1) ? 'Tomorrow' : dayName(date);
  const chip = h('span', { class: 'chip ' + job.status }, STATES[job.status]);
  const body = h('div', { class: 'job-body' }, when(job, day), details(job), actions(job, ctx));
  if (ctx.next) {
    return h(
      'article',
      { class: 'job next', id, 'data-job': job.job_id, 'aria-labelledby': id + '-time' },
      h('div', { class: 'job-head' }, h('p', { class: 'time', id: id + '-time' }, h('span', { class: 'sr-only' }, 'Pickup at '), time), chip),
      body,
    );
  }
  const el = h(
    'details',
    { class: 'job' + (isOver(job) ? ' over' : ''), id, 'data-job': job.job_id, open: !!ctx.ui.open },
    h('summary', {}, h('span', { class: 'time' }, time), h('span', { class: 'route' }, short(job.pickup) + ' → ' + short(job.dropoff)), chip),
    body,
  );
  el.addEventListener('toggle', () => ctx.setUi({ open: el.open }, false));
  return el;
}

/** @param {Job['pickup']} p */
function short(p) {
  return p.iata || p.resolved_name || p.name;
}

/** @param {string} label @param {import('./dom.js').Child} value @param {string} [cls] */
function row(label, value, cls) {
  return h('div', { class: 'row' + (cls ? ' ' + cls : '') }, h('dt', {}, label), h('dd', {}, value));
}

/** @param {Job['pickup']} p */
function placeValue(p) {
  const { main, second } = placeLines(p);
  return [h('span', { class: 'place' }, main), second && h('span', { class: 'meta' }, second)];
}

/** When the pickup is: the day (when not today), whether the flight moved it, how soon. @param {Job} job @param {string} day */
function when(job, day) {
  const booked = hhmm(job.pickup_at);
  const moved = job.pickup_estimated_at && hhmm(job.pickup_estimated_at) !== booked;
  const soon = !isOver(job) && job.status !== 'arrived' && job.status !== 'on_board' && Math.abs(Date.parse(pickupTime(job)) - serviceNow()) < 12 * 3600000;
  const parts = [day && h('strong', {}, day), moved ? 'Estimated from the flight, booked for ' + booked : !day && 'Booked pickup time'];
  return h(
    'p',
    { class: 'when' },
    parts.filter(Boolean).map((p, i) => [i ? ' · ' : '', p]),
    soon && h('span', { class: 'meta', 'data-from-now': pickupTime(job) }, ' · ' + fromNow(pickupTime(job))),
  );
}

/** @param {Job} job */
function details(job) {
  const need = seats(job);
  const v = job.vehicle;
  return h(
    'dl',
    { class: 'facts' },
    row('From', placeValue(job.pickup)),
    row('To', placeValue(job.dropoff)),
    row('Passenger', [
      h('span', { class: 'name' }, job.passenger.name),
      job.passenger.phone
        ? h('a', { class: 'call', href: telHref(job.passenger.phone) }, h('span', { 'aria-hidden': 'true' }, '☎'), 'Call ' + job.passenger.phone)
        : h('span', { class: 'meta' }, 'No phone number given'),
    ]),
    row('Party', [party(job), need && h('strong', { class: 'seats' }, 'Needs ' + need)]),
    job.flight && row('Flight', flightText(job.flight), job.flight.status === 'diverted' || job.flight.status === 'cancelled' ? 'alert' : ''),
    job.meeting_instructions && row('Meeting', job.meeting_instructions),
    job.notes && row('Notes', job.notes, 'notes'),
    row('Car', v ? [h('span', { class: 'plate' }, v.plate), ' ' + [v.colour, v.brand, v.model].join(' ')] : 'Not set — ask dispatch'),
  );
}

/** The waiting clock, once at the pickup. @param {Job} job */
function waitingClock(job) {
  const w = job.waiting;
  if (job.status !== 'arrived' || !w.no_show_from) return null;
  return h(
    'div',
    { class: 'waiting', role: 'timer' },
    h('p', { class: 'free' }, 'Free waiting until ' + hhmm(w.no_show_from)),
    h(
      'p',
      { class: 'meta' },
      (w.arrived_at ? 'Arrived ' + hhmm(w.arrived_at) + ' · ' : '') + w.free_minutes + ' min free · ',
      h('span', { 'data-until': w.no_show_from }, untilText(w.no_show_from)),
    ),
  );
}

/** "25 min left" / "free waiting is over". @param {string} iso */
export function untilText(iso) {
  const left = fromNow(iso);
  return left.startsWith('in ') ? left.slice(3) + ' left' : 'free waiting is over';
}

/** @param {Job} job @param {CardCtx} ctx */
function actions(job, ctx) {
  const main = job.next.find((s) => s !== 'no_show');
  const canNoShow = job.next.includes('no_show');
  const pending = ctx.pending;
  const box = h('div', { class: 'actions' }, waitingClock(job));
  if (pending) {
    const sub = ctx.link === 'sending' ? 'Sending…' : ctx.link === 'service' ? 'The service is busy — will send' : 'Waiting for network — will send';
    box.append(
      h(
        'button',
        { type: 'button', class: 'big pending', 'data-action': pending.status, 'aria-describedby': 'msg-' + job.job_id, onclick: () => ctx.retry() },
        h('span', { class: 'label' }, ACTIONS[pending.status]),
        h('span', { class: 'sub' }, sub),
      ),
    );
  } else if (main === 'completed' && ctx.ui.completing) {
    box.append(completeConfirm(job, ctx));
  } else if (main) {
    const onclick = main === 'completed' ? () => ctx.setUi({ completing: true, message: '' }, true) : () => ctx.tap(main);
    box.append(
      h(
        'button',
        { type: 'button', class: 'big', 'data-action': main, 'aria-describedby': 'msg-' + job.job_id, onclick },
        h('span', { class: 'label' }, ACTIONS[main]),
      ),
    );
  } else if (job.status === 'on_board') {
    box.append(h('p', { class: 'done' }, 'On the way to the drop-off. "Ride completed" comes when you can be there.'));
  } else if (isOver(job)) {
    box.append(h('p', { class: 'done' }, job.status === 'completed' ? 'Ride completed. Thank you!' : 'Reported: the passenger did not come.'));
  } else if (job.status === 'driver_assigned') {
    const from = Date.parse(pickupTime(job)) - 3 * 3600000;
    box.append(h('p', { class: 'done' }, 'You can start driving to this pickup from ' + hhmm(from) + ' (3 hours before).'));
  }
  box.append(h('p', { id: 'msg-' + job.job_id, class: 'message', role: 'alert', hidden: !ctx.ui.message }, ctx.ui.message || ''));
  if (canNoShow && !pending) box.append(ctx.ui.confirming ? noShowConfirm(job, ctx) : noShowButton(ctx));
  return box;
}

/** "Ride completed" asks first: it is final, and the customer is billed. @param {Job} job @param {CardCtx} ctx */
function completeConfirm(job, ctx) {
  const to = placeLines(job.dropoff).main;
  return h(
    'div',
    { class: 'confirm', role: 'group', 'aria-labelledby': 'complete-' + job.job_id },
    h('p', { id: 'complete-' + job.job_id, class: 'question' }, 'Passengers dropped off at ' + to + '?'),
    h('p', { class: 'meta' }, 'Completing is final: the customer is told and the ride is billed.'),
    h(
      'div',
      { class: 'confirm-buttons' },
      h('button', { type: 'button', class: 'big', 'data-action': 'confirm-completed', onclick: () => ctx.tap('completed') }, 'Yes, ride completed'),
      h('button', { type: 'button', class: 'plain', onclick: () => ctx.setUi({ completing: false }, true) }, 'Back'),
    ),
  );
}

/** @param {CardCtx} ctx */
function noShowButton(ctx) {
  return h(
    'button',
    { type: 'button', class: 'secondary', 'data-action': 'no_show', onclick: () => ctx.setUi({ confirming: true, message: '' }, true) },
    ACTIONS.no_show,
  );
}

/** @param {Job} job @param {CardCtx} ctx */
function noShowConfirm(job, ctx) {
  const noteId = 'note-' + job.job_id;
  const note = h('textarea', {
    id: noteId,
    maxlength: 500,
    rows: 2,
    oninput: (e) => ctx.setUi({ note: /** @type {HTMLTextAreaElement} */ (e.target).value }, false),
  });
  note.value = ctx.ui.note || '';
  return h(
    'div',
    { class: 'confirm', role: 'group', 'aria-labelledby': 'confirm-' + job.job_id },
    h('p', { id: 'confirm-' + job.job_id, class: 'question' }, 'Report that the passenger did not come?'),
    h('p', { class: 'meta' }, 'Only when you have waited and could not find or call the passenger. Dispatch and the customer are told.'),
    h('label', { for: noteId }, 'What happened (optional)'),
    note,
    h(
      'div',
      { class: 'confirm-buttons' },
      h(
        'button',
        { type: 'button', class: 'danger', 'data-action': 'confirm-no-show', onclick: () => ctx.tap('no_show', note.value.trim() || undefined) },
        'Yes, report it',
      ),
      h('button', { type: 'button', class: 'plain', onclick: () => ctx.setUi({ confirming: false }, true) }, 'Back'),
    ),
  );
}
