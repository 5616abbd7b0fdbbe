// @ts-check
/*
 * The operator console: a client of the operator API (/ops/v1) and nothing else. The page holds no data of its own;
 * every list, form and button calls the API with the operator token (session.js). What the API refuses is shown in
 * its own words (api.js).
 *
 * Native ES modules, served as they are (no build): this one starts the page; each view is a module of its own
 * (board.js with board-timeline.js, job-panel.js and the day's plan in plan-*.js, drivers.js with driver-hours.js, partners.js with partner-settings.js and
 * partner-terms.js, deliveries.js, audit.js, operators.js), over router.js (which view is shown, polling), state.js
 * (the session), api.js (the API client, typed from the contract), dom.js and format.js. `npm run typecheck:web` checks them all (// @ts-check, JSDoc types).
 *
 * Roles: who is signed in comes from GET /me; what the page offers follows the role, ranked as the API ranks them
 * (each operation's `x-required-role` in ops-v1.yaml): what a role may not do is not shown at all. The API decides
 * still: a 403 is shown in its words.
 */
import { setUpAudit } from './audit.js';
import { setUpBoard } from './board.js';
import { setUpDeliveries } from './deliveries.js';
import { setUpDrivers } from './drivers.js';
import { setUpOperators } from './operators.js';
import { setUpPartners } from './partners.js';
import { polled, route } from './router.js';
import { startSession } from './session.js';
import { session } from './state.js';

setUpBoard();
setUpDrivers();
setUpPartners();
setUpDeliveries();
setUpAudit();
setUpOperators();

window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && session.token && polled()) route();
});

startSession();
