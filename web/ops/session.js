// @ts-check
/*
 * Signing in and out. The operator token is kept in this tab's sessionStorage only (signing out, or closing the tab,
 * forgets it) and sent only to the operator API. Who is signed in comes from GET /me; what the page offers follows
 * the role (elements marked `data-needs="dispatcher|admin"`, and the forms the views build).
 */
import { api, refusal, whenUnauthorized, errorOf } from './api.js';
import { $, clear, say } from './dom.js';
import { resetViews, route, show, stopPolling, tickClock } from './router.js';
import { can, roleNamed, session } from './state.js';

/** @typedef {import('./api.js').AnyAnswer} AnyAnswer */

const TOKEN_KEY = 'lanka-ops-token';

/**
 * Checks a token (GET /ping, which also gives the service's clock) and asks whom it belongs to (GET /me).
 * Resolves with the first answer that is not a 200, or with nothing once both are and the session is set.
 * @param {string} candidate
 * @returns {Promise<AnyAnswer | undefined>}
 */
async function establish(candidate) {
  const ping = await api('getOpsPing', 'GET', '/ping', undefined, { token: candidate });
  if (ping.status !== 200 || !ping.ok) return ping;
  const who = await api('getMe', 'GET', '/me', undefined, { token: candidate });
  if (who.status !== 200 || !who.ok) return who;
  session.token = candidate;
  session.me = who.json;
  session.clockOffset = Date.parse(ping.json.time) - Date.now();
  return undefined;
}

/** @param {string} candidate */
async function signIn(candidate) {
  const status = $('signin-status');
  say(status, 'Checking the token…');
  const r = await establish(candidate);
  if (!r) {
    sessionStorage.setItem(TOKEN_KEY, candidate);
    $('token-input', HTMLInputElement).value = '';
    say(status, '');
    started();
    return true;
  }
  const e = errorOf(r);
  let text = 'Refused: the operator API answered ' + r.status + (e ? ' ' + e.code + ': ' + e.message : '');
  // A scraper's token (role metrics) reads GET /metrics only: say so rather than leave a bare 403.
  if (e && e.code === 'forbidden' && e.details && e.details.role === 'metrics')
    text = 'This token has the metrics role: it reads GET /metrics (for Prometheus) and cannot sign in to the console.';
  if (r.retryAfter) text += ' Too many wrong tokens came from this address: every token is refused for another ' + r.retryAfter + ' seconds.';
  say(status, r.networkError ? refusal(r) : text, 'error');
  return false;
}

function started() {
  applyRole();
  $('sections').hidden = false;
  $('session').hidden = false;
  tickClock();
  if (!location.hash || location.hash === '#signin') location.hash = '#board';
  else route();
}

/** Who is signed in, in the header; and only what the role may do, on the page. */
function applyRole() {
  const me = session.me;
  if (!me) return;
  $('whoami-name').textContent = me.name;
  $('whoami-role').textContent = me.role;
  $('whoami').title = 'Signed in as ' + me.name + ' (' + me.operator_id + '), ' + me.role;
  /** @type {NodeListOf<HTMLElement>} */
  const marked = document.querySelectorAll('[data-needs]');
  marked.forEach((el) => {
    el.hidden = !can(roleNamed(el.getAttribute('data-needs')));
  });
}

/**
 * Forgets the token and everything shown with it.
 * @param {string} [message]
 * @param {'ok' | 'error'} [kind]
 */
function signOut(message, kind) {
  session.token = null;
  session.me = null;
  sessionStorage.removeItem(TOKEN_KEY);
  stopPolling();
  resetViews();
  ['timeline', 'unassigned', 'job-panel', 'partner-detail', 'audit-detail', 'new-operator', 'whoami-name', 'whoami-role'].forEach((id) => clear($(id)));
  ['partners-table', 'deliveries-table', 'audit-table', 'operators-table'].forEach((id) => clear($(id, HTMLTableElement).tBodies[0]));
  $('new-operator').hidden = true;
  say($('operator-form-status'), '');
  $('sections').hidden = true;
  $('session').hidden = true;
  show('signin');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  say($('signin-status'), message || '', kind);
}

/** Wires the sign-in form and the sign-out button, and resumes the tab's session if it kept a token. */
export function startSession() {
  whenUnauthorized((r) => signOut('The operator API no longer accepts this token (' + refusal(r) + '). Sign in again.', 'error'));
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const candidate = $('token-input', HTMLInputElement).value.trim();
    if (!candidate) return say($('signin-status'), 'Paste the operator token first.', 'error');
    signIn(candidate);
  });
  $('sign-out').addEventListener('click', () => signOut('Signed out: this tab has forgotten the token.', 'ok'));

  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) {
    // A reload keeps the session: the token is checked again (and the service's clock read) before anything shows.
    establish(kept).then((r) => {
      if (!r) started();
      else signOut(r.status === 401 ? 'The operator API no longer accepts the token this tab kept. Sign in again.' : refusal(r), 'error');
    });
  } else show('signin');
}
