// @ts-check
/*
 * The audit log (#audit[?request_id=…], dispatcher): every request the service answered or made, searched by
 * request id, partner, path, surface, direction and time, 25 a page (fewer when they are large), newest first; one
 * entry's request and response side by side (as stored: secrets redacted), read whole when the list shows it cut.
 */
import { api, handler, refusal } from './api.js';
import { $, append, clear, h, tbody } from './dom.js';
import { pretty, slt, when } from './format.js';
import { registerView } from './router.js';

/** @typedef {import('./api.js').AuditEntry} AuditEntry */

const PAGE = 25;
/** @type {{ query: URLSearchParams | null, pages: (string | null)[], rows: AuditEntry[], next: string | null }} `pages`: each page's before_id */
const audit = { query: null, pages: [], rows: [], next: null };
const AUDIT_FIELDS = ['request_id', 'partner_id', 'path', 'surface', 'direction', 'from', 'to'];

/** A datetime-local value (Sri Lanka time) as an instant. @param {string} v */
function fromLocal(v) {
  return v ? new Date(v + (v.length === 16 ? ':00' : '') + '+05:30').toISOString() : '';
}
/** An instant as a datetime-local value (Sri Lanka time). @param {string} iso */
function toLocal(iso) {
  return iso ? slt(iso).slice(0, 19) : '';
}

/** A field of the search form. @param {string} name */
function field(name) {
  const el = $('audit-form', HTMLFormElement).elements.namedItem(name);
  if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) throw new Error(`the audit form has no field ${name}`);
  return el;
}

/** The address's query fills the form (a link to a request id, say); else the last search stays. @param {URLSearchParams} params */
async function openAudit(params) {
  const given = AUDIT_FIELDS.some((f) => params.has(f));
  if (given) {
    AUDIT_FIELDS.forEach((f) => {
      const v = params.get(f) || '';
      field(f).value = f === 'from' || f === 'to' ? toLocal(v) : v;
    });
  }
  if (given || !audit.query) return search();
}

function search() {
  const q = new URLSearchParams();
  AUDIT_FIELDS.forEach((f) => {
    let v = field(f).value.trim();
    if (f === 'from' || f === 'to') v = fromLocal(v);
    if (v) q.set(f, v);
  });
  audit.query = q;
  audit.pages = [null];
  return loadAuditPage();
}

async function loadAuditPage() {
  const q = new URLSearchParams(audit.query || undefined);
  q.set('limit', String(PAGE));
  const before = audit.pages[audit.pages.length - 1];
  if (before) q.set('before_id', before);
  $('audit-status').textContent = 'Searching…';
  const r = await api('listAudit', 'GET', '/audit?' + q.toString());
  const body = clear(tbody('audit-table'));
  clear($('audit-detail')).hidden = true;
  if (!r.ok) {
    $('audit-status').textContent = refusal(r);
    return;
  }
  audit.rows = r.json.data;
  audit.next = r.json.next_before_id;
  $('audit-status').textContent = audit.rows.length ? '' : 'No entry matches.';
  $('audit-page').textContent = 'Page ' + audit.pages.length;
  $('audit-newer', HTMLButtonElement).disabled = audit.pages.length < 2;
  $('audit-older', HTMLButtonElement).disabled = !audit.next;
  audit.rows.forEach((e) => {
    body.appendChild(
      h(
        'tr',
        { 'data-entry': e.id },
        h(
          'td',
          { 'data-label': 'Time' },
          h(
            'button',
            { type: 'button', class: 'link', 'aria-label': 'Show entry ' + e.id + ' (' + e.request_id + ')', onclick: handler(() => showEntry(e)) },
            when(e.at, true),
          ),
        ),
        h('td', { 'data-label': 'Surface' }, e.surface + (e.direction === 'outbound' ? ' (out)' : '')),
        h('td', { 'data-label': 'Method and path', class: 'wrap' }, h('code', {}, e.method + ' ' + e.path)),
        h('td', { 'data-label': 'Status' }, h('span', { class: 'http s' + String(e.status || 0).charAt(0) }, e.status === null ? 'none' : String(e.status))),
        h('td', { 'data-label': 'Partner' }, e.partner_id || '—'),
        h('td', { 'data-label': 'Request id' }, h('code', {}, e.request_id)),
      ),
    );
  });
  if (audit.rows.length === 1) await showEntry(audit.rows[0]);
}

/**
 * The request and the response, side by side (as stored: secrets redacted). A list shows large bodies cut: the entry
 * is then read whole first. @param {AuditEntry} listed
 */
async function showEntry(listed) {
  let e = listed;
  if (listed.cut) {
    $('audit-status').textContent = 'Reading the whole entry…';
    const r = await api('getAuditEntry', 'GET', '/audit/' + encodeURIComponent(listed.id));
    $('audit-status').textContent = r.ok ? '' : refusal(r);
    if (r.ok) e = r.json;
  }
  const detail = clear($('audit-detail'));
  document.querySelectorAll('#audit-table tr.selected').forEach((tr) => tr.classList.remove('selected'));
  const tr = document.querySelector('#audit-table tr[data-entry="' + e.id + '"]');
  if (tr) tr.classList.add('selected');
  detail.hidden = false;
  append(detail, [
    h('h2', { id: 'audit-detail-title', tabindex: '-1' }, e.method + ' ' + e.path),
    h(
      'p',
      { class: 'meta' },
      when(e.at, true) + ' · ' + e.surface + ' · ' + e.direction + ' · request ',
      h('code', {}, e.request_id),
      ' · ' +
        e.duration_ms +
        ' ms' +
        (e.partner_id ? ' · partner ' + e.partner_id + ' (' + (e.env || 'no environment') + ')' : '') +
        (e.attempt ? ' · attempt ' + e.attempt : '') +
        (e.error ? ' · ' + e.error : ''),
    ),
    h(
      'div',
      { class: 'pair' },
      h(
        'section',
        { 'aria-labelledby': 'audit-request-title' },
        h('h3', { id: 'audit-request-title' }, 'Request'),
        h('h4', {}, 'Headers'),
        h('pre', { class: 'code', id: 'audit-request-headers' }, pretty(e.request_headers)),
        h('h4', {}, 'Body'),
        h('pre', { class: 'code', id: 'audit-request-body' }, pretty(e.request_body)),
      ),
      h(
        'section',
        { 'aria-labelledby': 'audit-response-title' },
        h('h3', { id: 'audit-response-title' }, 'Response ' + (e.status === null ? '(none)' : e.status)),
        h('h4', {}, 'Headers'),
        h('pre', { class: 'code', id: 'audit-response-headers' }, pretty(e.response_headers)),
        h('h4', {}, 'Body'),
        h('pre', { class: 'code', id: 'audit-response-body' }, pretty(e.response_body)),
      ),
    ),
  ]);
}

export function setUpAudit() {
  $('audit-form').addEventListener(
    'submit',
    handler(async (e) => {
      e.preventDefault();
      await search();
    }),
  );
  $('audit-clear').addEventListener(
    'click',
    handler(async () => {
      $('audit-form', HTMLFormElement).reset();
      await search();
    }),
  );
  $('audit-older').addEventListener(
    'click',
    handler(async () => {
      audit.pages.push(audit.next);
      await loadAuditPage();
    }),
  );
  $('audit-newer').addEventListener(
    'click',
    handler(async () => {
      audit.pages.pop();
      await loadAuditPage();
    }),
  );
  registerView('audit', { open: (_arg, params) => openAudit(params) });
}
