// @ts-check
/*
 * The selected job on the dispatch board: what it is, where its vehicle was last seen, and what can be done with it
 * (assign or reassign until pickup; complete it, or report a no-show, from then on), each as the role allows.
 */
import { api, failed, handler } from './api.js';
import { $, h, maybe, resultArea, say } from './dom.js';
import { alertText, FLEET_NAMES, FLEET_ORDER, hhmm, party, pickupOf, place, releasedText, rideText, seats, statusText, whereabouts, whoFor } from './format.js';
import { can, serviceNow, session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {{ jobs: Job[], drivers: import('./api.js').Driver[], vehicles: import('./api.js').Vehicle[] }} Day */
/** @typedef {{ close: () => void, reload: () => Promise<unknown> }} Actions */
/** @typedef {'assignJob' | 'completeJob' | 'reportNoShow'} JobAction */

/**
 * `shown`: the job and state the forms were built for; `result`: what the last action answered, shown next to the
 * form it came from.
 * @type {{ shown: string | null, result: { id: string, text: string, kind: 'ok' } | null }}
 */
const panelState = { shown: null, result: null };

/** Another job is selected: its forms are built afresh. */
export function resetPanel() {
  panelState.shown = null;
  panelState.result = null;
}

/** Whether two jobs hold their driver or vehicle at once (from the pickup to the drop-off). @param {Job} a @param {Job} b */
function overlaps(a, b) {
  return Date.parse(pickupOf(a)) < Date.parse(b.dropoff_at) && Date.parse(pickupOf(b)) < Date.parse(a.dropoff_at);
}

/**
 * Shows the job (or hides the panel when none is selected).
 * @param {Job | undefined} j
 * @param {Day} day
 * @param {Actions} actions
 */
export function renderJobPanel(j, day, actions) {
  const panel = $('job-panel');
  if (!j) {
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  panel.hidden = false;
  const moved = j.pickup_estimated_at ? hhmm(j.pickup_estimated_at) + ' (booked ' + hhmm(j.pickup_at) + ', moved by the flight)' : hhmm(j.pickup_at);
  /** @type {[string, string, boolean?][]} [name, value, spans both columns] */
  const facts = [
    ...(j.alerts.length ? /** @type {[string, string, boolean][]} */ ([['Needs attention', alertText(j), true]]) : []),
    ['Pickup', moved + ' · ' + place(j.pickup) + (j.flight_number ? ' · flight ' + j.flight_number : ''), true],
    ...(j.flight
      ? /** @type {[string, string, boolean][]} */ ([
          [
            'Flight',
            j.flight.number +
              ' · ' +
              j.flight.status +
              (j.flight.estimated_arrival ? ', lands ' + hhmm(j.flight.estimated_arrival) : '') +
              ' · checked ' +
              hhmm(j.flight.checked_at),
            true,
          ],
        ])
      : []),
    ['Drop-off', place(j.dropoff), true],
    ['Holds a vehicle', hhmm(pickupOf(j)) + '–' + hhmm(j.dropoff_at) + ' (drop-off)'],
    ['Party', party(j) + ' · ' + FLEET_NAMES[j.fleet_code]],
    ...(j.extras.length ? /** @type {[string, string][]} */ ([['Seats to fit', seats(j)]]) : []),
    ...(j.notes ? /** @type {[string, string, boolean][]} */ ([['Notes for the driver', j.notes, true]]) : []),
    ...(j.released ? /** @type {[string, string, boolean][]} */ ([['Released', releasedText(j), true]]) : []),
    ['Passenger', j.passenger.name + (j.passenger.phone ? ', ' + j.passenger.phone : '')],
    ['For', whoFor(j)],
    ['Driver', j.driver ? j.driver.name + ', ' + j.driver.phone : 'none yet'],
    ['Vehicle', j.vehicle ? j.vehicle.plate + ' · ' + j.vehicle.brand + ' ' + j.vehicle.model + ' (' + j.vehicle.colour + ')' : 'none yet'],
    ...(j.ride.en_route_at ? /** @type {[string, string, boolean][]} */ ([['Ride', rideText(j), true]]) : []),
    ['Last known location', whereabouts(j), true],
  ];
  const info = h(
    'div',
    { id: 'job-info' },
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'job-title', tabindex: '-1' }, 'Job ' + j.job_id),
      h('span', { class: 'chip ' + j.status }, statusText(j)),
      h('button', { type: 'button', class: 'quiet close', 'aria-label': 'Close the job', onclick: actions.close }, 'Close'),
    ),
    h(
      'dl',
      { class: 'facts' },
      facts.map((f) => h('div', { class: f[2] ? 'wide' : null }, h('dt', {}, f[0]), h('dd', { 'data-fact': f[0] }, f[1]))),
    ),
  );
  // The forms are rebuilt only when the job or its state changes, so a poll never wipes what is being typed.
  const key = j.job_id + ':' + j.status;
  const old = maybe('job-info');
  if (old && panelState.shown === key) {
    panel.replaceChild(info, old);
    return;
  }
  panelState.shown = key;
  panel.replaceChildren(info);
  if (!can('dispatcher')) {
    panel.appendChild(h('p', { class: 'hint' }, 'Assigning and finishing jobs needs the dispatcher role; you are a ' + session.me?.role + '.'));
  } else if (!['completed', 'no_show', 'cancelled'].includes(j.status)) {
    // (Re)assignment ends at the pickup time, as the API has it; completion and no-shows start there.
    if (serviceNow() < Date.parse(j.pickup_at)) panel.appendChild(assignForm(j, day, actions));
    else panel.appendChild(h('p', { class: 'hint' }, 'The pickup time has passed: the job can no longer be (re)assigned.'));
    panel.appendChild(closeForms(j, actions));
  } else {
    panel.appendChild(h('p', { class: 'hint' }, 'This job is ' + statusText(j) + ': nothing more can be done with it.'));
    panel.appendChild(resultArea('finish-result'));
  }
  const result = panelState.result;
  if (result) say(maybe(result.id) || h('p'), result.text, result.kind);
}

/** @param {Job} j @param {Day} day @param {Actions} actions */
function assignForm(j, day, actions) {
  /** What else the driver or vehicle does at the job's time. @param {'driver' | 'vehicle'} resource @param {string} id */
  const busy = (resource, id) => {
    const other = day.jobs.find(
      (x) =>
        x.job_id !== j.job_id &&
        x.status === 'driver_assigned' &&
        (resource === 'driver' ? x.driver && x.driver.driver_id === id : x.vehicle && x.vehicle.vehicle_id === id) &&
        overlaps(x, j),
    );
    return other ? ' (busy ' + hhmm(pickupOf(other)) + '–' + hhmm(other.dropoff_at) + ', job ' + other.job_id + ')' : '';
  };
  const drivers = h(
    'select',
    { id: 'assign-driver', name: 'driver_id', required: true },
    h('option', { value: '' }, 'Choose a driver'),
    day.drivers.map((d) => h('option', { value: d.driver_id, selected: j.driver && j.driver.driver_id === d.driver_id }, d.name + busy('driver', d.driver_id))),
  );
  /** @type {Record<string, import('./api.js').Vehicle[]>} */
  const groups = {};
  day.vehicles.forEach((v) => {
    (groups[v.fleet_code] = groups[v.fleet_code] || []).push(v);
  });
  const codes = [j.fleet_code, ...FLEET_ORDER.filter((c) => c !== j.fleet_code)];
  /** " · lacks 1 child seat" when the vehicle does not carry the seats the job needs. @param {import('./api.js').Vehicle} v */
  const lacking = (v) => {
    const missing = j.extras.filter((e) => v.equipment[e.code] < e.quantity).map((e) => e.quantity - v.equipment[e.code] + ' ' + e.code.replace('_', ' '));
    return missing.length ? ' · lacks ' + missing.join(', ') : '';
  };
  const vehicles = h(
    'select',
    { id: 'assign-vehicle', name: 'vehicle_id', required: true },
    h('option', { value: '' }, 'Choose a vehicle'),
    codes
      .filter((c) => groups[c])
      .map((c) =>
        h(
          'optgroup',
          { label: FLEET_NAMES[c] + (c === j.fleet_code ? ' (the job’s class)' : '') },
          groups[c].map((v) =>
            h(
              'option',
              { value: v.vehicle_id, selected: j.vehicle && j.vehicle.vehicle_id === v.vehicle_id },
              v.plate + ' · ' + v.brand + ' ' + v.model + lacking(v) + busy('vehicle', v.vehicle_id),
            ),
          ),
        ),
      ),
  );
  return h(
    'form',
    {
      class: 'fields job-form',
      id: 'assign-form',
      onsubmit: handler(async (e) => {
        e.preventDefault();
        await act(
          j,
          'assignJob',
          'assign',
          'assign-result',
          { driver_id: drivers.value, vehicle_id: vehicles.value },
          actions,
          (job) => 'Assigned: ' + job.driver?.name + ' with ' + job.vehicle?.plate + ' to job ' + job.job_id + '.',
        );
      }),
    },
    h('h3', {}, j.driver ? 'Reassign (until pickup)' : 'Assign a driver and a vehicle'),
    h('div', {}, h('label', { for: 'assign-driver' }, 'Driver'), drivers),
    h('div', {}, h('label', { for: 'assign-vehicle' }, 'Vehicle'), vehicles),
    h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary' }, j.driver ? 'Reassign' : 'Assign')),
    h(
      'p',
      { class: 'meta grow-all' },
      'The API also checks the drive from the job before and to the job after, and the driver’s hours (',
      h('a', { href: '#drivers' }, 'drivers’ bases and hours'),
      ').',
    ),
    resultArea('assign-result'),
  );
}

/** @param {Job} j @param {Actions} actions */
function closeForms(j, actions) {
  const note = h('textarea', {
    id: 'no-show-note',
    name: 'note',
    rows: '2',
    maxlength: '1000',
    required: true,
    'aria-describedby': 'no-show-hint',
    placeholder: 'Waited at arrivals with a name board until 70 minutes after landing.',
  });
  return h(
    'div',
    { class: 'job-close' },
    h('h3', {}, 'Finish the job'),
    h(
      'p',
      { class: 'hint', id: 'no-show-hint' },
      'From the pickup time (' + hhmm(j.pickup_at) + '); a no-show within 24 hours of it. The note goes with the no-show report as evidence.',
    ),
    h(
      'button',
      {
        type: 'button',
        id: 'complete-job',
        onclick: handler(() => act(j, 'completeJob', 'complete', 'finish-result', undefined, actions, (job) => 'Job ' + job.job_id + ' is completed.')),
      },
      'Mark completed',
    ),
    h(
      'form',
      {
        class: 'fields',
        id: 'no-show-form',
        onsubmit: handler(async (e) => {
          e.preventDefault();
          await act(j, 'reportNoShow', 'no-show', 'finish-result', { note: note.value }, actions, (job) => 'Job ' + job.job_id + ' is recorded as a no-show.');
        }),
      },
      h('div', { class: 'grow' }, h('label', { for: 'no-show-note' }, 'No-show note'), note),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Report no-show')),
    ),
    resultArea('finish-result'),
  );
}

/**
 * One job action through the API; its answer, or its refusal in words, is shown under the form it came from
 * (`resultId`), and stays there when the panel is redrawn (a success changes the job, so it always is).
 * @template {JobAction} O
 * @param {Job} j
 * @param {O} op
 * @param {string} action the path's last segment
 * @param {string} resultId
 * @param {import('./api.js').RequestBody<O>} body
 * @param {Actions} actions
 * @param {(job: import('./api.js').OkBody<O>) => string} success
 */
async function act(j, op, action, resultId, body, actions, success) {
  panelState.result = null;
  say($(resultId), 'Sending…');
  const r = await api(op, 'POST', '/jobs/' + encodeURIComponent(j.job_id) + '/' + action, body);
  if (!r.ok) {
    // The refusal in the API's words (a double booking, the drive between jobs, the driver's hours…), in view.
    failed($(resultId), r);
    return $(resultId).scrollIntoView({ block: 'nearest' });
  }
  panelState.result = { id: resultId, text: success(r.json), kind: 'ok' };
  await actions.reload();
}
