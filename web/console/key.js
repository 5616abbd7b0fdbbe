// @ts-check
/*
 * The reference console's key and its requests. Every request the page sends goes through `guard`: a live key is
 * refused before anything is sent, and the request is marked with X-Reference-Console, which the server answers
 * with the uniform 401 when the key is a live one. The key lives in this tab's memory only.
 */

/** @typedef {Record<string, string>} HeaderMap */
/**
 * A request of the page's own and its answer (`json`: the body, when it is JSON).
 * @typedef {{ status: number, requestId: string | null, env: string | null, json: unknown, text: string, headers: HeaderMap, method: string, path: string, body: unknown }} Exchange
 */
/**
 * The little of Swagger UI (swagger-ui-dist) the page uses.
 * @typedef {{ authSelectors: { authorized: () => { size: number } | undefined }, authActions: { logout: (names: string[]) => void }, preauthorizeApiKey: (name: string, key: string) => void }} SwaggerUI
 */

export const ROOT = document.documentElement.getAttribute('data-root') || ''; // e.g. "/transfers/v1"
export const API = location.origin + ROOT;
const CONSOLE_HEADER = 'X-Reference-Console';
export const LIVE_KEY = /svc_sk_live_/;
const TEST_KEY = /^svc_sk_test_[a-z0-9]+_[A-Za-z0-9]+$/;
export const LIVE_REFUSED =
  'Refused by the console: this is a live key (svc_sk_live_…). The console reaches sandbox only and never sends a live key. Use your test key (svc_sk_test_…).';

/** The sandbox key in use, and Swagger UI once it is up. @type {{ key: string | null, ui: SwaggerUI | null }} */
export const held = { key: null, ui: null };

/** @type {Array<() => void>} */
const keyWatchers = [];

/** Calls `watcher` whenever the key in use changes (taken, replaced, refused or forgotten). @param {() => void} watcher */
export function onKeyChange(watcher) {
  keyWatchers.push(watcher);
}

/** The key every request of the page uses from now on (null: none). @param {string | null} k */
export function setKey(k) {
  if (held.key === k) return;
  held.key = k;
  keyWatchers.forEach((watcher) => watcher());
}

/**
 * An element of the page (it has them all); with `type`, also of that kind.
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id
 * @param {{ new (): E, prototype: E }} [type]
 * @returns {E}
 */
export function $(id, type) {
  const el = document.getElementById(id);
  if (!el || !(el instanceof (type || HTMLElement))) throw new Error('#' + id + ': no such element on the page');
  return /** @type {E} */ (el);
}

const status = $('key-status');
export const keyInput = $('key-input', HTMLInputElement);

/** @param {string} text @param {'ok' | 'error' | ''} [kind] */
export function say(text, kind) {
  status.textContent = text;
  status.className = 'status' + (kind ? ' ' + kind : '');
}

/**
 * Throws when any header carries a live key; marks the request as the console's.
 * @param {HeaderMap} headers
 */
export function guard(headers) {
  Object.keys(headers).forEach((name) => {
    if (LIVE_KEY.test(String(headers[name]))) throw new Error(LIVE_REFUSED);
  });
  headers[CONSOLE_HEADER] = '1';
  return headers;
}

/** Swagger UI forgets the key (if it holds one). */
export function logout() {
  if (!held.ui) return;
  const authorized = held.ui.authSelectors.authorized();
  if (authorized && authorized.size) held.ui.authActions.logout(['bearerKey', 'headerKey']);
}

/** @param {string} k */
function masked(k) {
  const m = /^(svc_sk_test_[a-z0-9]+_)/.exec(k);
  return m ? m[1] + '…' : k.slice(0, 12) + '…';
}

/** Takes a test key for every request of the page (a live one is refused). @param {string} value */
export function useKey(value) {
  const k = (value || '').trim();
  if (!k) {
    say('Paste a key first.', 'error');
    return false;
  }
  if (LIVE_KEY.test(k)) {
    setKey(null);
    logout();
    say(LIVE_REFUSED, 'error');
    return false;
  }
  if (!TEST_KEY.test(k)) {
    say('That does not look like an API key: keys look like svc_sk_test_<key id>_<secret>.', 'error');
    return false;
  }
  setKey(k);
  if (held.ui) held.ui.preauthorizeApiKey('bearerKey', k);
  say('Using ' + masked(k) + ' for every request from this page (try-it requests included).', 'ok');
  return true;
}

/** A key in use, or the one in the box taken now: false when there is none. */
export function haveKey() {
  return !!held.key || useKey(keyInput.value);
}

/**
 * One request of the page's own (ping, the flow, the workbench), guarded like Swagger UI's.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {HeaderMap} [extraHeaders]
 * @returns {Promise<Exchange>}
 */
export async function call(method, path, body, extraHeaders) {
  if (!held.key) throw new Error('Use a sandbox key first.');
  /** @type {HeaderMap} */
  const headers = { Authorization: 'Bearer ' + held.key, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  Object.assign(headers, extraHeaders);
  guard(headers);
  const res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  /** @type {unknown} */
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, requestId: res.headers.get('X-Request-Id'), env: res.headers.get('X-Service-Env'), json, text, headers, method, path, body };
}

/** A word for a POSIX shell, taken literally: single quotes, an inner ' written as '\''. @param {string} text */
const literal = (text) => "'" + text.replaceAll("'", "'\\''") + "'";

/**
 * The request as curl, the key left out: the key header is in double quotes so the shell puts $KEY in (in
 * single quotes it would send the words "$KEY" and get a 401); everything else is quoted literally.
 * @param {Exchange} r
 */
export function curl(r) {
  const lines = ['curl -s -X ' + r.method + ' ' + literal(API + r.path)];
  Object.keys(r.headers).forEach((h) => {
    if (h === CONSOLE_HEADER || h === 'Accept') return;
    lines.push(h === 'Authorization' ? '  -H "Authorization: Bearer $KEY"' : '  -H ' + literal(h + ': ' + r.headers[h]));
  });
  if (r.body !== undefined) lines.push('  -d ' + literal(JSON.stringify(r.body)));
  return lines.join(' \\\n');
}
