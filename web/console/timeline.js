// @ts-check
/*
 * "Timeline": a booking's story (GET /bookings/{booking_ref}/timeline) as a vertical list, oldest first: the
 * partner's requests (method path → status; each opens its exchange), the booking's events (type #sequence) and
 * each attempt to deliver them (attempt n → status or error).
 */
import { $, call } from './key.js';
import { h, keyReady, message, note, problem, remember, showExchange, statusBadge, timeOf } from './workbench.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./workbench.js').Panel} Panel */

/** @returns {Panel} */
export function timelinePanel() {
  const input = $('timeline-ref', HTMLInputElement);
  const list = $('timeline-list');
  const line = $('timeline-note');
  const exchange = $('timeline-exchange');
  /** The booking shown (or being read), and whether it has been read with the key in use. */
  const state = { ref: '', loaded: false, reads: 0 };

  /** @param {Schemas['TimelineEntry']} e */
  function entry(e) {
    const head = h('div', { class: 'wb-tl-head' }, timeOf(e.at), h('span', { class: 'wb-kind' }, e.kind));
    if (e.kind === 'request') {
      const open = h('button', { type: 'button', class: 'wb-open wb-path', title: 'Open this exchange' }, e.method + ' ' + e.path);
      open.addEventListener('click', () => {
        list.querySelectorAll('li[aria-current]').forEach((li) => li.removeAttribute('aria-current'));
        li.setAttribute('aria-current', 'true');
        void showExchange(exchange, e.request_id || '', state.ref);
      });
      const li = h(
        'li',
        { class: 'wb-tl wb-tl-request' },
        head,
        h('div', { class: 'wb-tl-main' }, open, ' → ', statusBadge(e.status), e.error_code ? [' ', h('code', {}, e.error_code)] : null),
      );
      return li;
    }
    if (e.kind === 'event')
      return h(
        'li',
        { class: 'wb-tl wb-tl-event' },
        head,
        h('div', { class: 'wb-tl-main' }, h('strong', {}, e.type + ' #' + e.sequence), ' ', h('small', { class: 'wb-id' }, e.event_id)),
      );
    if (e.kind === 'delivery')
      return h(
        'li',
        { class: 'wb-tl wb-tl-delivery' },
        head,
        h(
          'div',
          { class: 'wb-tl-main' },
          e.type + ' #' + e.sequence + ' to ',
          h('code', {}, e.endpoint_id),
          ': attempt ' + e.attempt + ' → ',
          e.status !== null && e.status !== undefined ? statusBadge(e.status) : null,
          e.error ? h('span', { class: 'wb-error' }, (e.status === null || e.status === undefined ? '' : ' ') + e.error) : null,
          (e.status === null || e.status === undefined) && !e.error ? 'no answer' : null,
        ),
      );
    return null; // a kind added later: skipped, as the contract asks
  }

  /** @param {string} raw */
  async function load(raw) {
    const ref = raw.trim().toUpperCase();
    if (!ref) {
      note(line, 'Enter a booking reference (e.g. GM32DFCW).', 'error');
      return;
    }
    input.value = ref;
    state.ref = ref;
    remember('timeline', ref);
    if (!keyReady(line)) return;
    note(line, 'Reading the timeline of ' + ref + '…');
    const read = ++state.reads;
    try {
      const r = await call('GET', '/bookings/' + encodeURIComponent(ref) + '/timeline');
      if (read !== state.reads) return; // another booking asked for since
      if (r.status !== 200) {
        list.replaceChildren();
        note(line, r.status === 404 ? 'No booking ' + ref + ' in sandbox for this key.' : 'The timeline answered ' + r.status + ': ' + problem(r), 'error');
        return;
      }
      const t = /** @type {Schemas['Timeline']} */ (r.json);
      list.replaceChildren(...t.data.map(entry).filter((li) => li !== null));
      state.loaded = true;
      const count = (/** @type {Schemas['TimelineEntry']['kind']} */ kind) => t.data.filter((e) => e.kind === kind).length;
      note(
        line,
        'Booking ' +
          t.booking_ref +
          ', oldest first: ' +
          count('request') +
          ' requests, ' +
          count('event') +
          ' events, ' +
          count('delivery') +
          ' delivery attempts.',
        'ok',
      );
    } catch (err) {
      note(line, message(err), 'error');
    }
  }

  $('timeline-form', HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    exchange.hidden = true;
    void load(input.value);
  });

  return {
    show: (arg) => {
      if (arg && (arg.toUpperCase() !== state.ref || !state.loaded)) {
        exchange.hidden = true;
        void load(arg);
      } else if (state.ref) {
        remember('timeline', state.ref);
        if (!state.loaded) void load(state.ref);
      }
    },
    reset: () => {
      state.loaded = false;
      state.reads += 1;
      list.replaceChildren();
      exchange.hidden = true;
      exchange.replaceChildren();
      note(line, '');
    },
  };
}
