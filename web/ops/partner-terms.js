// @ts-check
/*
 * Two sections of a partner's page: its terms of sale (cancellation fees, no-show, contract rate; every role reads
 * them, an admin makes a new version), and its statement for a range of pickup dates in one environment, with the
 * same lines as CSV.
 */
import { api, failed, handler } from './api.js';
import { $, append, clear, h, say } from './dom.js';
import { addDays, envName, todayInSriLanka, when } from './format.js';
import { can } from './state.js';

/** @typedef {import('./api.js').Partner} Partner */
/** @typedef {import('./api.js').OkBody<'getPartnerTerms'>} Terms */
/** @typedef {import('./api.js').Env} Env */
/** @typedef {() => Promise<unknown>} Reopen reads the partner's page afresh */

/** "50 % from 12 h before pickup; 100 % from 2 h" @param {Terms['cancellation_fees']} fees */
export const feesText = (fees) =>
  fees.length ? fees.map((f) => f.percent + ' % from ' + f.hours_before + ' h before pickup').join('; ') : 'free until pickup';

/** An amount with its two decimals (every currency we bill in has two). @param {number} n */
const money = (n) => n.toFixed(2);

/** "12:50, 2:100", as the fees field takes them. @param {Terms['cancellation_fees']} fees */
const feesField = (fees) => fees.map((f) => f.hours_before + ':' + f.percent).join(', ');

/**
 * The partner's terms in force (GET /partners/{id}/terms), and for an admin a form that makes a new version.
 * @param {Partner} p
 * @param {Terms | undefined} t
 * @param {HTMLElement} status
 * @param {Reopen} reopen
 */
export function termsSection(p, t, status, reopen) {
  const section = h(
    'section',
    { 'aria-labelledby': 'terms-title' },
    h('h3', { id: 'terms-title' }, 'Terms of sale'),
    h(
      'p',
      { class: 'hint' },
      'They price its quotes and set the cancellation policy of every offer, in both environments. A booking keeps the terms it was sold under.',
    ),
    t
      ? h(
          'dl',
          { class: 'facts', id: 'terms-facts' },
          [
            ['Version', t.version + ', since ' + when(t.effective_from)],
            ['No-show', t.no_show_percent + ' % of the price'],
            ['Cancellation fees', feesText(t.cancellation_fees)],
            [
              'Contract rate',
              t.price_adjustment_percent === 0
                ? 'the rate card'
                : (t.price_adjustment_percent > 0 ? '+' : '') + t.price_adjustment_percent + ' % on the rate card',
            ],
          ].map(([name, value]) => h('div', {}, h('dt', {}, name), h('dd', {}, value))),
        )
      : h('p', { class: 'empty' }, 'The terms could not be read.'),
  );
  if (!t || !can('admin')) return section;

  const fees = h('input', {
    id: 'terms-fees',
    name: 'cancellation_fees',
    type: 'text',
    value: feesField(t.cancellation_fees),
    spellcheck: 'false',
    placeholder: 'e.g. 12:50, 2:100',
    'aria-describedby': 'terms-fees-hint',
  });
  const noShow = h('input', {
    id: 'terms-no-show',
    name: 'no_show_percent',
    type: 'number',
    min: '0',
    max: '100',
    step: '1',
    required: true,
    value: String(t.no_show_percent),
  });
  const adjust = h('input', {
    id: 'terms-adjust',
    name: 'price_adjustment_percent',
    type: 'number',
    min: '-90',
    max: '100',
    step: '0.01',
    required: true,
    value: String(t.price_adjustment_percent),
  });
  append(
    section,
    h(
      'form',
      {
        class: 'fields',
        id: 'terms-form',
        onsubmit: handler(async (e) => {
          e.preventDefault();
          const tiers = fees.value
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
            .map((x) => {
              const [hours, percent] = x.split(':');
              return { hours_before: Number(hours), percent: Number(percent) };
            });
          const body = { cancellation_fees: tiers, no_show_percent: Number(noShow.value), price_adjustment_percent: Number(adjust.value) };
          const r = await api('putPartnerTerms', 'PUT', '/partners/' + encodeURIComponent(p.partner_id) + '/terms', body);
          if (!r.ok) return failed(status, r);
          await reopen();
          say(
            $('partner-status'),
            'Terms version ' + r.json.version + " in force from the partner's next quote: " + feesText(r.json.cancellation_fees) + '.',
            'ok',
          );
        }),
      },
      h('div', { class: 'grow' }, h('label', { for: 'terms-fees' }, 'Cancellation fees'), fees),
      h('div', {}, h('label', { for: 'terms-no-show' }, 'No-show (%)'), noShow),
      h('div', {}, h('label', { for: 'terms-adjust' }, 'Contract rate (%)'), adjust),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Make a new version')),
      h(
        'p',
        { id: 'terms-fees-hint', class: 'meta grow-all' },
        'Fees as hours:percent, comma-separated (12:50, 2:100 = 50 % from 12 hours before pickup, 100 % from 2 hours); empty: free until pickup. Contract rate: -10 prices 10 % below the rate card.',
      ),
    ),
  );
  return section;
}

/**
 * The partner's statement (GET /partners/{id}/statements) for a range of pickup dates in one environment: its lines
 * and totals, and the same as a CSV file.
 * @param {Partner} p
 * @param {HTMLElement} status
 */
export function statementSection(p, status) {
  const today = todayInSriLanka();
  const env = h(
    'select',
    { id: 'statement-env', name: 'env' },
    h('option', { value: 'production' }, envName('production')),
    h('option', { value: 'sandbox' }, envName('sandbox')),
  );
  // This month, in Sri Lanka.
  const first = today.slice(0, 8) + '01';
  const from = h('input', { id: 'statement-from', name: 'from', type: 'date', required: true, value: first });
  const to = h('input', { id: 'statement-to', name: 'to', type: 'date', required: true, value: addDays(addDays(first, 40).slice(0, 8) + '01', -1) });
  const out = h('div', { id: 'statement-result', 'aria-live': 'polite' });
  const query = () =>
    '/partners/' + encodeURIComponent(p.partner_id) + '/statements?' + new URLSearchParams({ env: env.value, from: from.value, to: to.value }).toString();
  const show = handler(async () => {
    const r = await api('getPartnerStatement', 'GET', query());
    if (!r.ok) return failed(status, r);
    const s = r.json;
    clear(out);
    append(out, [
      s.lines.length
        ? h(
            'table',
            { class: 'data responsive', id: 'statement-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Booking', 'Their reference', 'Pickup', 'Status', 'Price', 'Due'].map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h(
              'tbody',
              {},
              s.lines.map((l) =>
                h(
                  'tr',
                  {},
                  h('td', { 'data-label': 'Booking' }, h('code', {}, l.booking_ref)),
                  h('td', { 'data-label': 'Their reference' }, l.partner_reference),
                  h('td', { 'data-label': 'Pickup', class: 'nowrap' }, when(l.pickup_datetime)),
                  h('td', { 'data-label': 'Status' }, l.status.replace('_', ' '), l.final ? null : h('span', { class: 'chip paused' }, 'open')),
                  h('td', { 'data-label': 'Price', class: 'num' }, money(l.price)),
                  h('td', { 'data-label': 'Due', class: 'num' }, money(l.amount_due) + (l.cancellation_fee === null ? '' : ' (fee)')),
                ),
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No booking picked up in these days.'),
      h(
        'p',
        { class: 'totals', id: 'statement-totals' },
        s.totals.bookings +
          ' bookings · due ' +
          money(s.totals.amount_due) +
          ' ' +
          s.currency +
          ' (final ' +
          money(s.totals.final_amount_due) +
          ' ' +
          s.currency +
          ')',
      ),
    ]);
  });
  const csv = handler(async () => {
    const r = await api('getPartnerStatement', 'GET', query(), undefined, { accept: 'text/csv' });
    if (!r.ok) return failed(status, r);
    const a = h('a', {
      href: URL.createObjectURL(new Blob([r.text], { type: 'text/csv' })),
      download: p.partner_id + '-' + env.value + '-' + from.value + '.csv',
    });
    a.click();
    URL.revokeObjectURL(a.href);
  });
  return h(
    'section',
    { 'aria-labelledby': 'statement-title' },
    h('h3', { id: 'statement-title' }, 'Statement'),
    h(
      'p',
      { class: 'hint' },
      'What each booking picked up in these days owes (Sri Lanka dates): completed its price, a no-show its fee, a cancellation its fee; open ones as they stand.',
    ),
    h(
      'form',
      {
        class: 'fields',
        id: 'statement-form',
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          show();
        },
      },
      h('div', {}, h('label', { for: 'statement-env' }, 'Environment'), env),
      h('div', {}, h('label', { for: 'statement-from' }, 'From'), from),
      h('div', {}, h('label', { for: 'statement-to' }, 'To'), to),
      h(
        'div',
        { class: 'submit' },
        h('button', { type: 'submit' }, 'Show'),
        h('button', { type: 'button', id: 'statement-csv', onclick: csv }, 'Download CSV'),
      ),
    ),
    out,
  );
}
