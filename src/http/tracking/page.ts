/**
 * The passenger tracking page (`{PUBLIC_BASE_URL}/t/{token}`): what a traveller opens on a phone at an arrivals hall,
 * with no login. Pure rendering: a view model in, one self-contained HTML document out — inline style, an inline SVG
 * map, no script and no request to anywhere (no fonts, tiles or images). The live phase reloads itself every 30 s.
 * Every interpolated text goes through escapeHtml.
 */
import { escapeHtml } from '../../shared/html';
import type { Tracking } from '../../domain/ride/tracking';
import { SRI_LANKA_OFFSET_MS } from '../../domain/kernel/sri-lanka-time';
import { renderInset, renderMap } from './map';

/** What the page shows (src/domain/ride/tracking.ts decides it), and the time it is shown at. */
export type TrackingPageView = Tracking & { now: Date };

type Status = TrackingPageView['status'];

/** What each status says, in plain words. */
export const STATUS_WORDS: Record<Status, string> = {
  confirmed: 'Booking confirmed',
  driver_assigned: 'Driver assigned',
  driver_en_route: 'Your driver is on the way',
  driver_arrived: 'Your driver has arrived',
  passenger_on_board: 'On board — enjoy the ride',
  completed: 'Completed',
  no_show: 'Passenger did not show',
  cancelled: 'Cancelled',
};
/** Statuses with a driver at work: their name, car and position are shown. */
const ACTIVE = new Set<Status>(['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board']);
const FINAL = new Set<Status>(['completed', 'no_show', 'cancelled']);
/** A position older than this is called out with its age. */
const STALE_MS = 3 * 60_000;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const local = (d: Date) => new Date(d.getTime() + SRI_LANKA_OFFSET_MS);
const pad = (n: number) => String(n).padStart(2, '0');
/** "09:30", Sri Lanka time. */
export function slTime(d: Date): string {
  const t = local(d);
  return `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
}
/** "Tue 1 Dec, 09:30", Sri Lanka time. */
export function slDateTime(d: Date): string {
  const t = local(d);
  return `${DAYS[t.getUTCDay()]} ${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]}, ${slTime(d)}`;
}
const sameDay = (a: Date, b: Date) => local(a).toISOString().slice(0, 10) === local(b).toISOString().slice(0, 10);
/** The time alone when it falls on `ref`'s day, else with the date. */
const timeNear = (d: Date, ref: Date) => (sameDay(d, ref) ? slTime(d) : slDateTime(d));

/** "about 25 min away" (the driver, coming), or "about 1 h 10 min to Galle" (on board: the arrival). */
function etaWords(minutes: number, to: string | null): string {
  const m = Math.round(minutes);
  const rest = to ? ` to ${to}` : ' away';
  if (m < 1) return `less than a minute${rest}`;
  if (m < 60) return `about ${m} min${rest}`;
  return `about ${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}${rest}`;
}

const FLIGHT_WORDS: Record<string, string> = {
  scheduled: 'On schedule',
  delayed: 'Delayed',
  landed: 'Landed',
  diverted: 'Diverted',
  cancelled: 'Cancelled',
  unknown: '',
};
function flightLine(f: NonNullable<TrackingPageView['flight']>, ref: Date): string {
  const words = FLIGHT_WORDS[f.status] ?? f.status;
  const when = f.estimatedArrival ? `${f.status === 'landed' ? 'at' : 'expected'} ${timeNear(f.estimatedArrival, ref)}` : '';
  return [`<strong>${escapeHtml(f.number)}</strong>`, escapeHtml(words), escapeHtml(when)].filter(Boolean).join(' · ');
}

function pickupTime(v: TrackingPageView): string {
  const booked = `<span class="when">${escapeHtml(slDateTime(v.pickupAt))}</span>`;
  const moved = v.pickupEstimatedAt;
  if (!moved || moved.getTime() === v.pickupAt.getTime()) return booked;
  const why = v.flight ? ` because flight ${escapeHtml(v.flight.number)} is ${moved > v.pickupAt ? 'delayed' : 'early'}` : '';
  return `<span class="was">Booked for <s>${escapeHtml(slDateTime(v.pickupAt))}</s></span><span class="moved">Moved to <strong>${escapeHtml(timeNear(moved, v.pickupAt))}</strong>${why}</span>`;
}

const telHref = (phone: string) => `tel:${phone.replace(/[^\d+]/g, '')}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The line under the status: what is happening, for the traveller. */
function statusDetail(v: TrackingPageView, driverName: string | null): string {
  const who = driverName ?? 'Your driver';
  if (v.phase === 'upcoming' && !FINAL.has(v.status))
    return `Live tracking starts at <strong>${escapeHtml(slDateTime(v.trackingStartsAt))}</strong>. Your driver’s name, car and plate will appear here then.`;
  switch (v.status) {
    case 'confirmed':
      return 'We are assigning your driver. Their name, car and plate will appear here.';
    case 'driver_assigned':
      return `${escapeHtml(who)} will set off for the pickup in good time.`;
    case 'driver_en_route':
      return `${escapeHtml(who)} is driving to ${escapeHtml(v.pickupName)}.`;
    case 'driver_arrived':
      return `${escapeHtml(who)} is waiting at ${escapeHtml(v.pickupName)}.${v.driver ? ` Look for plate <strong>${escapeHtml(v.driver.plate)}</strong>.` : ''}`;
    case 'passenger_on_board':
      return `Heading to ${escapeHtml(v.dropoffName)}.`;
    case 'completed':
      return `You have arrived at ${escapeHtml(v.dropoffName)}. Thank you for travelling with us.`;
    case 'no_show':
      return 'Your driver waited but could not find you. Call us if you still need a ride.';
    case 'cancelled':
      return 'This transfer was cancelled. If you did not expect this, call us.';
  }
}

export function renderTrackingPage(v: TrackingPageView): string {
  const live = v.phase === 'live';
  const active = live && ACTIVE.has(v.status);
  const driver = active ? v.driver : null;
  const position = active && v.position && Number.isFinite(v.position.lat) && Number.isFinite(v.position.lon) ? v.position : null;
  const refresh = live && !FINAL.has(v.status);
  const name = driver?.firstName ?? null;
  const words = STATUS_WORDS[v.status];

  const eta =
    active && v.etaMinutes !== null ? `<p class="eta">${escapeHtml(etaWords(v.etaMinutes, v.status === 'passenger_on_board' ? v.dropoffName : null))}</p>` : '';
  const seenAt = position?.at ?? v.now;
  const ago = v.now.getTime() - seenAt.getTime();
  const updated = live
    ? `<p class="updated">Updated ${escapeHtml(slTime(seenAt))}${ago > STALE_MS ? ` · position from ${Math.round(ago / 60_000)} min ago` : ''}${refresh ? ' · this page refreshes itself' : ''}</p>`
    : '';

  const driverCard = driver
    ? `<section class="card driver" aria-labelledby="driver-h">
<h2 id="driver-h">Your driver</h2>
<p class="name">${escapeHtml(driver.firstName)}</p>
<p class="car">${escapeHtml(driver.vehicle)}${driver.colour ? ` <span class="colour">· ${escapeHtml(capital(driver.colour))}</span>` : ''}</p>
<p class="plate-label">Number plate</p>
<p class="plate">${escapeHtml(driver.plate)}</p>
</section>`
    : '';

  const frame = !position ? 'island' : v.status === 'passenger_on_board' ? 'trip' : 'pickup';
  const title = `Map of Sri Lanka showing the pickup, ${v.pickupName}, and the drop-off, ${v.dropoffName}${position ? `, and ${name ?? 'your driver'}’s last position` : ''}`;
  const map = renderMap({ pickup: v.pickup, dropoff: v.dropoff, driver: position ? { ...position, label: name ?? 'Driver' } : null, frame, title });
  const legend = [
    `<li><span class="key k-pickup"></span>Pickup</li>`,
    `<li><span class="key k-dropoff"></span>Drop-off${map.dropoffInFrame ? '' : ' (off this map: see the arrow)'}</li>`,
    position ? `<li><span class="key k-driver"></span>${escapeHtml(name ?? 'Driver')} at ${escapeHtml(slTime(position.at))}</li>` : '',
  ].join('');
  const inset = frame === 'island' ? '' : renderInset(map.viewBox, v.pickup, v.dropoff);

  const flight = v.flight ? `<div><dt>Flight</dt><dd>${flightLine(v.flight, v.pickupAt)}</dd></div>` : '';
  return `${head(`${words} · Booking ${v.bookingRef} · Lanka Transfers`, refresh)}
</head>
<body>
<header class="bar"><span class="brand">Lanka Transfers</span><span class="ref">Booking <strong>${escapeHtml(v.bookingRef)}</strong></span></header>
<main class="page phase-${live ? 'live' : 'upcoming'}${driver ? '' : ' no-driver'}">
<section class="card status st-${v.status}" aria-labelledby="status-h">
<h1 id="status-h">${escapeHtml(words)}</h1>
${eta}<p class="detail">${statusDetail(v, name)}</p>
${updated}</section>
${driverCard}
<figure class="card map">
${map.svg}
<figcaption><ul class="legend">${legend}</ul>${inset}</figcaption>
</figure>
<section class="card trip" aria-labelledby="trip-h">
<h2 id="trip-h">Your transfer</h2>
<dl>
<div><dt>Pickup time</dt><dd>${pickupTime(v)}</dd></div>
<div><dt>Pickup</dt><dd>${escapeHtml(v.pickupName)}</dd></div>
<div><dt>Drop-off</dt><dd>${escapeHtml(v.dropoffName)}</dd></div>
${flight}</dl>
</section>
${helpCard(v.emergencyPhone)}
</main>
${FOOTER}
</body>
</html>
`;
}

/** The page's only style, inline (system fonts; colours of the consoles). The map's classes style its SVG. */
const CSS = `
:root{--ink:#1b2733;--muted:#4f5d6b;--line:#d5dde5;--bg:#f4f6f8;--brand:#0b4f6c;--ok:#116329;--bad:#a40e26;--driver:#c2410c;--accent:var(--brand);color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;background:var(--bg);color:var(--ink);-webkit-text-size-adjust:100%}
.bar{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap;background:var(--brand);color:#fff;padding:12px 16px}
.brand{font-weight:700;font-size:17px}.ref{font-size:14px;color:#e6eef3}
.page{display:grid;gap:12px;padding:12px;max-width:1080px;margin:0 auto;grid-template-columns:minmax(0,1fr)}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:16px;margin:0;min-width:0}
.status{border-left:6px solid var(--accent)}
.st-driver_arrived,.st-passenger_on_board{--accent:var(--ok)}.st-completed{--accent:var(--muted)}.st-no_show,.st-cancelled,.st-expired{--accent:var(--bad)}
h1{font-size:24px;line-height:1.2;margin:0 0 6px;color:var(--accent)}.st-completed h1{color:var(--ink)}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 8px}
.eta{font-size:21px;font-weight:700;margin:0 0 4px}.detail{margin:4px 0 0}.updated{font-size:14px;color:var(--muted);margin:10px 0 0}
.name{font-size:26px;font-weight:700;line-height:1.2;margin:0}.car{font-size:18px;margin:2px 0 14px}.colour{color:var(--muted)}
.plate-label{font-size:13px;color:var(--muted);margin:0 0 4px}
.plate{display:inline-block;max-width:100%;margin:0;padding:6px 16px;font:700 36px/1.15 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;letter-spacing:.04em;color:#111;background:#fff;border:3px solid #111;border-radius:8px;overflow-wrap:anywhere}
.map{padding:0;overflow:hidden}.map-svg{display:block;width:100%;height:auto;max-height:72vh;background:#dcecf5}
figcaption{display:flex;justify-content:space-between;align-items:center;gap:12px;padding:10px 14px;border-top:1px solid var(--line)}
.legend{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:14px}
.key{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:-1px;border:2px solid #fff;box-shadow:0 0 0 1px var(--line)}
.k-pickup{border-radius:50%;background:var(--ok)}.k-dropoff{border-radius:3px;background:var(--brand)}.k-driver{border-radius:50%;background:var(--driver)}
.inset{flex:none;width:48px;height:auto}
.sea{fill:#dcecf5}.land{fill:#f5f1e6;stroke:#8fb0c3;stroke-linejoin:round}
.m-pickup{fill:var(--ok);stroke:#fff}.m-dropoff{fill:var(--brand);stroke:#fff}.m-driver{fill:var(--driver);stroke:#fff}.m-driver-halo{fill:var(--driver);opacity:.22}.m-place{fill:#6b7785}
.labels text{paint-order:stroke;stroke:#fff;stroke-linejoin:round}.l-mark{fill:var(--ink);font-weight:700}.l-driver{fill:#9a3412;font-weight:700}.l-place{fill:var(--muted)}
.scale path{fill:none;stroke:var(--muted)}.scale text{fill:var(--muted)}.inset .frame{fill:none;stroke:var(--driver)}
dl{margin:0}dl>div{display:grid;grid-template-columns:7.5em minmax(0,1fr);gap:8px;padding:8px 0;border-top:1px solid var(--line)}dl>div:first-child{border-top:0;padding-top:0}
dt{color:var(--muted);font-size:14px;padding-top:1px}dd{margin:0;overflow-wrap:anywhere}
.was{display:block;color:var(--muted)}.moved{display:block;margin-top:4px;padding:6px 8px;border-radius:6px;background:#fff4e0;color:#7a3d00}
.help p{margin:0 0 10px}.call{display:block;text-align:center;background:var(--brand);color:#fff;text-decoration:none;font-weight:700;font-size:18px;padding:14px;border-radius:10px}
footer{font-size:12px;color:var(--muted);text-align:center;padding:4px 16px 24px}
@media (min-width:880px){
.page{grid-template-columns:minmax(320px,400px) minmax(0,1fr);grid-template-areas:"status map" "driver map" "trip map" "help map" ". map";grid-template-rows:auto auto auto auto 1fr;align-items:start;padding:20px}
.page.no-driver{grid-template-areas:"status map" "trip map" "help map" ". map";grid-template-rows:auto auto auto 1fr}
.status{grid-area:status}.driver{grid-area:driver}.map{grid-area:map;position:sticky;top:20px}.trip{grid-area:trip}.help{grid-area:help}.map-svg{max-height:calc(100vh - 140px)}
}
.page.gone{max-width:560px;grid-template-columns:minmax(0,1fr);grid-template-areas:"status" "help";grid-template-rows:auto}
`;

function helpCard(phone: string): string {
  return `<section class="card help" aria-labelledby="help-h">
<h2 id="help-h">Need help?</h2>
<p>Call us any time, day or night.</p>
<a class="call" href="${escapeHtml(telHref(phone))}">Call ${escapeHtml(phone)}</a>
</section>`;
}

/** The document's head, the same for both pages: not indexed, no referrer, its own style only. */
const head = (title: string, refresh: boolean) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="theme-color" content="#0b4f6c">
${refresh ? '<meta http-equiv="refresh" content="30">\n' : ''}<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>`;

const FOOTER = `<footer>Times are Sri Lanka time. Map outline drawn for Lanka Transfers; place names contain GeoNames data (CC BY 4.0).</footer>`;

/** The page for a link past its time (410): it says so, and how to reach us. */
export function renderTrackingGone(v: { bookingRef: string; emergencyPhone: string }): string {
  return `${head(`Tracking link expired · Booking ${v.bookingRef} · Lanka Transfers`, false)}
</head>
<body>
<header class="bar"><span class="brand">Lanka Transfers</span><span class="ref">Booking <strong>${escapeHtml(v.bookingRef)}</strong></span></header>
<main class="page gone">
<section class="card status st-expired" aria-labelledby="status-h">
<h1 id="status-h">This tracking link has expired</h1>
<p class="detail">Tracking for booking <strong>${escapeHtml(v.bookingRef)}</strong> has ended, so there is nothing more to show here.</p>
</section>
${helpCard(v.emergencyPhone)}
</main>
<footer>Lanka Transfers</footer>
</body>
</html>
`;
}
