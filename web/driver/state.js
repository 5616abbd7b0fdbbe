// @ts-check
/*
 * What the driver app knows of its session: the token (also kept in this tab's sessionStorage, see session.js), the
 * driver it belongs to and the service's clock. The jobs come from the driver API, and what is waiting to be sent
 * is in queue.js.
 */

/** @typedef {import('./api.js').Me} Me */

/** The page's address prefix (`{{root}}`), and where the driver API is. */
export const ROOT = document.documentElement.getAttribute('data-root') || '';
export const API = ROOT + '/driver/v1';

/**
 * @type {{ token: string | null, me: Me | null, clockOffset: number }}
 * `clockOffset`: the service's clock minus the phone's (GET /me), so "today" and every time follow the service.
 */
export const session = { token: null, me: null, clockOffset: 0 };

/** The service's "now", in milliseconds. */
export function serviceNow() {
  return Date.now() + session.clockOffset;
}
