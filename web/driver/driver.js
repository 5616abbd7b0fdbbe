// @ts-check
/*
 * The driver app: a client of the driver API (/driver/v1) and nothing else, for the driver's phone on a weak
 * signal. Native ES modules served as they are (no build): this one starts the page, over session.js (signing in
 * and out), jobs.js and card.js (the jobs and their big button), location.js (the position while a job is live, and
 * the status bar), queue.js (what could not be sent yet), api.js (the client, typed from the contract), state.js,
 * dom.js and format.js. `npm run typecheck:web` checks them all (// @ts-check, JSDoc types).
 */
import { refreshNow } from './jobs.js';
import { renderStatusBar } from './location.js';
import { startQueue } from './queue.js';
import { startSession } from './session.js';

startQueue();
window.addEventListener('online', () => {
  renderStatusBar();
  refreshNow();
});
window.addEventListener('offline', renderStatusBar);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refreshNow();
});

startSession();
