// @ts-check
/*
 * Views (the address's #fragment): #board (dispatch, polled), #drivers[/<driver_id>], #partners[/<partner_id>],
 * #deliveries (polled), #audit[?request_id=…], #operators. Each view's module registers itself here; this shows one
 * at a time, keeps the polled ones fresh while the tab is visible, and ticks the service's clock in the header.
 */
import { stopIfSignedOut } from './api.js';
import { $ } from './dom.js';
import { dayName, hhmm, todayInSriLanka } from './format.js';
import { can, serviceNow, session } from './state.js';

/** @typedef {import('./state.js').ViewName} ViewName */
/**
 * A view of the console. `open`: the view is shown (`arg` is what follows its name and a slash, `params` its query);
 * `refresh`: reloads it on each poll (views that have it are polled); `leave`: another view is shown;
 * `reset`: the operator signed out.
 * @typedef {{ open: (arg: string | null, params: URLSearchParams) => Promise<unknown>, refresh?: () => Promise<unknown>, leave?: () => void, reset?: () => void }} View
 */

export const POLL_MS = 10000;

/** @type {Record<ViewName | 'signin', string>} */
const TITLES = {
  signin: 'Sign in',
  board: 'Dispatch',
  drivers: 'Drivers',
  partners: 'Partners',
  deliveries: 'Deliveries',
  audit: 'Audit log',
  operators: 'Operators',
};
/** @type {Partial<Record<ViewName, import('./state.js').Role>>} The least role each view needs (the operations it reads); the others need a viewer. */
const VIEW_NEEDS = { audit: 'dispatcher', operators: 'admin' };
/** @type {Partial<Record<ViewName, View>>} */
const views = {};
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pollTimer;

/** @param {ViewName} name @param {View} v */
export function registerView(name, v) {
  views[name] = v;
}

/** @param {string | undefined} name @returns {name is ViewName} */
function isView(name) {
  return name !== undefined && Object.hasOwn(views, name);
}

/** Shows one view (or the sign-in) and hides the others. @param {ViewName | 'signin'} name */
export function show(name) {
  for (const v of /** @type {(ViewName | 'signin')[]} */ (Object.keys(TITLES))) $('view-' + v).hidden = v !== name;
  document.querySelectorAll('#sections a').forEach((a) => {
    if (a.getAttribute('href') === '#' + name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  document.title = TITLES[name] + ' · Operator console · Lanka Transfers';
}

/** Shows the view the address names (the board when it names none, or one the role may not read). */
export function route() {
  if (!session.token) return show('signin');
  const hash = location.hash.replace(/^#/, '');
  const m = /^([a-z]+)(?:\/([^?]*))?(?:\?(.*))?$/.exec(hash) || [];
  /** @type {ViewName} */
  let name = isView(m[1]) ? m[1] : 'board';
  // A view the role may not read is not offered: its address opens the board.
  const needs = VIEW_NEEDS[name];
  if (needs && !can(needs)) {
    name = 'board';
    history.replaceState(null, '', '#board');
  }
  const changed = name !== session.view;
  if (changed && session.view) views[session.view]?.leave?.();
  session.view = name;
  show(name);
  stopPolling();
  if (changed) $(name + '-title').focus({ preventScroll: true });
  const opened = views[name]?.open(m[2] ? decodeURIComponent(m[2]) : null, new URLSearchParams(m[3] || ''));
  if (opened) opened.catch(stopIfSignedOut);
}

/** Keeps the current view fresh while the tab is visible (the views that refresh: board and deliveries). */
export function poll() {
  stopPolling();
  pollTimer = setTimeout(() => {
    if (!session.token) return;
    tickClock();
    const refresh = session.view ? views[session.view]?.refresh : undefined;
    const next = document.hidden ? Promise.resolve() : refresh ? refresh() : null;
    if (next) next.then(poll, poll);
  }, POLL_MS);
}

export function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = undefined;
}

/** Back to a visible tab, a polled view is reloaded at once. */
export function polled() {
  return !!session.view && !!views[session.view]?.refresh;
}

/** Every view forgets what it showed (signing out). */
export function resetViews() {
  session.view = null;
  for (const v of Object.values(views)) v?.reset?.();
}

export function tickClock() {
  const now = new Date(serviceNow()).toISOString();
  $('service-clock').textContent = 'Service time ' + dayName(todayInSriLanka()) + ' ' + hhmm(now);
}
