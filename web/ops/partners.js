// @ts-check
/*
 * Partners (#partners[/<partner_id>]): the list, a new partner (admin), and one partner's page: its API keys, rate
 * limits and vehicle vocabulary (partner-settings.js), its AI agents' policy (partner-agents.js), its terms and
 * statement (partner-terms.js), pausing its quotes. Viewers read; admins change.
 */
import { api, failed, handler, refusal, stopIfSignedOut } from './api.js';
import { $, append, clear, h, say, showSecret, tbody } from './dom.js';
import { when } from './format.js';
import { agentsSection } from './partner-agents.js';
import { rateLimitSection, vocabularySection } from './partner-settings.js';
import { statementSection, termsSection } from './partner-terms.js';
import { registerView } from './router.js';
import { can } from './state.js';

/** @typedef {import('./api.js').Partner} Partner */
/** @typedef {import('./api.js').KeyInfo} KeyInfo */

/** @type {{ list: Partner[], open: string | null }} */
const partners = { list: [], open: null };

/** @param {string | null} partnerId */
async function openPartners(partnerId) {
  partners.open = partnerId;
  await loadPartners();
  if (partnerId) return showPartner(partnerId);
  $('partner-detail').hidden = true;
}

async function loadPartners() {
  const r = await api('listPartners', 'GET', '/partners');
  if (!r.ok) return failed($('partner-form-status'), r);
  partners.list = r.json.data;
  const body = clear(tbody('partners-table'));
  if (!partners.list.length) body.appendChild(h('tr', {}, h('td', { colspan: '4', class: 'empty' }, 'No partner yet.')));
  partners.list.forEach((p) => {
    body.appendChild(
      h(
        'tr',
        { class: partners.open === p.partner_id ? 'selected' : null },
        h(
          'td',
          { 'data-label': 'Name' },
          h('a', { href: '#partners/' + encodeURIComponent(p.partner_id), 'aria-current': partners.open === p.partner_id ? 'true' : null }, p.name),
        ),
        h('td', { 'data-label': 'Partner id' }, h('code', {}, p.partner_id)),
        h('td', { 'data-label': 'Currency' }, p.currency),
        h('td', { 'data-label': 'Quoting' }, h('span', { class: 'chip ' + (p.paused ? 'paused' : 'active') }, p.paused ? 'paused' : 'active')),
      ),
    );
  });
}

/**
 * One partner's page, read afresh (after every change too).
 * @param {string} partnerId
 */
async function showPartner(partnerId) {
  const detail = $('partner-detail');
  const at = '/partners/' + encodeURIComponent(partnerId);
  const [got, keys, codes, terms, agents] = await Promise.all([
    api('getPartner', 'GET', at),
    api('listKeys', 'GET', at + '/keys'),
    api('listVehicleCodes', 'GET', at + '/vehicle-codes'),
    api('getPartnerTerms', 'GET', at + '/terms'),
    api('getAgentPolicy', 'GET', at + '/agent-policy'),
  ]);
  clear(detail);
  detail.hidden = false;
  if (!got.ok) return append(detail, h('p', { class: 'status error', role: 'alert' }, refusal(got)));
  const p = got.json;
  const status = h('p', { id: 'partner-status', class: 'status', role: 'status', 'aria-live': 'polite', hidden: true });
  const reopen = () => showPartner(p.partner_id);
  append(detail, [
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'partner-detail-title', tabindex: '-1' }, p.name),
      h('span', { class: 'chip ' + (p.paused ? 'paused' : 'active') }, p.paused ? 'quoting paused' : 'quoting'),
      can('admin') &&
        h('button', { type: 'button', id: 'pause-toggle', onclick: handler(() => togglePause(p, status)) }, p.paused ? 'Resume quoting' : 'Pause quoting'),
    ),
    h('p', { class: 'meta' }, h('code', {}, p.partner_id), ' · bills in ' + p.currency + ' · since ' + when(p.created_at)),
    status,
    keysSection(p, keys.ok ? keys.json.data : [], status),
    rateLimitSection(p, status, reopen),
    agentsSection(p, agents, status, reopen),
    termsSection(p, terms.ok ? terms.json : undefined, status, reopen),
    statementSection(p, status),
    vocabularySection(p, codes.ok ? codes.json.data : [], status, reopen),
  ]);
  if (detail.getBoundingClientRect().top > window.innerHeight) detail.scrollIntoView();
}

/** Says how a change went, once the partner's page is read afresh. @param {string} partnerId @param {string} text */
async function changed(partnerId, text) {
  await showPartner(partnerId);
  say($('partner-status'), text, 'ok');
}

/** @param {Partner} p @param {HTMLElement} status */
async function togglePause(p, status) {
  const at = '/partners/' + encodeURIComponent(p.partner_id);
  const r = p.paused ? await api('resumePartner', 'POST', at + '/resume') : await api('pausePartner', 'POST', at + '/pause');
  if (!r.ok) return failed(status, r);
  loadPartners().catch(stopIfSignedOut);
  await changed(p.partner_id, r.json.paused ? 'Paused: its quotes decline with partner_paused.' : 'Resumed: it quotes again.');
}

/** @param {Partner} p @param {KeyInfo[]} keys @param {HTMLElement} status */
function keysSection(p, keys, status) {
  const env = h(
    'select',
    { id: 'key-env', name: 'env' },
    h('option', { value: 'sandbox' }, 'sandbox (svc_sk_test_…)'),
    h('option', { value: 'production' }, 'production (svc_sk_live_…)'),
  );
  const shown = h('div', { id: 'new-key', class: 'new-key', hidden: true });
  const rows = keys.map((k) => {
    const action = h('td', { 'data-label': '' });
    if (!k.revoked_at && can('admin')) {
      action.appendChild(
        h('button', { type: 'button', class: 'danger-quiet', 'data-revoke': k.key_id, onclick: () => confirmRevoke(action, p, k, status) }, 'Revoke'),
      );
    }
    return h(
      'tr',
      {},
      h('td', { 'data-label': 'Key' }, h('code', {}, k.prefix + '…')),
      h('td', { 'data-label': 'Environment' }, k.env),
      h('td', { 'data-label': 'Issued' }, when(k.created_at)),
      h('td', { 'data-label': 'Last used' }, k.last_used_at ? when(k.last_used_at) : 'never'),
      h(
        'td',
        { 'data-label': 'State' },
        k.revoked_at ? h('span', { class: 'chip revoked' }, 'revoked ' + when(k.revoked_at)) : h('span', { class: 'chip active' }, 'active'),
      ),
      action,
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'keys-title' },
    h('h3', { id: 'keys-title' }, 'API keys'),
    can('admin') &&
      h(
        'form',
        {
          class: 'fields',
          id: 'key-form',
          onsubmit: handler(async (e) => {
            e.preventDefault();
            const r = await api('createKey', 'POST', '/partners/' + encodeURIComponent(p.partner_id) + '/keys', {
              env: /** @type {import('./api.js').Env} */ (env.value),
            });
            if (!r.ok) return failed(status, r);
            await showPartner(p.partner_id);
            const k = r.json;
            showSecret($('new-key'), {
              id: 'new-key-value',
              value: k.key,
              ariaLabel: 'The new key',
              label: 'New ' + k.env + ' key ' + k.key_id,
              heading: 'Copy this key now. ',
              warning:
                'It is shown this once and cannot be retrieved again: the service keeps only its hash. Send it to the partner over a secure channel; a lost key is replaced, not recovered.',
              copyId: 'copy-key',
              doneId: 'key-done',
              statusId: 'copy-status',
            });
          }),
        },
        h('div', {}, h('label', { for: 'key-env' }, 'Environment'), env),
        h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary' }, 'Issue a key')),
      ),
    shown,
    keys.length
      ? h(
          'table',
          { class: 'data responsive', id: 'keys-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Key', 'Environment', 'Issued', 'Last used', 'State'].map((c) => h('th', { scope: 'col' }, c)),
              h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
            ),
          ),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'empty' }, 'No key yet.'),
  );
}

/** @param {HTMLElement} cell @param {Partner} p @param {KeyInfo} k @param {HTMLElement} status */
function confirmRevoke(cell, p, k, status) {
  clear(cell);
  append(
    cell,
    h(
      'span',
      { class: 'confirm' },
      'Revoke ' + k.key_id + '? Requests with it fail from now on. ',
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          id: 'confirm-revoke',
          onclick: handler(async () => {
            const r = await api('revokeKey', 'POST', '/keys/' + encodeURIComponent(k.key_id) + '/revoke');
            if (!r.ok) return failed(status, r);
            await changed(p.partner_id, 'Key ' + k.key_id + ' is revoked.');
          }),
        },
        'Yes, revoke',
      ),
      h('button', { type: 'button', class: 'quiet', onclick: handler(() => showPartner(p.partner_id)) }, 'Keep it'),
    ),
  );
  $('confirm-revoke').focus();
}

export function setUpPartners() {
  $('partner-form').addEventListener(
    'submit',
    handler(async (e) => {
      e.preventDefault();
      const status = $('partner-form-status');
      const name = $('partner-name', HTMLInputElement);
      const currency = /** @type {import('./api.js').Partner['currency']} */ ($('partner-currency', HTMLSelectElement).value);
      const r = await api('createPartner', 'POST', '/partners', { name: name.value.trim(), currency });
      if (!r.ok) return failed(status, r);
      name.value = '';
      say(status, 'Created ' + r.json.name + ' (' + r.json.partner_id + '). Issue it a key next.', 'ok');
      location.hash = '#partners/' + encodeURIComponent(r.json.partner_id);
    }),
  );
  registerView('partners', { open: (id) => openPartners(id) });
}
