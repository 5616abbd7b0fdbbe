// @ts-check
/*
 * The reference console's four steps: quote, book, read and cancel, each one real sandbox request with the key in
 * use, shown as curl with its answer.
 */
import { $, call, curl, haveKey, say } from './key.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./key.js').Exchange} Exchange */
/** @typedef {{ error?: { code?: string, message?: string } }} Refusal what a refusal's body may hold */
/** @typedef {'quote' | 'book' | 'read' | 'cancel'} Step */
/** @typedef {[Exchange, string, Step?]} Outcome what a step shows: the exchange, what it means, and the step it opens */

/** @type {{ quote: Schemas['QuoteResponse'] | null, offer: Schemas['Offer'] | null, booking: Schemas['Booking'] | null }} */
const flow = { quote: null, offer: null, booking: null };

/** An instant in Sri Lanka time (UTC+05:30 all year), e.g. "Sat 30 Nov 21:30". @param {string} iso */
function local(iso) {
  const t = new Date(Date.parse(iso) + 330 * 60000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][t.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][t.getUTCMonth()];
  return day + ' ' + t.getUTCDate() + ' ' + month + ' ' + t.toISOString().slice(11, 16);
}

/** A cell of the offers table, labelled for the narrow layout. @param {string} label @param {string} text @param {string} [className] */
function cell(label, text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  td.setAttribute('data-label', label);
  if (className) td.className = className;
  return td;
}

/** An amount with its currency, all its decimals shown ("57.40 USD"). @param {number} n @param {string} currency */
const money = (n, currency) => n.toFixed(2) + ' ' + currency;

/** The quote's offers as a table, each with its cancellation policy (or nothing: the table hides). @param {Schemas['Offer'][]} offers */
function showOffers(offers) {
  const body = $('flow-offers-body');
  body.replaceChildren(
    ...offers.map((o) => {
      const tr = document.createElement('tr');
      const p = o.cancellation_policy;
      const then = p.fees.map((f) => f.percent + ' % (' + money(f.fee, o.currency) + ') from ' + local(f.from)).join('; ') || 'free until pickup';
      const seats = o.extras.length ? ' + ' + o.extras.map((e) => e.quantity + ' ' + e.code.replace('_', ' ')).join(', ') : '';
      tr.append(
        cell('Vehicle', o.vehicle + seats),
        cell('Price', money(o.price, o.currency), 'money'),
        cell('Free cancellation until', local(p.free_until)),
        cell('Then', then),
        cell('No-show', money(p.no_show_fee, o.currency), 'money'),
      );
      return tr;
    }),
  );
  $('flow-offers').hidden = offers.length === 0;
}

/** The booking the flow made (the steps after it are enabled only then). */
function booked() {
  if (!flow.booking) throw new Error('Book first.');
  return flow.booking.booking_ref;
}

/** @type {Record<Step, () => Promise<Outcome>>} */
const steps = {
  quote: async () => {
    const day = new Date(Date.now() + 3 * 86400000).toISOString().slice(0, 10);
    const r = await call('POST', '/quotes', {
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Kandy' },
      pickup_datetime: day + 'T09:30:00+05:30',
      passengers: { adults: 2, luggage: 2 },
    });
    const quote = /** @type {Schemas['QuoteResponse']} */ (r.json);
    flow.quote = null;
    if (r.status === 200 && quote.offers.length) {
      const offer = quote.offers[0];
      flow.quote = quote;
      flow.offer = offer;
      return [
        r,
        'Quote ' +
          quote.quote_id +
          ': ' +
          quote.offers.length +
          ' offers, the cheapest ' +
          offer.vehicle +
          ' at ' +
          offer.price +
          ' ' +
          offer.currency +
          ', locked until ' +
          offer.expires_at +
          '.',
        'book',
      ];
    }
    return [r, r.status === 200 && quote.declined ? 'Declined: ' + quote.declined.reason + ' — ' + quote.declined.message : 'Refused.'];
  },
  book: async () => {
    if (!flow.quote || !flow.offer) throw new Error('Quote first.');
    const idem = 'console-' + Math.random().toString(36).slice(2) + Date.now().toString(36);
    const r = await call(
      'POST',
      '/bookings',
      {
        quote_id: flow.quote.quote_id,
        offer_id: flow.offer.offer_id,
        partner_reference: 'CONSOLE-' + Date.now().toString(36).toUpperCase(),
        passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
      { 'Idempotency-Key': idem },
    );
    if (r.status === 201 || r.status === 200) {
      const booking = /** @type {Schemas['Booking']} */ (r.json);
      flow.booking = booking;
      return [
        r,
        'Booked ' +
          booking.booking_ref +
          ' (' +
          booking.status +
          '). Sending the same request again with the same Idempotency-Key returns this booking, never a second one.',
        'read',
      ];
    }
    const refused = /** @type {Refusal | undefined} */ (r.json);
    return [r, 'Refused: ' + (refused && refused.error ? refused.error.code : r.status) + '.'];
  },
  read: async () => {
    const ref = booked();
    const r = await call('GET', '/bookings/' + ref);
    const b = /** @type {Schemas['Booking'] | undefined} */ (r.json);
    return [r, 'Booking ' + ref + ' is ' + (b && b.status) + '; driver: ' + (b && b.driver ? b.driver.name : 'not assigned yet') + '.', 'cancel'];
  },
  cancel: async () => {
    const ref = booked();
    const r = await call('POST', '/bookings/' + ref + '/cancel');
    const b = /** @type {Schemas['Booking'] | undefined} */ (r.json);
    const fee = b && b.cancellation_fee !== null ? ', at a fee of ' + money(b.cancellation_fee, b.currency) : '';
    return [r, 'Booking ' + ref + ' is ' + (b && b.status) + fee + ' (its policy at this moment). Cancelling again returns the same answer and fee.'];
  },
};

/** @param {string | null} name @returns {name is Step} */
const isStep = (name) => name === 'quote' || name === 'book' || name === 'read' || name === 'cancel';

/** Wires the step buttons: each sends its request and opens the next step. */
export function setUpFlow() {
  /** @type {NodeListOf<HTMLButtonElement>} */
  const buttons = document.querySelectorAll('button[data-step]');
  buttons.forEach((button) => {
    button.addEventListener('click', () => {
      const name = button.getAttribute('data-step');
      if (!isStep(name) || !haveKey()) return;
      button.disabled = true;
      steps[name]().then(
        ([r, meaning, next]) => {
          $('flow-output').hidden = false;
          $('flow-step-title').textContent = button.textContent + ' — ' + r.method + ' ' + r.path + ' → ' + r.status;
          $('flow-curl').textContent = curl(r);
          $('flow-meta').textContent = meaning + (r.requestId ? '  X-Request-Id: ' + r.requestId : '');
          $('flow-response').textContent = r.json ? JSON.stringify(r.json, null, 2) : r.text;
          showOffers(name === 'quote' && flow.quote ? flow.quote.offers : []);
          buttons.forEach((b) => {
            const s = b.getAttribute('data-step');
            b.disabled = !(s === 'quote' || s === next);
            b.classList.toggle('primary', s === (next || 'quote'));
          });
        },
        (err) => {
          button.disabled = false;
          say(err instanceof Error ? err.message : String(err), 'error');
        },
      );
    });
  });
}
