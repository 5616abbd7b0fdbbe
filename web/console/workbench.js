// @ts-check
/*
 * The console's workbench: tabs over the reference (the first tab), the partner's own request log (requests.js), its
 * sandbox webhooks (webhooks.js) and a booking's timeline (timeline.js), and what those share: elements built from
 * data, times, status codes and a request's exchange. Everything they read or send goes through key.js's `call`:
 * the sandbox key held in memory, a live key refused before anything is sent.
 */
import { $, call, haveKey, held, keyInput, onKeyChange } from './key.js';
import { localTime } from './local-time.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./key.js').Exchange} Exchange */
/** @typedef {'reference' | 'requests' | 'webhooks' | 'timeline'} Tab */
/**
 * A workbench tab: `show` when it is selected (`arg`: what a link named, e.g. a booking_ref), `reset` when the key
 * changes (what it shows belongs to the previous key).
 * @typedef {{ show: (arg?: string) => void, reset: () => void }} Panel
 */
/** @typedef {Node | string | null | undefined | false} Leaf nothing is added for null, undefined or false */
/** @typedef {Leaf | Leaf[]} Child */

/** Rows per page of the workbench's lists. */
export const PAGE = 20;

/** @typedef {{ loaded: boolean, query: string, next: string | null, count: number, reads: number }} ListState */

/**
 * One page of a newest-first list (`next` passed back as `before`) into `rows`: the first page (`more` false)
 * replaces them, `more` appends the next older one, and `state` follows. Returns the page, or null when a later read
 * superseded this one (another filter, a refresh) or the answer was not a 200 (said in `line`, after `what`).
 * @template T
 * @param {string} path
 * @param {string} query the filters, as `&name=value…`
 * @param {boolean} more
 * @param {{ state: ListState, rows: HTMLElement, older: HTMLButtonElement, line: HTMLElement, what: string, render: (item: T) => HTMLElement }} list
 * @returns {Promise<{ data: T[], next: string | null } | null>}
 */
export async function readPage(path, query, more, list) {
  const { state } = list;
  const read = ++state.reads;
  const r = await call('GET', path + '?limit=' + PAGE + query + (more && state.next ? '&before=' + encodeURIComponent(state.next) : ''));
  if (read !== state.reads) return null;
  if (r.status !== 200) {
    note(list.line, list.what + ' answered ' + r.status + ': ' + problem(r), 'error');
    return null;
  }
  const page = /** @type {{ data: T[], next: string | null }} */ (r.json);
  if (!more) {
    list.rows.replaceChildren();
    state.count = 0;
  }
  list.rows.append(...page.data.map(list.render));
  Object.assign(state, { loaded: true, query, next: page.next, count: state.count + page.data.length });
  list.older.hidden = !page.next;
  return page;
}

/**
 * An element: h('td', { class: 'x', 'data-label': 'Kind' }, 'text', child, …). Text is always text, never HTML; an
 * attribute that is undefined, null or false is left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | null | undefined>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  });
  children.flat().forEach((c) => {
    if (c !== undefined && c !== null && c !== false) el.append(c);
  });
  return el;
}

/**
 * A table cell, labelled for the narrow layout (where each row is a block of labelled lines; an empty cell, "—",
 * is left out there).
 * @param {string} label
 * @param {...Child} content
 */
export function cell(label, ...content) {
  const empty = content.length === 1 && content[0] === '—';
  return h('td', { 'data-label': label, class: empty ? 'wb-none' : null }, h('div', { class: 'wb-cell' }, ...content));
}

/** A cell with a class of its own (for the narrow layout). @param {string} className @param {string} label @param {...Child} content */
export function cellOf(className, label, ...content) {
  const td = cell(label, ...content);
  td.classList.add(className);
  return td;
}

/**
 * A <time> for an instant: local time, the offset in a quieter type; the instant in UTC on hover. The date, the time
 * and the offset never break inside, only between them (a narrow column shows the date above the time).
 * @param {string} iso
 */
export function timeOf(iso) {
  const parts = localTime(iso).split(' ');
  if (parts.length !== 3) return h('time', { datetime: iso, title: iso, class: 'wb-time' }, parts.join(' '));
  const [day, clock, zone] = parts;
  return h('time', { datetime: iso, title: iso, class: 'wb-time' }, h('span', {}, day), ' ', h('span', {}, clock), ' ', h('span', { class: 'wb-tz' }, zone));
}

/** A status code, coloured by its class (2xx green, 3xx blue, 4xx amber, 5xx red); null: no answer was sent. @param {number | null | undefined} status */
export function statusBadge(status) {
  if (status === null || status === undefined) return h('span', { class: 'wb-status wb-s0' }, 'no answer');
  return h('span', { class: 'wb-status wb-s' + String(status).charAt(0) }, String(status));
}

/** What a refusal says: its error's code and message, or the text. @param {Exchange} r */
export function problem(r) {
  const e = /** @type {{ error?: { code?: string, message?: string } } | undefined} */ (r.json);
  return e && e.error ? e.error.code + ': ' + e.error.message : r.text || 'no body';
}

/** @param {unknown} err */
export const message = (err) => (err instanceof Error ? err.message : String(err));

/** A status line of a panel (ok, error, or plain). @param {HTMLElement} el @param {string} text @param {'ok' | 'error' | ''} [kind] */
export function note(el, text, kind) {
  el.textContent = text;
  el.className = 'wb-note' + (kind ? ' ' + kind : '');
}

/**
 * Whether there is a sandbox key to read with: the one in use, or the one in the box taken now (a live one is refused
 * there, with the reason in the key box's status). Otherwise the panel says what to do, and nothing is sent.
 * @param {HTMLElement} line
 */
export function keyReady(line) {
  if (held.key || (keyInput.value.trim() && haveKey())) return true;
  note(line, 'No sandbox key in use: paste your test key (svc_sk_test_…) in the box above, then try again.', 'error');
  return false;
}

/** A body as it was kept: JSON pretty-printed, text as it is. @param {unknown} body */
const pretty = (body) => (body === null || body === undefined ? '(no body)' : typeof body === 'string' ? body : JSON.stringify(body, null, 2));

/** Headers one a line, by name. @param {Record<string, string>} headers */
const headerLines = (headers) =>
  Object.keys(headers || {})
    .sort()
    .map((name) => name + ': ' + headers[name])
    .join('\n') || '(none)';

/** The booking a request was about: named in its path, or in its answer. @param {Schemas['RequestDetail']} d @returns {string | null} */
export function bookingRefOf(d) {
  const inPath = /\/bookings\/([A-Za-z0-9]{1,32})(?:[/?]|$)/.exec(d.path);
  if (inPath) return inPath[1].toUpperCase();
  const body = /** @type {{ booking_ref?: unknown } | null} */ (d.response.body);
  return body && typeof body === 'object' && typeof body.booking_ref === 'string' ? body.booking_ref : null;
}

/** A link that opens a booking's timeline (the Timeline tab). @param {string} ref @param {string} [text] */
export const timelineLink = (ref, text) => h('a', { href: '#timeline/' + encodeURIComponent(ref), class: 'wb-timeline-link' }, text || ref);

/** One side of an exchange: its headers and its body. @param {string} title @param {Schemas['Exchange']} side */
function exchangeSide(title, side) {
  const name = title.toLowerCase();
  return h(
    'div',
    { class: 'wb-side' },
    h('h4', {}, title),
    h('h5', {}, 'Headers'),
    h('pre', { class: 'wb-pre wb-headers', 'aria-label': 'The ' + name + ' headers' }, headerLines(side.headers)),
    h('h5', {}, 'Body'),
    h('pre', { class: 'wb-pre wb-body', 'aria-label': 'The ' + name + ' body' }, pretty(side.body)),
  );
}

/**
 * Reads one request of the log (GET /requests/{request_id}) and shows its exchange in `section`: what was sent and
 * what we answered, with a link to the booking's timeline when the request was about one (but `shownRef`, the
 * booking whose timeline is already on show). Focus moves to it.
 * @param {HTMLElement} section
 * @param {string} requestId
 * @param {string} [shownRef]
 */
export async function showExchange(section, requestId, shownRef) {
  section.hidden = false;
  const line = h('p', { class: 'wb-note', role: 'status' }, 'Reading ' + requestId + '…');
  section.replaceChildren(line);
  /** @type {Exchange} */
  let r;
  try {
    r = await call('GET', '/requests/' + encodeURIComponent(requestId));
  } catch (err) {
    note(line, message(err), 'error');
    return;
  }
  if (r.status !== 200) {
    note(line, 'Could not read ' + requestId + ' (' + r.status + '): ' + problem(r), 'error');
    return;
  }
  const d = /** @type {Schemas['RequestDetail']} */ (r.json);
  const ref = bookingRefOf(d);
  const title = h('h3', { tabindex: '-1', class: 'wb-exchange-title' }, h('span', { class: 'wb-path' }, d.method + ' ' + d.path), ' → ', statusBadge(d.status));
  const close = h('button', { type: 'button', class: 'quiet wb-close' }, 'Close');
  close.addEventListener('click', () => {
    section.hidden = true;
  });
  const link = ref && ref !== shownRef ? h('p', { class: 'wb-meta' }, timelineLink(ref, 'Timeline of booking ' + ref + ' →')) : '';
  section.replaceChildren(
    h('div', { class: 'wb-exchange-head' }, title, close),
    h(
      'p',
      { class: 'wb-meta' },
      timeOf(d.at),
      ' · ' + d.duration_ms + ' ms · ',
      h('code', {}, d.request_id),
      d.error_code ? [' · error ', h('code', {}, d.error_code)] : null,
      d.idempotency_key ? [' · Idempotency-Key ', h('code', {}, d.idempotency_key)] : null,
    ),
    link,
    h('div', { class: 'wb-sides' }, exchangeSide('Request', d.request), exchangeSide('Response', d.response)),
  );
  title.focus();
}

const TABS = /** @type {Tab[]} */ (['reference', 'requests', 'webhooks', 'timeline']);
/** The id of the reference tab's AI agents (MCP) section, which its address (#ai-agents) opens from any tab. */
const AGENTS_SECTION = 'ai-agents';
/** @param {string | undefined} name @returns {name is Tab} */
const isTab = (name) => TABS.some((t) => t === name);

/**
 * The page's hash for what is shown (#requests, #webhooks, #timeline/<booking_ref>; none for the reference, whose
 * Swagger UI keeps its own deep links there). Replaced, not pushed: tabs are not pages.
 * @param {Tab} tab
 * @param {string} [arg]
 */
export function remember(tab, arg) {
  const hash = tab === 'reference' ? '' : '#' + tab + (arg ? '/' + encodeURIComponent(arg) : '');
  if (location.hash !== hash) history.replaceState(history.state, '', location.pathname + location.search + hash);
}

/**
 * The tabs (WAI-ARIA tabs: arrow keys, Home and End move between them and select; Tab moves into the panel), shown
 * from the page's hash at load and whenever a link changes it (a booking's timeline, e.g. #timeline/GM32DFCW).
 * @param {Record<Exclude<Tab, 'reference'>, Panel>} panels
 */
export function setUpTabs(panels) {
  const tablist = $('workbench-tabs');
  let current = /** @type {Tab} */ ('reference');

  /** @param {Tab} name @param {{ focus?: boolean, arg?: string }} [opts] */
  function select(name, opts = {}) {
    TABS.forEach((t) => {
      const on = t === name;
      const tab = $('tab-' + t);
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      $('panel-' + t).hidden = !on;
    });
    current = name;
    if (opts.focus) $('tab-' + name).focus();
    remember(name, opts.arg);
    if (name !== 'reference') panels[name].show(opts.arg);
  }

  TABS.forEach((t) => $('tab-' + t).addEventListener('click', () => select(t)));
  tablist.addEventListener('keydown', (e) => {
    const at = TABS.indexOf(current);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1 + TABS.length, Home: 0, End: TABS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(TABS[to % TABS.length], { focus: true });
  });

  function route() {
    // The AI agents section (a link from the bar, or the MCP server's documentation link) is on the reference tab.
    if (location.hash === '#' + AGENTS_SECTION) {
      if (current !== 'reference') {
        select('reference');
        history.replaceState(history.state, '', location.pathname + location.search + '#' + AGENTS_SECTION);
      }
      $(AGENTS_SECTION).scrollIntoView();
      return;
    }
    const m = /^#([a-z]+)(?:\/([A-Za-z0-9%]{1,40}))?$/.exec(location.hash);
    if (m && isTab(m[1]) && m[1] !== 'reference') select(m[1], { arg: m[2] ? decodeURIComponent(m[2]) : undefined });
    else if (location.hash.startsWith('#/') && current !== 'reference') select('reference');
  }
  window.addEventListener('hashchange', route);
  route();

  // Another key, another partner's log: what the panels show goes, and the open one reads again.
  onKeyChange(() => {
    Object.values(panels).forEach((p) => p.reset());
    if (current !== 'reference' && held.key) panels[current].show();
  });
}
