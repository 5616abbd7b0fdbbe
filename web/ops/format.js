// @ts-check
/*
 * Words and times for the page. All times are Sri Lanka time (UTC+05:30 all year), computed from the instant, whatever
 * the browser's zone.
 */
import { serviceNow } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').JobPlace} JobPlace */
/** @typedef {import('./api.js').FleetCode} FleetCode */
/** @typedef {import('./api.js').RateLimit} RateLimit */
/** @typedef {import('./api.js').Env} Env */
/** @typedef {import('./api.js').ShiftException} ShiftException */
/** @typedef {{ starts: string, ends: string }} Hours a shift's times, HH:MM */

export const SLT_MS = 330 * 60000;
export const HOUR = 3600000;

/** @type {[FleetCode, string][]} Our fleet classes, in the order the page lists them. */
export const FLEET = [
  ['small_car', 'Small car'],
  ['standard_car', 'Standard car'],
  ['premium_car', 'Premium car'],
  ['suv', 'SUV'],
  ['standard_van', 'Standard van'],
  ['premium_van', 'Premium van'],
  ['large_van', 'Large van'],
  ['standard_bus', 'Standard bus'],
];
/** @type {Record<string, string>} */
export const FLEET_NAMES = Object.fromEntries(FLEET);
/** @type {FleetCode[]} */
export const FLEET_ORDER = FLEET.map((f) => f[0]);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** An instant as an ISO string in Sri Lanka time (its "Z" is not UTC). @param {string | number} iso */
export function slt(iso) {
  return new Date(new Date(iso).getTime() + SLT_MS).toISOString();
}
/** @param {string} iso */
export function hhmm(iso) {
  return slt(iso).slice(11, 16);
}
/** "Sat 21 Nov" for a date (YYYY-MM-DD). @param {string} date */
export function dayName(date) {
  const d = new Date(date + 'T00:00:00Z');
  return DAYS[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()];
}
/** "21 Nov 13:30" (with seconds when asked); a dash for no time. @param {string | null | undefined} iso @param {boolean} [seconds] */
export function when(iso, seconds) {
  if (!iso) return '—';
  const s = slt(iso);
  return Number(s.slice(8, 10)) + ' ' + MONTHS[Number(s.slice(5, 7)) - 1] + ' ' + s.slice(11, seconds ? 19 : 16);
}
/** @param {string} date @param {number} n */
export function addDays(date, n) {
  return new Date(Date.parse(date + 'T00:00:00Z') + n * 86400000).toISOString().slice(0, 10);
}
export function todayInSriLanka() {
  return new Date(serviceNow() + SLT_MS).toISOString().slice(0, 10);
}
/** Midnight in Sri Lanka, as milliseconds. @param {string} date */
export function dayStart(date) {
  return Date.parse(date + 'T00:00:00+05:30');
}
/** @param {string} iso */
export function ago(iso) {
  const min = Math.round((serviceNow() - Date.parse(iso)) / 60000);
  if (min < 1) return 'just now';
  if (min < 120) return min + ' min ago';
  return Math.round(min / 60) + ' h ago';
}

/** A place as the customer named it and where we located it. @param {JobPlace | null | undefined} p */
export function place(p) {
  if (!p) return '';
  const name = p.iata ? p.resolved_name + ' (' + p.iata + ')' : p.name;
  return p.name !== p.resolved_name && !p.iata ? p.name + ' — ' + p.resolved_name : name;
}
/** @param {JobPlace} p */
export function shortPlace(p) {
  return p.iata || p.resolved_name || p.name;
}
/** @param {Job} j */
export function party(j) {
  const p = j.passengers;
  const children = p.children ? p.children + (p.children === 1 ? ' child, ' : ' children, ') : '';
  return p.adults + (p.adults === 1 ? ' adult, ' : ' adults, ') + children + p.luggage + (p.luggage === 1 ? ' bag' : ' bags');
}
/** The seats a job's vehicle must carry, in words ("1 child seat, 1 booster seat"); '' without any. @param {Job} j */
export function seats(j) {
  return j.extras.map((e) => e.quantity + ' ' + e.code.replace('_', ' ') + (e.quantity === 1 ? '' : 's')).join(', ');
}
/** Why a change of its booking or order released the job's driver and vehicle, in words. @param {Job} j */
export function releasedText(j) {
  if (!j.released) return '';
  const why = {
    overlap: 'its new time overlaps another job of the driver or vehicle',
    vehicle_too_small: 'the vehicle no longer carries the party',
    vehicle_lacks_equipment: 'the vehicle lacks a seat now needed',
    flight_moved: "a late flight moved its pickup onto the driver's or vehicle's next job",
  }[j.released.reason];
  return 'Released by a change: ' + (why || j.released.reason) + '. Assign again.';
}
/** @param {Job} j */
export function whoFor(j) {
  return j.booking_ref ? 'Booking ' + j.booking_ref : 'Marketplace order ' + j.order_id;
}
/** @param {Job} j */
export function whereabouts(j) {
  const l = j.last_location;
  if (!l) return 'No position reported yet';
  return l.lat.toFixed(5) + ', ' + l.lon.toFixed(5) + ' at ' + hhmm(l.at) + ' (' + ago(l.at) + ')';
}
/** @param {Job} j */
export function statusText(j) {
  return (
    {
      confirmed: 'unassigned',
      driver_assigned: 'assigned',
      en_route: 'driver on the way',
      arrived: 'driver at pickup',
      on_board: 'passenger on board',
      completed: 'completed',
      no_show: 'no-show',
      cancelled: 'cancelled',
    }[j.status] || j.status
  );
}

/** What needs the dispatcher, in words ('' when nothing). @param {Job} j */
export function alertText(j) {
  const words = {
    late: 'Late: no driver on the way 30 min before pickup',
    flight_cancelled: 'Flight cancelled',
    flight_diverted: 'Flight diverted',
    flight_moved_released: 'Flight moved the pickup onto another job: driver released',
    flight_moved_over_capacity: 'Flight moved the pickup: no vehicle of the class free',
  };
  return j.alerts.map((a) => words[a] || a).join(' · ');
}

/** The ride's steps as the driver's app reported them. @param {Job} j */
export function rideText(j) {
  const steps = [
    ['on the way', j.ride.en_route_at],
    ['at pickup', j.ride.arrived_at],
    ['on board', j.ride.on_board_at],
  ];
  return steps
    .filter((s) => s[1])
    .map((s) => s[0] + ' ' + hhmm(/** @type {string} */ (s[1])))
    .join(' · ');
}

/** When the job now starts: the pickup moved by a late flight, else the booked one. @param {Job} j */
export const pickupOf = (j) => j.pickup_estimated_at || j.pickup_at;

/** @param {RateLimit} l */
export function rateText(l) {
  if (!l) return 'No limit';
  return l.requests_per_second + (l.requests_per_second === 1 ? ' request' : ' requests') + ' a second, bursts of up to ' + l.burst;
}
/** @param {Env} env */
export function envName(env) {
  return env === 'sandbox' ? 'Sandbox' : 'Production';
}

/** A stored request or response part, for reading. @param {unknown} v */
export function pretty(v) {
  if (v === null || v === undefined) return '(empty)';
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

/** ISO weekdays, 1 = Monday … 7 = Sunday (index 0 is Monday). */
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** Whether a shift runs past midnight (it ends before it starts; 00:00 is midnight). @param {Hours} s */
export const overnight = (s) => HHMM.test(s.starts) && HHMM.test(s.ends) && s.ends < s.starts;

/** Where a night shift ends: "overnight, until Sat 06:00", or "until midnight". @param {string} ends @param {string} nextDay */
export const untilText = (ends, nextDay) => (ends === '00:00' ? 'until midnight' : 'overnight, until ' + nextDay + ' ' + ends);

/**
 * A time as typed ("6", "6:30", "0630", "18.00") as HH:MM on the 24-hour clock, 24:00 as 00:00 (midnight: a shift
 * ending then runs into the next day); anything else as it is. @param {string} typed
 */
export function tidyTime(typed) {
  const m = /^(\d{1,2})(?:[:.h ]?(\d{2}))?$/.exec(typed.trim());
  if (m && Number(m[1]) === 24 && Number(m[2] || 0) === 0) return '00:00';
  if (!m || Number(m[1]) > 23 || Number(m[2] || 0) > 59) return typed.trim();
  return m[1].padStart(2, '0') + ':' + (m[2] || '00');
}

/** The day after an ISO weekday, short ("Tue" after 1). @param {number} weekday */
export const dayAfter = (weekday) => WEEKDAYS[weekday % 7].slice(0, 3);

/** "06:00–18:00", or "20:00–06:00 (overnight, until Sat 06:00)". @param {Hours} s @param {string} nextDay */
export function hoursText(s, nextDay) {
  return s.starts + '–' + s.ends + (overnight(s) ? ' (' + untilText(s.ends, nextDay) + ')' : '');
}

/** A day's exception in words: "off", or its hours. @param {ShiftException} e */
export function exceptionText(e) {
  return 'off' in e ? 'off' : hoursText(e, dayName(addDays(e.date, 1)).slice(0, 3));
}
