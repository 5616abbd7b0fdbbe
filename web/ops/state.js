// @ts-check
/*
 * What the console knows of its session: the token (also kept in this tab's sessionStorage, see session.js), who it
 * belongs to, the service's clock and the view shown. Nothing else is kept: every list comes from the operator API.
 */

/** @typedef {import('./api.js').Me} Me */
/** @typedef {import('./api.js').Role} Role */
/** @typedef {'board' | 'drivers' | 'partners' | 'deliveries' | 'audit' | 'operators'} ViewName */

/** The page's address prefix (`{{root}}`, '' on OPS_LISTEN), and where the operator API is. */
export const ROOT = document.documentElement.getAttribute('data-root') || '';
export const API = ROOT + '/ops/v1';

/**
 * @type {{ token: string | null, me: Me | null, clockOffset: number, view: ViewName | null }}
 * `clockOffset`: the service's clock minus the browser's (GET /ping), so times follow the service, not the PC.
 */
export const session = { token: null, me: null, clockOffset: 0, view: null };

/** @type {Role[]} The roles by rank: a role may do everything a lower one may (as the API has it). */
const ROLES = ['metrics', 'viewer', 'dispatcher', 'admin'];

/**
 * Whether the operator signed in may do what `role` may.
 * @param {Role} role
 */
export function can(role) {
  return !!session.me && ROLES.indexOf(session.me.role) >= ROLES.indexOf(role);
}

/**
 * A `data-needs` value read from the page (an unknown one needs the highest role).
 * @param {string | null} value
 * @returns {Role}
 */
export function roleNamed(value) {
  return ROLES.find((r) => r === value) ?? 'admin';
}

/** The service's "now", in milliseconds. */
export function serviceNow() {
  return Date.now() + session.clockOffset;
}
