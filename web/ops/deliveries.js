// @ts-check
/*
 * Deliveries (#deliveries, polled): outbox messages that failed, and pending ones whose last attempt failed
 * (retrying). Generic over the listing: a webhook delivery names its endpoint in `webhook`; a marketplace call its
 * order. A dispatcher may retry one and read each attempt's audit row.
 */
import { api, handler, refusal, stopIfSignedOut } from './api.js';
import { $, append, clear, h, tbody } from './dom.js';
import { hhmm, when } from './format.js';
import { poll, registerView } from './router.js';
import { can, serviceNow, session } from './state.js';

/** @typedef {import('./api.js').OutboxMessage} OutboxMessage */

/** @type {Record<string, string>} */
const MARKETPLACE_KINDS = {
  confirm_order: 'confirm order',
  decline_order: 'decline order',
  driver_info: 'driver info',
  driver_location: 'driver location',
  change_confirmation: 'change confirmation',
  no_show: 'no-show report',
  brand_list: 'brand list',
};

async function loadDeliveries() {
  const rs = await Promise.all([api('listOutbox', 'GET', '/outbox?status=failed&limit=200'), api('listOutbox', 'GET', '/outbox?status=pending&limit=200')]);
  const [failedOnes, pending] = rs;
  if (!failedOnes.ok || !pending.ok) {
    $('deliveries-status').textContent = 'Could not load the outbox: ' + refusal(failedOnes.ok ? pending : failedOnes);
    return;
  }
  const retrying = pending.json.data.filter((m) => m.last_error !== null || m.last_status !== null);
  const all = failedOnes.json.data.concat(retrying).sort((a, b) => Number(b.id) - Number(a.id));
  $('deliveries-status').textContent =
    failedOnes.json.data.length + ' failed, ' + retrying.length + ' retrying. Checked at ' + hhmm(new Date(serviceNow()).toISOString()) + '.';
  const body = clear(tbody('deliveries-table'));
  $('deliveries-empty').hidden = all.length > 0;
  $('deliveries-table').hidden = all.length === 0;
  all.forEach((m) => body.appendChild(deliveryRow(m)));
}

/** @param {OutboxMessage} m */
function kindText(m) {
  if (m.webhook || m.kind === 'webhook') return 'Webhook' + (m.webhook && m.webhook.event_type ? ': ' + m.webhook.event_type : '');
  return MARKETPLACE_KINDS[m.kind] ? 'Marketplace: ' + MARKETPLACE_KINDS[m.kind] : m.kind;
}
/** @param {OutboxMessage} m */
function targetText(m) {
  if (m.webhook)
    return [
      m.webhook.url,
      h('span', { class: 'meta block' }, m.webhook.partner_id + ' · ' + m.webhook.env + (m.webhook.booking_ref ? ' · booking ' + m.webhook.booking_ref : '')),
    ];
  return m.order_id ? 'Order ' + m.order_id : 'The marketplace';
}

/** @param {OutboxMessage} m */
function deliveryRow(m) {
  const state = m.status === 'failed' ? 'failed' : 'retrying';
  const result = h('span', { class: 'meta block', role: 'status', 'aria-live': 'polite' });
  const attempts = h('div', { class: 'attempts', hidden: true });
  const retry = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-retry': m.id,
      onclick: handler(async () => {
        retry.disabled = true;
        const r = await api('retryOutboxMessage', 'POST', '/outbox/' + encodeURIComponent(m.id) + '/retry');
        if (!r.ok) {
          retry.disabled = false;
          result.textContent = refusal(r);
          return;
        }
        result.textContent = 'Due now: attempt ' + (r.json.attempts + 1) + ' goes out with the next delivery round.';
        setTimeout(() => {
          if (session.view === 'deliveries') loadDeliveries().catch(stopIfSignedOut);
        }, 2000);
      }),
    },
    'Retry',
  );
  /** @type {HTMLButtonElement} */
  const toggle = h('button', { type: 'button', 'aria-expanded': 'false', onclick: handler(() => toggleAttempts(toggle, m, attempts)) }, 'Attempts');
  return h(
    'tr',
    { 'data-message': m.id },
    h('td', { 'data-label': 'Message' }, h('div', {}, h('code', {}, m.id), h('span', { class: 'meta block' }, 'queued ' + when(m.created_at)))),
    h('td', { 'data-label': 'Kind' }, kindText(m)),
    h('td', { 'data-label': 'Target', class: 'wrap' }, h('div', {}, targetText(m))),
    h('td', { 'data-label': 'State' }, h('span', { class: 'chip ' + state }, state)),
    h('td', { 'data-label': 'Attempts' }, m.attempts + ' of ' + m.max_attempts),
    h('td', { 'data-label': 'Last answer', class: 'wrap' }, (m.last_status ? m.last_status + ' ' : '') + (m.last_error || '—')),
    h(
      'td',
      { 'data-label': 'Next attempt' },
      m.status === 'failed' ? (can('dispatcher') ? 'none (needs you)' : 'none (needs a dispatcher)') : when(m.next_attempt_at),
    ),
    // Retrying needs a dispatcher; the attempts are read from the audit log, which does too.
    can('dispatcher') && h('td', { 'data-label': '' }, h('div', { class: 'actions' }, retry, toggle), result, attempts),
  );
}

/**
 * Each attempt's audit row (request id outbox_<id>_a<n>), with a link to it in the audit log.
 * @param {HTMLButtonElement} button
 * @param {OutboxMessage} m
 * @param {HTMLElement} box
 */
async function toggleAttempts(button, m, box) {
  const open = button.getAttribute('aria-expanded') === 'true';
  button.setAttribute('aria-expanded', String(!open));
  box.hidden = open;
  if (open) return;
  clear(box).appendChild(h('p', { class: 'meta' }, 'Loading…'));
  /** @type {string[]} */
  const ids = [];
  for (let n = 1; n <= m.attempts; n++) ids.push('outbox_' + m.id + '_a' + n);
  const rs = await Promise.all(ids.map((id) => api('listAudit', 'GET', '/audit?limit=1&direction=outbound&request_id=' + encodeURIComponent(id))));
  const list = h('ol', { class: 'attempt-list' });
  rs.forEach((r, i) => {
    const row = r.ok && r.json.data[0];
    list.appendChild(
      h(
        'li',
        {},
        row
          ? [
              h('a', { href: '#audit?request_id=' + encodeURIComponent(ids[i]) }, when(row.at, true)),
              ' — ' + (row.status || 'no answer') + (row.error ? ' · ' + row.error : '') + ' · ' + row.duration_ms + ' ms',
            ]
          : ids[i] + ': not in the audit log (not sent yet)',
      ),
    );
  });
  append(clear(box), m.attempts ? list : h('p', { class: 'meta' }, 'No attempt yet.'));
}

export function setUpDeliveries() {
  $('deliveries-refresh').addEventListener('click', handler(loadDeliveries));
  registerView('deliveries', {
    open: async () => {
      await loadDeliveries();
      poll();
    },
    refresh: loadDeliveries,
  });
}
