// @ts-check
/*
 * A section of a partner's page: what its AI agents may do through the MCP server (/mcp) with its keys, and what
 * they booked today (GET /partners/{id}/agent-policy). Every role reads it; an admin sets it (PUT). After a change
 * the page is read afresh.
 */
import { api, failed, handler, refusal } from './api.js';
import { $, append, h, say } from './dom.js';
import { envName, when } from './format.js';
import { can } from './state.js';

/** @typedef {import('./api.js').Partner} Partner */
/** @typedef {import('./api.js').OkBody<'getAgentPolicy'>} AgentPolicy */
/** @typedef {import('./api.js').RequestBody<'putAgentPolicy'>} AgentPolicyBody */
/** @typedef {import('./api.js').AnyAnswer} AnyAnswer */
/** @typedef {() => Promise<unknown>} Reopen reads the partner's page afresh */

/** @type {import('./api.js').Env[]} */
const ENVS = ['sandbox', 'production'];

/** An amount with its two decimals and its currency. @param {number} n @param {string} currency */
const money = (n, currency) => n.toFixed(2) + ' ' + currency;

/** A limit in words. @param {number | null} n @param {string} currency */
const limitText = (n, currency) => (n === null ? 'No limit' : money(n, currency));

/** "1 booking", "3 bookings". @param {number} n */
const bookingsText = (n) => n + (n === 1 ? ' booking' : ' bookings');

/** 21 Nov 2026 (a Sri Lanka date, YYYY-MM-DD). @param {string} date */
const dayText = (date) => new Date(date + 'T00:00:00Z').toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** The policy in one sentence, for the status line after a change. @param {AgentPolicy} a */
export function policyText(a) {
  if (!a.enabled) return 'AI agents are off: every tool that books, cancels or changes is refused; reading stays open';
  const amounts = [
    a.max_booking_amount === null ? null : 'up to ' + money(a.max_booking_amount, a.currency) + ' a booking',
    a.max_daily_amount === null ? null : 'up to ' + money(a.max_daily_amount, a.currency) + ' a day',
  ].filter(Boolean);
  return (
    'AI agents are on, ' +
    (a.live_bookings ? 'production bookings included' : 'sandbox only') +
    (amounts.length ? ', ' + amounts.join(' and ') : ', no amount limit')
  );
}

/**
 * The partner's agent policy and what its agents booked today: shown to every role, set by an admin.
 * @param {Partner} p
 * @param {AnyAnswer & ({ ok: true, json: AgentPolicy } | { ok: false })} got the answer of GET …/agent-policy
 * @param {HTMLElement} status
 * @param {Reopen} reopen
 */
export function agentsSection(p, got, status, reopen) {
  const section = h(
    'section',
    { 'aria-labelledby': 'agents-title', id: 'agents' },
    h('h3', { id: 'agents-title' }, 'AI agents'),
    h(
      'p',
      { class: 'hint' },
      "What the partner's AI agents may do through the MCP server (/mcp) with its keys. Reading (places, quotes, bookings) stays open; off refuses every tool that books, cancels or changes. Amounts are in " +
        p.currency +
        ", the day is Sri Lanka's, counted per environment.",
    ),
  );
  if (!got.ok) {
    append(section, h('p', { class: 'status error', role: 'alert', id: 'agents-error' }, 'The policy could not be read. ' + refusal(got)));
    return section;
  }
  const a = got.json;
  append(section, [
    h(
      'dl',
      { class: 'facts', id: 'agents-facts' },
      /** @type {[string, import('./dom.js').Child][]} */ ([
        ['Agents', h('span', { class: 'chip ' + (a.enabled ? 'active' : 'paused') }, a.enabled ? 'on' : 'off')],
        ['Production bookings', a.live_bookings ? 'On' : 'Off (sandbox only)'],
        ['Most per booking', limitText(a.max_booking_amount, a.currency)],
        ['Most per day', a.max_daily_amount === null ? 'No limit' : money(a.max_daily_amount, a.currency) + ' per environment'],
        ['Set', a.updated_at ? when(a.updated_at) + ' by ' + (a.updated_by || 'an operator') : 'Never: the defaults (on, sandbox only, no limit)'],
      ]).map(([name, value]) => h('div', { 'data-fact': name }, h('dt', {}, name), h('dd', {}, value))),
    ),
    h('p', { class: 'meta', id: 'agents-today-title' }, 'Booked by agents today, ' + dayText(a.today) + ' (Sri Lanka)'),
    h(
      'table',
      { class: 'data responsive', id: 'agents-today', 'aria-labelledby': 'agents-today-title' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Environment'),
          h('th', { scope: 'col', class: 'num' }, 'Bookings'),
          h('th', { scope: 'col', class: 'num' }, 'Amount'),
        ),
      ),
      h(
        'tbody',
        {},
        ENVS.map((env) => {
          const day = a.booked_today[env];
          return h(
            'tr',
            { 'data-env': env },
            h('td', { 'data-label': 'Environment' }, envName(env)),
            h('td', { 'data-label': 'Bookings', class: 'num' }, bookingsText(day.bookings)),
            h(
              'td',
              { 'data-label': 'Amount', class: 'num' },
              money(day.amount, a.currency) + (a.max_daily_amount === null ? '' : ' of ' + money(a.max_daily_amount, a.currency)),
            ),
          );
        }),
      ),
    ),
  ]);
  if (!can('admin')) return section;

  const enabled = h('input', { id: 'agents-enabled', name: 'enabled', type: 'checkbox', checked: a.enabled });
  const live = h('input', { id: 'agents-live', name: 'live_bookings', type: 'checkbox', checked: a.live_bookings });
  /** @param {string} id @param {number | null} value @param {string} max */
  const amount = (id, value, max) =>
    h('input', {
      id,
      type: 'number',
      min: '0.01',
      max,
      step: '0.01',
      inputmode: 'decimal',
      placeholder: 'No limit',
      value: value === null ? '' : String(value),
      'aria-describedby': 'agents-hint',
    });
  const perBooking = amount('agents-max-booking', a.max_booking_amount, '1000000');
  const perDay = amount('agents-max-daily', a.max_daily_amount, '100000000');
  /** @param {HTMLInputElement} input */
  const valueOf = (input) => (input.value.trim() === '' ? null : Number(input.value));
  append(
    section,
    h(
      'form',
      {
        class: 'fields',
        id: 'agents-form',
        onsubmit: handler(async (e) => {
          e.preventDefault();
          /** @type {AgentPolicyBody} */
          const body = {
            enabled: enabled.checked,
            live_bookings: live.checked,
            max_booking_amount: valueOf(perBooking),
            max_daily_amount: valueOf(perDay),
          };
          const r = await api('putAgentPolicy', 'PUT', '/partners/' + encodeURIComponent(p.partner_id) + '/agent-policy', body);
          if (!r.ok) return failed(status, r);
          await reopen();
          say($('partner-status'), policyText(r.json) + ', from their next tool call.', 'ok');
        }),
      },
      h(
        'div',
        { class: 'checks' },
        h('span', { class: 'check' }, enabled, h('label', { for: 'agents-enabled' }, 'Agents may act (book, cancel, change)')),
        h('span', { class: 'check' }, live, h('label', { for: 'agents-live' }, 'Production bookings')),
      ),
      h('div', {}, h('label', { for: 'agents-max-booking' }, 'Most per booking (' + p.currency + ')'), perBooking),
      h('div', {}, h('label', { for: 'agents-max-daily' }, 'Most per day (' + p.currency + ')'), perDay),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Save the policy')),
      h(
        'p',
        { id: 'agents-hint', class: 'meta grow-all' },
        'Empty: no limit. Over a limit an agent is told limit_exceeded and nothing is booked. Takes effect on their next tool call.',
      ),
    ),
  );
  return section;
}
