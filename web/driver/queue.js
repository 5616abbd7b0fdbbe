// @ts-check
/*
 * What the phone owes the service: the driver's status taps and the positions taken while a job is live. Everything
 * goes through this queue, kept in this tab's sessionStorage so a reload loses none of it: it is sent as soon as it
 * can be, and what could not be sent (no network, no answer in time, the service busy or failing) is tried again
 * every RETRY_MS and when the phone is back online. Status taps go first (the passenger waits on them), in the
 * order they were made; then the positions, oldest first. Repeating a tap is harmless: the API answers 200 with the
 * job unchanged. Positions are capped (the newest MAX_POSITIONS are kept).
 */
import { api, retryable, stopIfSignedOut } from './api.js';
import { session } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').NextStatus} NextStatus */
/** @typedef {import('./api.js').AnyAnswer} AnyAnswer */
/** @typedef {{ lat: number, lon: number, at: string, accuracy?: number }} Position */
/** @typedef {{ job_id: string, status: NextStatus, note?: string }} StatusTap */
/** @typedef {{ statuses: StatusTap[], positions: Position[] }} Outbox */

const KEY = 'lanka-driver-outbox';
export const MAX_POSITIONS = 500;
export const RETRY_MS = 10000;

/** @type {Outbox} */
let box = load();
/** @type {Promise<void> | null} */
let running = null;

/**
 * How the last attempt went: `problem` 'network' (no answer) or 'service' (busy, failing); null when all went.
 * `retryAt`: not before then (a 429's Retry-After).
 * @type {{ problem: null | 'network' | 'service', retryAt: number }}
 */
export const link = { problem: null, retryAt: 0 };

/**
 * What the rest of the app hears: a tap the API took (the job as it is now), a tap it refused (409, 404, 400: it is
 * dropped), and any change of what is waiting.
 * @type {{ statusDone: (job: Job) => void, statusRefused: (tap: StatusTap, r: AnyAnswer) => void, changed: () => void }}
 */
const hooks = { statusDone: () => {}, statusRefused: () => {}, changed: () => {} };

/** @param {Partial<typeof hooks>} h */
export function onQueue(h) {
  Object.assign(hooks, h);
}

/** @returns {Outbox} */
function load() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    if (kept && Array.isArray(kept.statuses) && Array.isArray(kept.positions)) return kept;
  } catch {
    // an unreadable copy is dropped
  }
  return { statuses: [], positions: [] };
}

function save() {
  for (;;) {
    try {
      if (!box.statuses.length && !box.positions.length) sessionStorage.removeItem(KEY);
      else sessionStorage.setItem(KEY, JSON.stringify(box));
      return;
    } catch {
      // Storage full: the oldest half of the positions goes.
      if (!box.positions.length) return;
      box.positions = box.positions.slice(Math.ceil(box.positions.length / 2));
    }
  }
}

/** @param {Position} p */
export function queuePosition(p) {
  box.positions.push(p);
  if (box.positions.length > MAX_POSITIONS) box.positions = box.positions.slice(-MAX_POSITIONS);
  save();
  hooks.changed();
}

/** A status tap, unless the same one for the same job is already waiting. @param {StatusTap} tap */
export function queueStatus(tap) {
  if (!box.statuses.some((t) => t.job_id === tap.job_id && t.status === tap.status)) box.statuses.push(tap);
  save();
  hooks.changed();
}

/** The tap waiting to be sent for a job, if any. @param {string} jobId */
export function pendingFor(jobId) {
  return box.statuses.find((t) => t.job_id === jobId);
}

export function positionsWaiting() {
  return box.positions.length;
}

export function tapsWaiting() {
  return box.statuses.length;
}

export function sending() {
  return running !== null;
}

/** Forgets everything waiting (signing out: it was owed under that token). */
export function clearQueue() {
  box = { statuses: [], positions: [] };
  save();
  link.problem = null;
  link.retryAt = 0;
}

/** Sends what is waiting, one request at a time; resolves when all went or the first could not. */
export function flush() {
  if (!running) {
    running = drain().finally(() => {
      running = null;
      hooks.changed();
    });
    hooks.changed();
  }
  return running;
}

/** @template T @param {T[]} list @param {T} item */
function drop(list, item) {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
  save();
}

/** @param {AnyAnswer} r */
function stalled(r) {
  link.problem = r.status === 0 ? 'network' : 'service';
  const wait = Number(r.retryAfter);
  link.retryAt = r.status === 429 && wait > 0 ? Date.now() + wait * 1000 : 0;
}

async function drain() {
  for (;;) {
    // Not before the session is back (a reload checks the kept token first): nothing is sent without one.
    if (!session.token) return;
    if (!navigator.onLine) {
      link.problem = 'network';
      return;
    }
    const tap = box.statuses[0];
    if (tap) {
      const body = tap.note ? { status: tap.status, note: tap.note } : { status: tap.status };
      const r = await api('setDriverJobStatus', 'POST', '/jobs/' + encodeURIComponent(tap.job_id) + '/status', body);
      if (retryable(r)) return stalled(r);
      link.problem = null;
      drop(box.statuses, tap);
      if (r.ok) hooks.statusDone(r.json);
      else hooks.statusRefused(tap, r);
      hooks.changed();
      continue;
    }
    const p = box.positions[0];
    if (!p) {
      link.problem = null;
      return;
    }
    const r = await api('postDriverLocation', 'POST', '/location', p);
    if (retryable(r)) return stalled(r);
    // Sent, or refused for good (a 400: a position no phone should have sent): either way it goes.
    link.problem = null;
    drop(box.positions, p);
    hooks.changed();
  }
}

/** Tries again every RETRY_MS while something waits, and as soon as the phone is back online. */
export function startQueue() {
  const retry = () => {
    if ((box.statuses.length || box.positions.length) && !running && Date.now() >= link.retryAt) flush().catch(stopIfSignedOut);
  };
  setInterval(retry, RETRY_MS);
  window.addEventListener('online', () => {
    link.retryAt = 0;
    retry();
  });
  window.addEventListener('offline', () => {
    link.problem = 'network';
    hooks.changed();
  });
}
