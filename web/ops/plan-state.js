// @ts-check
/*
 * The day's plan as the board last read it (plan-api.js reads and acts on it), and what its proposals come to
 * against the board's jobs: each already true, still to apply (a ghost, drawn by plan-ghosts.js) or no longer holding.
 * Shared by the plan's card (plan-card.js), its ghosts and its actions, with the words they all use.
 */
import { serviceNow } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Schemas['DispatchPlan']} Plan */
/** @typedef {Plan['assignments'][number]} Proposal */
/** @typedef {{ date: string, jobs: Job[], drivers: import('./api.js').Driver[], vehicles: import('./api.js').Vehicle[] }} Day */
/** @typedef {{ reload: () => Promise<unknown>, select: (jobId: string) => void }} Actions */
/**
 * A proposal still to apply, with its job, and who and what it proposes, by name.
 * @typedef {{ a: Proposal, job: Job, driver: string, plate: string }} Ghost
 */
/** @typedef {{ text: string, kind: 'ok' | 'error' | '', list?: string[] } | { refused: import('./api.js').AnyAnswer }} Result */

/**
 * `plan`: the day's newest plan (null: none yet); `at`: when it was read (the browser's clock); `result`: what the
 * last action answered, shown under the card until the next one; `busy`: an action is under way (another click
 * waits for it); `shown`: what the card was last drawn from (a poll that changes nothing leaves it alone).
 * @type {{ date: string, plan: Plan | null, at: number, result: Result | null, busy: boolean, shown: string }}
 */
export const planState = { date: '', plan: null, at: 0, result: null, busy: false, shown: '' };

/** A reason the API gives, in words (else as it is, spaced). @param {string} reason @param {Record<string, string>} words */
export const inWords = (reason, words) => words[reason] || reason.replace(/_/g, ' ');

/** The board's job of that id, if it is on the board. @param {Day} day @param {string} jobId */
export const jobOf = (day, jobId) => day.jobs.find((j) => j.job_id === jobId);

/** The plan of the day shown, if it is read. @param {Day} day */
export const planOf = (day) => (planState.plan && planState.date === day.date && planState.plan.date === day.date ? planState.plan : null);

/**
 * Whether a proposal is already true (`done`: the job has that driver and vehicle), still to apply (`open`), or no
 * longer holds (`stale`: the job is gone, closed, under way or past its pickup, assigned elsewhere since, or the
 * vehicle left service).
 * @param {Proposal} a
 * @param {Day} day
 * @returns {'done' | 'open' | 'stale'}
 */
export function standing(a, day) {
  const job = jobOf(day, a.job_id);
  if (!job) return 'stale';
  if (job.driver && job.driver.driver_id === a.driver_id && job.vehicle && job.vehicle.vehicle_id === a.vehicle_id) return 'done';
  if (job.status !== 'confirmed' && job.status !== 'driver_assigned') return 'stale';
  if (serviceNow() >= Date.parse(job.pickup_at)) return 'stale';
  if (a.change === 'new' && job.driver) return 'stale';
  if (!day.vehicles.some((v) => v.vehicle_id === a.vehicle_id)) return 'stale';
  return 'open';
}

/**
 * The newest plan's proposals that are not yet true: what the board draws as ghosts.
 * @param {Day} day
 * @returns {Ghost[]}
 */
export function ghosts(day) {
  const plan = planOf(day);
  if (!plan) return [];
  /** @type {Ghost[]} */
  const out = [];
  plan.assignments.forEach((a) => {
    if (a.change === 'kept') return;
    const job = jobOf(day, a.job_id);
    if (!job || standing(a, day) !== 'open') return;
    const driver = day.drivers.find((d) => d.driver_id === a.driver_id);
    const vehicle = day.vehicles.find((v) => v.vehicle_id === a.vehicle_id);
    out.push({ a, job, driver: driver ? driver.name : a.driver_id, plate: vehicle ? vehicle.plate : a.vehicle_id });
  });
  return out;
}

/** "Sunil Fernando with CAB-4821". @param {Ghost} g */
export const crew = (g) => g.driver + ' with ' + g.plate;
