// @ts-check
/*
 * Operators (#operators, admin): the named operators, newest first, who created each and whether it is revoked; a
 * new operator's token is shown once, in this view only.
 */
import { api, failed, handler } from './api.js';
import { $, append, clear, h, say, showSecret, tbody } from './dom.js';
import { when } from './format.js';
import { registerView } from './router.js';
import { session } from './state.js';

/** @typedef {import('./api.js').Operator} Operator */
/** @typedef {import('./api.js').Role} Role */

/** @param {Role} role */
function roleChip(role) {
  return h('span', { class: 'chip role-' + role }, role);
}

/** The named operators, newest first: who created each (by name when known), and whether it is revoked. */
async function loadOperators() {
  const r = await api('listOperators', 'GET', '/operators');
  const body = clear(tbody('operators-table'));
  if (!r.ok) return failed($('operators-status'), r);
  const list = r.json.data;
  /** @type {Record<string, string>} */
  const names = { bootstrap: 'Bootstrap admin' };
  list.forEach((o) => {
    names[o.operator_id] = o.name;
  });
  if (!list.length)
    body.appendChild(h('tr', {}, h('td', { colspan: '6', class: 'empty' }, 'No named operator yet: only the bootstrap token (OPERATOR_TOKEN).')));
  list.forEach((o) => {
    const action = h('td', { 'data-label': '' });
    const self = session.me && session.me.operator_id === o.operator_id;
    if (!o.revoked_at && !self) {
      action.appendChild(
        h(
          'button',
          {
            type: 'button',
            class: 'danger-quiet',
            'data-revoke-operator': o.operator_id,
            'aria-label': 'Revoke ' + o.name,
            onclick: () => confirmRevokeOperator(action, o),
          },
          'Revoke',
        ),
      );
    }
    body.appendChild(
      h(
        'tr',
        { 'data-operator': o.operator_id },
        h('td', { 'data-label': 'Name' }, h('div', {}, h('strong', {}, o.name), self ? ' (you)' : null, h('code', { class: 'meta block' }, o.operator_id))),
        h('td', { 'data-label': 'Role' }, roleChip(o.role)),
        h('td', { 'data-label': 'Created' }, when(o.created_at)),
        h('td', { 'data-label': 'Created by' }, names[o.created_by] || o.created_by),
        h(
          'td',
          { 'data-label': 'State' },
          o.revoked_at ? h('span', { class: 'chip revoked' }, 'revoked ' + when(o.revoked_at)) : h('span', { class: 'chip active' }, 'active'),
        ),
        action,
      ),
    );
  });
}

/** @param {HTMLElement} cell @param {Operator} o */
function confirmRevokeOperator(cell, o) {
  clear(cell);
  append(
    cell,
    h(
      'span',
      { class: 'confirm' },
      'Revoke ' + o.name + '? Their token is refused from their next request, on every instance. ',
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          id: 'confirm-revoke-operator',
          onclick: handler(async () => {
            const r = await api('revokeOperator', 'POST', '/operators/' + encodeURIComponent(o.operator_id) + '/revoke');
            if (!r.ok) return failed($('operators-status'), r);
            await loadOperators();
            say($('operators-status'), o.name + ' (' + o.operator_id + ') is revoked.', 'ok');
          }),
        },
        'Yes, revoke',
      ),
      h('button', { type: 'button', class: 'quiet', onclick: handler(loadOperators) }, 'Keep'),
    ),
  );
  $('confirm-revoke-operator').focus();
}

export function setUpOperators() {
  $('operator-form').addEventListener(
    'submit',
    handler(async (e) => {
      e.preventDefault();
      const status = $('operator-form-status');
      const name = $('operator-name', HTMLInputElement);
      const box = $('new-operator');
      clear(box).hidden = true;
      const r = await api('createOperator', 'POST', '/operators', {
        name: name.value.trim(),
        role: /** @type {Role} */ ($('operator-role', HTMLSelectElement).value),
      });
      if (!r.ok) return failed(status, r);
      const o = r.json;
      name.value = '';
      say(status, 'Created ' + o.name + ' (' + o.operator_id + '), ' + (o.role === 'admin' ? 'an ' : 'a ') + o.role + '.', 'ok');
      showSecret(box, {
        id: 'new-operator-token',
        value: o.token,
        ariaLabel: 'The new token',
        label: 'Token of ' + o.name + ' (' + o.role + ', ' + o.operator_id + ')',
        heading: 'Copy this token now. ',
        warning:
          'It is shown this once and cannot be retrieved again: the service keeps only its hash. Give it to ' +
          o.name +
          ' over a secure channel; a lost token is replaced (revoke it, name them again), not recovered.',
        copyId: 'copy-token',
        doneId: 'token-done',
        statusId: 'copy-token-status',
      });
      await loadOperators();
    }),
  );
  registerView('operators', {
    open: loadOperators,
    // The token shown once goes with the view it was shown in.
    leave: () => {
      clear($('new-operator')).hidden = true;
    },
  });
}
