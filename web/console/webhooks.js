// @ts-check
/*
 * "Webhooks": the sandbox endpoints (GET and POST /webhook_endpoints; a new endpoint's secret shown this once) and
 * the deliveries (GET /webhook_deliveries, filtered by endpoint, booking and status, paged with `next`), each with
 * a Redeliver button (POST /events/{event_id}/redeliver to its endpoint).
 */
import { $, call } from './key.js';
import { cell, h, keyReady, message, note, problem, readPage, statusBadge, timelineLink, timeOf } from './workbench.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./workbench.js').Panel} Panel */

/** Every booking event an endpoint can subscribe to: an endpoint with all of them says so in two words. */
const BOOKING_EVENTS = 10;

/** The endpoint's events, without their common "booking." prefix. @param {Schemas['WebhookEndpoint']} e */
const eventsOf = (e) => (e.events.length >= BOOKING_EVENTS ? 'all booking events' : e.events.map((t) => t.replace(/^booking\./, '')).join(', '));

/**
 * An event type, its namespace ("booking.") apart: a phone may break the line after it (console-workbench-detail.css).
 * @param {string} type
 */
const eventType = (type) => {
  const dot = type.lastIndexOf('.') + 1;
  return dot ? [h('span', { class: 'wb-ns' }, type.slice(0, dot)), type.slice(dot)] : type;
};

/** A delivery's state: delivered (green), pending (amber), failed (red). @param {Schemas['Delivery']['status']} status */
const deliveryBadge = (status) => h('span', { class: 'wb-state wb-state-' + status }, status);

/** @returns {Panel} */
export function webhooksPanel() {
  const endpointRows = $('endpoints-body');
  const endpointsLine = $('endpoints-note');
  const url = $('endpoint-url', HTMLInputElement);
  const secretBox = $('endpoint-secret');
  const deliveryRows = $('deliveries-body');
  const deliveriesLine = $('deliveries-note');
  const result = $('redeliver-result');
  const older = $('deliveries-older', HTMLButtonElement);
  const endpointChoice = $('deliveries-endpoint', HTMLSelectElement);
  const booking = $('deliveries-booking', HTMLInputElement);
  const statusChoice = $('deliveries-status', HTMLSelectElement);
  const state = { loaded: false, query: '', next: /** @type {string | null} */ (null), count: 0, reads: 0 };

  /** @param {Schemas['WebhookEndpoint']} e */
  const endpointRow = (e) =>
    h(
      'tr',
      {},
      cell('Endpoint', h('code', { class: 'wb-nowrap' }, e.id)),
      cell('URL', h('span', { class: 'wb-url' }, e.url)),
      cell('Events', eventsOf(e)),
      cell('Status', h('span', { class: 'wb-state wb-state-' + e.status }, e.status), e.disabled_reason ? ' ' + e.disabled_reason : null),
      cell('Created', timeOf(e.created_at)),
    );

  async function loadEndpoints() {
    note(endpointsLine, 'Reading your endpoints…');
    const r = await call('GET', '/webhook_endpoints');
    if (r.status !== 200) {
      note(endpointsLine, 'Listing endpoints answered ' + r.status + ': ' + problem(r), 'error');
      return;
    }
    const list = /** @type {Schemas['WebhookEndpointList']} */ (r.json).data;
    endpointRows.replaceChildren(...list.map(endpointRow));
    note(
      endpointsLine,
      list.length
        ? list.length + (list.length === 1 ? ' sandbox endpoint.' : ' sandbox endpoints (at most 10).')
        : 'No sandbox endpoint yet: create one below.',
    );
    const chosen = endpointChoice.value;
    endpointChoice.replaceChildren(h('option', { value: '' }, 'All endpoints'), ...list.map((e) => h('option', { value: e.id }, e.id + ' · ' + e.url)));
    endpointChoice.value = list.some((e) => e.id === chosen) ? chosen : '';
  }

  /** @param {Schemas['Delivery']} d */
  function deliveryRow(d) {
    const again = h('button', { type: 'button', class: 'wb-redeliver', title: 'Deliver ' + d.event_id + ' again to ' + d.endpoint_id }, 'Redeliver');
    again.addEventListener('click', () => void redeliver(d, again));
    return h(
      'tr',
      { 'data-delivery-id': d.delivery_id },
      cell('Created', timeOf(d.created_at)),
      cell(
        'Event',
        h('span', { class: 'wb-nowrap' }, eventType(d.type), d.sequence === null ? '' : ' #' + d.sequence),
        h('small', { class: 'wb-id' }, d.event_id),
      ),
      cell('Booking', d.booking_ref ? timelineLink(d.booking_ref) : '—'),
      cell('Endpoint', h('code', { class: 'wb-nowrap' }, d.endpoint_id)),
      cell('Status', deliveryBadge(d.status), d.delivered_at ? h('small', { class: 'wb-sub' }, timeOf(d.delivered_at)) : null),
      cell('Attempts', String(d.attempts)),
      cell(
        'Last answer',
        d.last_status !== null ? statusBadge(d.last_status) : null,
        d.last_error ? h('span', { class: 'wb-error' }, d.last_error) : null,
        d.last_status === null && !d.last_error ? '—' : null,
      ),
      cell('Next attempt', d.next_attempt_at ? timeOf(d.next_attempt_at) : '—'),
      cell('', again),
    );
  }

  function filters() {
    const ref = booking.value.trim();
    return (
      (endpointChoice.value ? '&endpoint_id=' + encodeURIComponent(endpointChoice.value) : '') +
      (ref ? '&booking_ref=' + encodeURIComponent(ref) : '') +
      (statusChoice.value ? '&status=' + encodeURIComponent(statusChoice.value) : '')
    );
  }

  /** @param {boolean} more */
  async function loadDeliveries(more) {
    const query = more ? state.query : filters();
    older.disabled = true;
    note(deliveriesLine, more ? 'Reading older deliveries…' : 'Reading deliveries…');
    try {
      const list = await readPage('/webhook_deliveries', query, more, {
        state,
        rows: deliveryRows,
        older,
        line: deliveriesLine,
        what: 'Listing deliveries',
        render: deliveryRow,
      });
      if (!list) return;
      note(
        deliveriesLine,
        state.count
          ? state.count + (state.count === 1 ? ' delivery' : ' deliveries') + ', newest first' + (list.next ? '; Older reads more.' : '.')
          : query
            ? 'No delivery matches these filters.'
            : 'No deliveries yet: events of your sandbox bookings are delivered to your endpoints.',
      );
    } finally {
      older.disabled = false;
    }
  }

  /** Endpoints, then deliveries (whose filter lists the endpoints). */
  async function load() {
    if (!keyReady(endpointsLine)) return;
    try {
      await loadEndpoints();
      await loadDeliveries(false);
    } catch (err) {
      note(deliveriesLine, message(err), 'error');
    }
  }

  /** @param {Schemas['Delivery']} d @param {HTMLButtonElement} button */
  async function redeliver(d, button) {
    if (!keyReady(result)) return;
    button.disabled = true;
    note(result, 'Redelivering ' + d.type + ' (' + d.event_id + ') to ' + d.endpoint_id + '…');
    try {
      const r = await call('POST', '/events/' + encodeURIComponent(d.event_id) + '/redeliver', { endpoint_id: d.endpoint_id });
      if (r.status !== 202) {
        note(result, 'Redelivery refused (' + r.status + '): ' + problem(r), 'error');
        return;
      }
      const queued = /** @type {Schemas['Redelivery']} */ (r.json).deliveries;
      note(
        result,
        queued.length
          ? 'Redelivery queued: ' +
              queued.map((q) => 'delivery ' + q.delivery_id + ' to ' + q.endpoint_id).join(', ') +
              ' (' +
              d.event_id +
              ', the same webhook-id).'
          : 'Nothing queued: no enabled endpoint is subscribed to ' + d.type + '.',
        'ok',
      );
      await loadDeliveries(false);
    } catch (err) {
      note(result, message(err), 'error');
    } finally {
      button.disabled = false;
    }
  }

  /** The new endpoint's secret, this once, with a way to copy it. @param {Schemas['WebhookEndpointWithSecret']} e */
  function showSecret(e) {
    const value = h('code', { id: 'endpoint-secret-value' }, e.secret);
    const copy = h('button', { type: 'button' }, 'Copy');
    copy.addEventListener('click', () => {
      const selectIt = () => {
        const range = document.createRange();
        range.selectNodeContents(value);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
        copy.textContent = 'Selected: copy it now';
      };
      if (navigator.clipboard) navigator.clipboard.writeText(e.secret).then(() => (copy.textContent = 'Copied'), selectIt);
      else selectIt();
    });
    const done = h('button', { type: 'button', class: 'quiet' }, 'I have stored it');
    done.addEventListener('click', () => {
      secretBox.hidden = true;
      secretBox.replaceChildren();
    });
    secretBox.replaceChildren(
      h('p', {}, h('strong', {}, 'Endpoint ' + e.id + ' created.'), ' Its signing secret is shown this once: store it now (rotate it to get a new one).'),
      h('div', { class: 'wb-secret-row' }, value, copy, done),
    );
    secretBox.hidden = false;
  }

  $('endpoint-form', HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    if (!keyReady(endpointsLine)) return;
    const target = url.value.trim();
    note(endpointsLine, 'Creating an endpoint for ' + target + '…');
    call('POST', '/webhook_endpoints', { url: target }).then(
      async (r) => {
        if (r.status !== 201) {
          note(endpointsLine, 'Not created (' + r.status + '): ' + problem(r), 'error');
          return;
        }
        showSecret(/** @type {Schemas['WebhookEndpointWithSecret']} */ (r.json));
        url.value = '';
        await loadEndpoints();
      },
      (err) => note(endpointsLine, message(err), 'error'),
    );
  });
  $('deliveries-filter', HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    if (keyReady(deliveriesLine)) loadDeliveries(false).catch((err) => note(deliveriesLine, message(err), 'error'));
  });
  [endpointChoice, statusChoice].forEach((s) =>
    s.addEventListener('change', () => {
      if (keyReady(deliveriesLine)) loadDeliveries(false).catch((err) => note(deliveriesLine, message(err), 'error'));
    }),
  );
  $('webhooks-refresh').addEventListener('click', () => void load());
  older.addEventListener('click', () => loadDeliveries(true).catch((err) => note(deliveriesLine, message(err), 'error')));

  return {
    show: () => {
      if (!state.loaded) void load();
    },
    reset: () => {
      Object.assign(state, { loaded: false, query: '', next: null, count: 0, reads: state.reads + 1 });
      endpointRows.replaceChildren();
      deliveryRows.replaceChildren();
      endpointChoice.replaceChildren(h('option', { value: '' }, 'All endpoints'));
      secretBox.hidden = true;
      secretBox.replaceChildren();
      older.hidden = true;
      [endpointsLine, deliveriesLine, result].forEach((l) => note(l, ''));
    },
  };
}
