/**
 * One timing of `planDay`, in a process of its own (`bench/dispatch/run.ts` starts it): the planner warmed up on
 * another day first, then the benchmark's day of the given size planned once. A fresh process each time, so the
 * road model's cache of routes holds none of this day's pairs, as in the service, where each plan meets new hotels.
 * Prints the milliseconds. Usage: node dist/bench/dispatch/time-plan.js <jobs>
 */
import { planDay } from '../../src/domain/dispatch/planner';
import { makeDay, SIZES } from './day';

const size = SIZES.find((s) => s.jobs === Number(process.argv[2]));
if (!size) throw new Error(`usage: time-plan.js <${SIZES.map((s) => s.jobs).join('|')}>`);
const warm = makeDay({ jobs: 30, drivers: 8, seed: 7 });
planDay(warm.jobs, warm.drivers);
const day = makeDay(size);
const started = process.hrtime.bigint();
planDay(day.jobs, day.drivers);
process.stdout.write(`${Number(process.hrtime.bigint() - started) / 1e6}\n`);
