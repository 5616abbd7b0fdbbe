// @ts-check
/*
 * Words and times for the driver. All times are Sri Lanka time (UTC+05:30 all year), computed from the instant
 * whatever the phone's zone, and "now" is the service's clock (state.js), not the phone's.
 */
import { serviceNow } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Place} Place */
/** @typedef {import('./api.js').NextStatus} NextStatus */

const SLT_MS = 330 * 60000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** What the big button says, by the state it moves the job to. @type {Record<NextStatus, string>} */
export const ACTIONS = {
  en_route: 'Start driving to pickup',
  arrived: 'I have arrived',
  on_board: 'Passenger on board',
  completed: 'Ride completed',
  no_show: 'Passenger did not come',
};

/** A job's state in words. @type {Record<Job['status'], string>} */
export const STATES = {
  driver_assigned: 'Not started',
  en_route: 'Driving to pickup',
  arrived: 'At the pickup',
  on_board: 'Passenger on board',
  completed: 'Completed',
  no_show: 'Passenger did not come',
};

/** The states in which the phone shares its position. @param {Job} j */
export function isLive(j) {
  return j.status === 'en_route' || j.status === 'arrived' || j.status === 'on_board';
}

/** @param {Job} j */
export function isOver(j) {
  return j.status === 'completed' || j.status === 'no_show';
}

/** "14:05" in Sri Lanka. @param {string | number} iso */
export function hhmm(iso) {
  return new Date(new Date(iso).getTime() + SLT_MS).toISOString().slice(11, 16);
}

/** "Sat 21 Nov" for a date (YYYY-MM-DD). @param {string} date */
export function dayName(date) {
  const d = new Date(date + 'T00:00:00Z');
  return DAYS[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()];
}

/** @param {string} date @param {number} n */
export function addDays(date, n) {
  return new Date(Date.parse(date + 'T00:00:00Z') + n * 86400000).toISOString().slice(0, 10);
}

/** The day in Sri Lanka of an instant (YYYY-MM-DD). @param {string | number} iso */
export function sltDate(iso) {
  return new Date(new Date(iso).getTime() + SLT_MS).toISOString().slice(0, 10);
}

/** The pickup time the driver goes by: the flight's estimate when it is tracked, else the booked one. @param {Job} j */
export function pickupTime(j) {
  return j.pickup_estimated_at || j.pickup_at;
}

/** "in 25 min", "in 2 h 05 min", "5 min ago". @param {string} iso */
export function fromNow(iso) {
  const min = Math.round((Date.parse(iso) - serviceNow()) / 60000);
  const span = (/** @type {number} */ m) => (m >= 60 ? Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min' : m + ' min');
  if (min === 0) return 'now';
  return min > 0 ? 'in ' + span(min) : span(-min) + ' ago';
}

/** A place as the driver looks for it: where we located it, and the customer's words when they differ. @param {Place} p */
export function placeLines(p) {
  const main = p.iata ? p.resolved_name + ' (' + p.iata + ')' : p.name;
  const second = !p.iata && p.resolved_name && p.resolved_name !== p.name ? p.resolved_name : '';
  return { main, second };
}

/** @param {number} n @param {string} one @param {string} many */
function count(n, one, many) {
  return n + ' ' + (n === 1 ? one : many);
}

/** "2 adults · 1 child · 3 bags". @param {Job} j */
export function party(j) {
  const p = j.passengers;
  return [count(p.adults, 'adult', 'adults'), p.children ? count(p.children, 'child', 'children') : '', count(p.luggage, 'bag', 'bags')]
    .filter(Boolean)
    .join(' · ');
}

/** The seats the car must carry ("1 child seat, 2 booster seats"); '' without any. @param {Job} j */
export function seats(j) {
  return j.extras.map((e) => count(e.quantity, e.code.replace(/_/g, ' '), e.code.replace(/_/g, ' ') + 's')).join(', ');
}

/** The flight and what is known of it, in words. @param {NonNullable<Job['flight']>} f */
export function flightText(f) {
  const at = f.estimated_arrival || f.scheduled_arrival;
  /** @type {Record<typeof f.status, string>} */
  const words = {
    unknown: 'not tracked yet',
    scheduled: at ? 'on time, lands ' + hhmm(at) : 'on time',
    delayed: at ? 'delayed, lands ' + hhmm(at) : 'delayed',
    landed: at ? 'landed ' + hhmm(at) : 'landed',
    diverted: 'DIVERTED — call dispatch',
    cancelled: 'CANCELLED — call dispatch',
  };
  return f.number + ': ' + words[f.status];
}

/** A phone number for a tel: link (digits and a leading +). @param {string} phone */
export function telHref(phone) {
  return 'tel:' + phone.replace(/[^0-9+]/g, '');
}
