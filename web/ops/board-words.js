// @ts-check
/*
 * The few words the dispatch board and its plan both say of a job (board.js, board-timeline.js, plan-card.js,
 * plan-ghosts.js): its route, its route after its pickup time, and a count with its noun.
 */
import { hhmm, pickupOf, shortPlace } from './format.js';

/** @typedef {import('./api.js').Job} Job */

/** "Galle → Kandy". @param {Job} j */
export const route = (j) => shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff);

/** "09:30 Galle → Kandy": the route after the pickup time (as a flight moved it). @param {Job} j */
export const timedRoute = (j) => hhmm(pickupOf(j)) + ' ' + route(j);

/** "1 job", "3 jobs". @param {number} n @param {string} noun */
export const count = (n, noun) => n + ' ' + noun + (n === 1 ? '' : 's');
