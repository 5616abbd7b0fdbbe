// @ts-check
/*
 * Signing in and out. The driver token (`drv_…`, from dispatch) is checked with GET /me and kept in this tab's
 * sessionStorage only; signing out, or closing the tab, forgets it. A 401 at any time (the token revoked) brings
 * the sign-in back with a plain message.
 */
import { api, REVOKED, stopIfSignedOut, whenUnauthorized } from './api.js';
import { $, say } from './dom.js';
import { startJobs, stopJobs } from './jobs.js';
import { renderStatusBar } from './location.js';
import { clearQueue, flush, positionsWaiting, tapsWaiting } from './queue.js';
import { session } from './state.js';

const TOKEN_KEY = 'lanka-driver-token';

/**
 * Checks a token with GET /me. Resolves with nothing once it is accepted (and the session is set), else with what
 * to tell the driver.
 * @param {string} candidate
 * @returns {Promise<string | undefined>}
 */
async function establish(candidate) {
  const r = await api('getDriverMe', 'GET', '/me', undefined, { token: candidate });
  if (r.ok) {
    session.token = candidate;
    session.me = r.json;
    session.clockOffset = Date.parse(r.json.time) - Date.now();
    return undefined;
  }
  if (r.networkError) return 'No network — could not check the token. Try again when you have signal.';
  if (r.status === 401) return REVOKED;
  if (r.status === 429) return 'Too many wrong tokens from this phone — wait ' + (r.retryAfter || 'a few') + ' seconds and try again.';
  return 'The service could not check the token (error ' + r.status + '). Try again in a minute.';
}

/** @param {'signin' | 'jobs'} name */
function show(name) {
  $('view-signin').hidden = name !== 'signin';
  $('view-jobs').hidden = name !== 'jobs';
  $('session').hidden = name !== 'jobs';
  document.title = (name === 'signin' ? 'Sign in' : 'My jobs') + ' · Driver · Lanka Transfers';
}

function started() {
  const me = session.me;
  $('whoami').textContent = me ? me.name : '';
  show('jobs');
  startJobs();
  renderStatusBar();
  // What a reload kept is sent at once.
  flush().catch(stopIfSignedOut);
}

/** @param {string} candidate */
async function signIn(candidate) {
  const status = $('signin-status');
  const button = $('signin-button', HTMLButtonElement);
  say(status, 'Checking the token…');
  button.disabled = true;
  const problem = await establish(candidate);
  button.disabled = false;
  if (problem) return say(status, problem, 'error');
  sessionStorage.setItem(TOKEN_KEY, candidate);
  $('token-input', HTMLInputElement).value = '';
  say(status, '');
  started();
}

/**
 * Forgets the token, the jobs and whatever was still waiting to be sent with it.
 * @param {string} [message]
 * @param {'ok' | 'error'} [kind]
 */
function signOut(message, kind) {
  session.token = null;
  session.me = null;
  sessionStorage.removeItem(TOKEN_KEY);
  stopJobs();
  clearQueue();
  renderStatusBar();
  $('whoami').textContent = '';
  show('signin');
  say($('signin-status'), message || '', kind);
}

/** A token as pasted: without spaces, quotes or a "Bearer " in front. @param {string} text */
function cleaned(text) {
  return text
    .trim()
    .replace(/^bearer\s+/i, '')
    .replace(/^["']|["']$/g, '');
}

/** Wires the sign-in form and the sign-out button, and resumes the tab's session if it kept a token. */
export function startSession() {
  whenUnauthorized(() => signOut(REVOKED, 'error'));
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const candidate = cleaned($('token-input', HTMLInputElement).value);
    if (!candidate) return say($('signin-status'), 'Paste or type your driver token first (it starts with drv_).', 'error');
    signIn(candidate);
  });
  $('token-show', HTMLInputElement).addEventListener('change', (e) => {
    $('token-input', HTMLInputElement).type = /** @type {HTMLInputElement} */ (e.target).checked ? 'text' : 'password';
  });
  $('sign-out').addEventListener('click', () => {
    if ((positionsWaiting() || tapsWaiting()) && !window.confirm('Some updates have not been sent yet (no network). Sign out and drop them?')) return;
    signOut('Signed out: this phone has forgotten the token.', 'ok');
  });

  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (!kept) return show('signin');
  // A reload keeps the session: the token is checked again (and the service's clock read) before anything shows.
  show('signin');
  const resume = () =>
    establish(kept).then((problem) => {
      if (!problem) return started();
      if (problem === REVOKED) return signOut(REVOKED, 'error');
      say($('signin-status'), problem + ' Trying again…', 'error');
      setTimeout(resume, 10000);
    });
  resume();
}
