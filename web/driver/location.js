// @ts-check
/*
 * The phone's position while a job is live (en_route, arrived, on_board): watched with the Geolocation API (high
 * accuracy), and the latest one queued every SEND_MS for POST /location (queue.js sends it, or keeps it until the
 * network is back). While sharing, the screen is kept awake where the browser allows it (a locked phone stops
 * reporting). The status bar says plainly how it goes: location off, positions waiting for the network, or sharing.
 */
import { stopIfSignedOut } from './api.js';
import { $, clear, h } from './dom.js';
import { flush, link, positionsWaiting, queuePosition } from './queue.js';
import { session } from './state.js';

export const SEND_MS = 10000;

/**
 * @type {{ live: boolean, watchId: number | null, timer: ReturnType<typeof setInterval> | undefined,
 *   latest: { lat: number, lon: number, accuracy: number, taken: number } | null, queued: number,
 *   problem: null | 'denied' | 'unavailable' | 'unsupported' | 'searching', wakeLock: WakeLockSentinel | null }}
 */
const geo = { live: false, watchId: null, timer: undefined, latest: null, queued: 0, problem: null, wakeLock: null };

/** Starts or stops sharing the position: `live` when one of the driver's jobs is under way. @param {boolean} live */
export function shareLocation(live) {
  if (live === geo.live) return;
  geo.live = live;
  if (live) {
    watch();
    geo.timer = setInterval(tick, SEND_MS);
    keepAwake();
  } else {
    unwatch();
    clearInterval(geo.timer);
    geo.timer = undefined;
    geo.latest = null;
    geo.problem = null;
    geo.wakeLock?.release().catch(() => {});
    geo.wakeLock = null;
  }
  renderStatusBar();
}

function watch() {
  if (!navigator.geolocation) {
    geo.problem = 'unsupported';
    return;
  }
  geo.watchId = navigator.geolocation.watchPosition(seen, failed, { enableHighAccuracy: true, maximumAge: 5000, timeout: 30000 });
}

function unwatch() {
  if (geo.watchId !== null) navigator.geolocation.clearWatch(geo.watchId);
  geo.watchId = null;
}

/** @param {GeolocationPosition} pos */
function seen(pos) {
  const first = !geo.latest;
  geo.problem = null;
  geo.latest = { lat: pos.coords.latitude, lon: pos.coords.longitude, accuracy: pos.coords.accuracy, taken: pos.timestamp };
  // The first fix goes at once: the passenger sees the driver move off without waiting for the next round.
  if (first) tick();
  else renderStatusBar();
}

/** @param {GeolocationPositionError} err */
function failed(err) {
  if (err.code === err.PERMISSION_DENIED) geo.problem = 'denied';
  else if (err.code === err.POSITION_UNAVAILABLE) geo.problem = 'unavailable';
  else if (!geo.latest) geo.problem = 'searching';
  renderStatusBar();
}

/** Queues the latest position (when it is new) and sends what waits. */
function tick() {
  // Location turned off: ask again each round, so sharing resumes as soon as the driver turns it back on.
  if (geo.problem === 'denied' || geo.problem === 'unavailable') {
    unwatch();
    watch();
  }
  const l = geo.latest;
  if (l && l.taken > geo.queued) {
    geo.queued = l.taken;
    // Dated on the service's clock: a phone whose clock runs fast would otherwise send positions "from the future".
    const at = new Date(Math.min(l.taken, Date.now()) + session.clockOffset).toISOString();
    queuePosition({ lat: l.lat, lon: l.lon, at, accuracy: Math.round(Math.max(0, l.accuracy) * 10) / 10 });
  }
  flush().catch(stopIfSignedOut);
  renderStatusBar();
}

/** Keeps the screen on while sharing (and again when the page is shown after being hidden). */
async function keepAwake() {
  if (!geo.live || geo.wakeLock || document.visibilityState !== 'visible' || !('wakeLock' in navigator)) return;
  try {
    geo.wakeLock = await navigator.wakeLock.request('screen');
    geo.wakeLock.addEventListener('release', () => {
      geo.wakeLock = null;
    });
  } catch {
    geo.wakeLock = null;
  }
}
document.addEventListener('visibilitychange', () => {
  keepAwake();
});

/**
 * The status bar: one plain line for each thing the driver should know (location off, positions waiting for the
 * network), else what is going on.
 */
export function renderStatusBar() {
  const bar = $('statusbar');
  if (!session.token) {
    bar.hidden = true;
    delete bar.dataset.text;
    return;
  }
  const waiting = positionsWaiting();
  const offline = !navigator.onLine || link.problem === 'network';
  /** @type {[string, string][]} */
  const lines = [];
  const off = geo.problem === 'denied' || geo.problem === 'unavailable' || geo.problem === 'unsupported';
  if (geo.live && off) lines.push(['off', 'Location is off — turn it on so the passenger can see you']);
  if (waiting && offline) lines.push(['offline', 'No network — ' + waiting + (waiting === 1 ? ' position' : ' positions') + ' waiting to send']);
  else if (waiting && link.problem === 'service')
    lines.push(['offline', 'Service busy — ' + waiting + (waiting === 1 ? ' position' : ' positions') + ' waiting to send']);
  else if (offline) lines.push(['offline', 'No network — the jobs shown may be out of date']);
  if (!lines.length) {
    if (!geo.live) lines.push(['idle', 'Your location is shared only during a ride']);
    else if (!geo.latest) lines.push(['searching', 'Looking for your position…']);
    else lines.push(['ok', 'Sharing location']);
  }
  const text = lines.map((l) => l[1]).join(' | ');
  if (bar.dataset.text === text) return;
  bar.dataset.text = text;
  clear(bar).append(
    ...lines.map(([kind, words]) => h('p', { class: 'line ' + kind, 'data-kind': kind }, h('span', { class: 'dot', 'aria-hidden': 'true' }), words)),
  );
  bar.className = 'statusbar ' + lines[0][0];
  bar.hidden = false;
}
