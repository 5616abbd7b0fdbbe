// @ts-check
/*
 * Two sections of a partner's page: its rate limit in each environment, and its vehicle vocabulary (its own codes
 * for our fleet classes). Every role reads them; an admin sets them. After a change the page is read afresh.
 */
import { api, failed, handler } from './api.js';
import { $, append, h, maybe, say } from './dom.js';
import { envName, FLEET, FLEET_NAMES, rateText } from './format.js';
import { can } from './state.js';

/** @typedef {import('./api.js').Partner} Partner */
/** @typedef {import('./api.js').Env} Env */
/** @typedef {() => Promise<unknown>} Reopen reads the partner's page afresh */

/** @type {Env[]} */
const ENVS = ['sandbox', 'production'];

/**
 * The partner's rate limit in each environment (PUT /partners/{id}/rate-limit): shown to every role, set or
 * removed by an admin. An empty burst is the API's default (twice the rate).
 * @param {Partner} p
 * @param {HTMLElement} status
 * @param {Reopen} reopen
 */
export function rateLimitSection(p, status, reopen) {
  const limits = p.rate_limits || { sandbox: null, production: null };
  const table = h(
    'table',
    { class: 'data responsive', id: 'rate-table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Environment'), h('th', { scope: 'col' }, 'Limit'))),
    h(
      'tbody',
      {},
      ENVS.map((env) =>
        h(
          'tr',
          { 'data-env': env },
          h('td', { 'data-label': 'Environment' }, envName(env)),
          h('td', { 'data-label': 'Limit' }, limits[env] ? rateText(limits[env]) : h('span', { class: 'meta' }, 'No limit')),
        ),
      ),
    ),
  );
  const section = h(
    'section',
    { 'aria-labelledby': 'rate-title' },
    h('h3', { id: 'rate-title' }, 'Rate limits'),
    h(
      'p',
      { class: 'hint' },
      "A token bucket per environment, shared by every instance: over it the partner's requests get 429 rate_limited with Retry-After. None by default.",
    ),
    table,
  );
  if (!can('admin')) return section;

  const env = h(
    'select',
    { id: 'rate-env', name: 'env' },
    ENVS.map((e) => h('option', { value: e }, envName(e))),
  );
  const rps = h('input', {
    id: 'rate-rps',
    name: 'requests_per_second',
    type: 'number',
    min: '0.01',
    max: '100000',
    step: 'any',
    required: true,
    inputmode: 'decimal',
  });
  const burst = h('input', {
    id: 'rate-burst',
    name: 'burst',
    type: 'number',
    min: '1',
    max: '1000000',
    step: '1',
    inputmode: 'numeric',
    placeholder: '2 × rate',
    'aria-describedby': 'rate-burst-hint',
  });
  const none = h('button', { type: 'button', id: 'rate-none', class: 'danger-quiet' }, 'Remove the limit');
  const chosen = () => /** @type {Env} */ (env.value);
  const fill = () => {
    const l = limits[chosen()];
    rps.value = l ? String(l.requests_per_second) : '';
    burst.value = l ? String(l.burst) : '';
    none.hidden = !l;
  };
  env.addEventListener('change', fill);
  fill();
  /**
   * @param {import('./api.js').RequestBody<'putPartnerRateLimit'>} body
   * @param {(l: import('./api.js').RateLimit) => string} done what the new limit means
   */
  const put = async (body, done) => {
    const r = await api('putPartnerRateLimit', 'PUT', '/partners/' + encodeURIComponent(p.partner_id) + '/rate-limit', body);
    if (!r.ok) return failed(status, r);
    const l = r.json.rate_limits[body.env];
    await reopen();
    const shown = maybe('rate-env');
    if (shown instanceof HTMLSelectElement) {
      shown.value = body.env;
      shown.dispatchEvent(new Event('change'));
    }
    say($('partner-status'), envName(body.env) + ': ' + done(l), 'ok');
  };
  none.addEventListener(
    'click',
    handler(() => put({ env: chosen(), requests_per_second: null }, () => "no limit from the partner's next request.")),
  );
  append(
    section,
    h(
      'form',
      {
        class: 'fields',
        id: 'rate-form',
        onsubmit: handler(async (e) => {
          e.preventDefault();
          /** @type {import('./api.js').RequestBody<'putPartnerRateLimit'>} */
          const body = { env: chosen(), requests_per_second: Number(rps.value) };
          if (burst.value.trim() !== '') body.burst = Number(burst.value);
          await put(body, (l) => rateText(l).toLowerCase() + ", from the partner's next request.");
        }),
      },
      h('div', {}, h('label', { for: 'rate-env' }, 'Environment'), env),
      h('div', {}, h('label', { for: 'rate-rps' }, 'Requests a second'), rps),
      h('div', {}, h('label', { for: 'rate-burst' }, 'Burst'), burst),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Set the limit'), none),
      h('p', { id: 'rate-burst-hint', class: 'meta grow-all' }, 'Burst: the most requests at once; empty for twice the rate.'),
    ),
  );
  return section;
}

/**
 * The partner's own vehicle codes, mapped to our fleet classes: listed for every role, changed by an admin.
 * @param {Partner} p
 * @param {import('./api.js').VehicleCode[]} codes
 * @param {HTMLElement} status
 * @param {Reopen} reopen
 */
export function vocabularySection(p, codes, status, reopen) {
  const code = h('input', { id: 'vocab-code', name: 'code', type: 'text', maxlength: '64', required: true, spellcheck: 'false', placeholder: 'e.g. SEDAN' });
  const vehicle = h(
    'select',
    { id: 'vocab-vehicle', name: 'vehicle' },
    FLEET.map((f) => h('option', { value: f[0] }, f[1] + ' (' + f[0] + ')')),
  );
  /** @param {string} c */
  const path = (c) => '/partners/' + encodeURIComponent(p.partner_id) + '/vehicle-codes/' + encodeURIComponent(c);
  /** @param {string} text */
  const done = async (text) => {
    await reopen();
    say($('partner-status'), text, 'ok');
  };
  const rows = codes.map((c) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'Their code' }, h('code', {}, c.code)),
      h('td', { 'data-label': 'Our vehicle' }, FLEET_NAMES[c.vehicle] + ' (' + c.vehicle + ')'),
      can('admin') &&
        h(
          'td',
          { 'data-label': '' },
          h(
            'button',
            {
              type: 'button',
              class: 'danger-quiet',
              'aria-label': 'Remove ' + c.code,
              onclick: handler(async () => {
                const r = await api('deleteVehicleCode', 'DELETE', path(c.code));
                if (!r.ok) return failed(status, r);
                await done('Removed ' + c.code + '.');
              }),
            },
            'Remove',
          ),
        ),
    ),
  );
  return h(
    'section',
    { 'aria-labelledby': 'vocab-title' },
    h('h3', { id: 'vocab-title' }, 'Vehicle vocabulary'),
    h('p', { class: 'hint' }, "The partner's own vehicle codes, mapped to our fleet: its quotes may ask for them, and its offers carry them."),
    codes.length
      ? h(
          'table',
          { class: 'data responsive', id: 'vocab-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Their code'),
              h('th', { scope: 'col' }, 'Our vehicle'),
              can('admin') && h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
            ),
          ),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'empty' }, 'No mapping yet: offers carry our own codes.'),
    can('admin') &&
      h(
        'form',
        {
          class: 'fields',
          id: 'vocab-form',
          onsubmit: handler(async (e) => {
            e.preventDefault();
            const r = await api('putVehicleCode', 'PUT', path(code.value.trim()), { vehicle: /** @type {import('./api.js').FleetCode} */ (vehicle.value) });
            if (!r.ok) return failed(status, r);
            await done('Mapped ' + r.json.code + ' to ' + FLEET_NAMES[r.json.vehicle] + '.');
          }),
        },
        h('div', {}, h('label', { for: 'vocab-code' }, 'Their code'), code),
        h('div', {}, h('label', { for: 'vocab-vehicle' }, 'Our vehicle'), vehicle),
        h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Save mapping')),
      ),
  );
}
