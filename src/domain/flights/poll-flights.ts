import { runEvery } from '../../shared/every';
import type { Database } from '../../data/database';
import { claimDueFlights, recordFlightFailure } from '../../data/repositories/flights-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { formatLocal } from '../kernel/sri-lanka-time';
import { followFlight } from './follow-flight';
import { FlightStatusUnavailable, type FlightStatus } from './flight-status';

/** A claimed check is this instance's for this long (a crashed poller's checks come back after it). */
const LEASE_MS = 2 * 60_000;
/** After a provider failure: ask again after 1, 2, 4 … minutes, at most every 15. */
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 15 * 60_000;

interface PollerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
}

/**
 * One pass: claims the arrivals due a check (a lease, in one statement, so instances never ask twice at once), asks
 * the provider about each with no transaction open, and applies each answer in a short transaction of its own
 * (follow-flight.ts). A provider failure backs that flight off and the pass goes on: no request ever waits on it.
 */
export async function pollFlightsOnce(deps: PollerDeps, provider: FlightStatus, limit = 20): Promise<{ checked: number; failed: number }> {
  const due = await claimDueFlights(deps.db, deps.clock.now(), limit, LEASE_MS);
  let checked = 0;
  let failed = 0;
  for (const f of due) {
    const query = { number: f.flightNumber, date: formatLocal(new Date(f.bookedPickupAt)).slice(0, 10), airport: f.airport };
    try {
      const report = await provider.lookup(query);
      await deps.db.transaction((tx) => followFlight(tx, f.jobId, report, deps.clock.now()));
      checked += 1;
    } catch (err) {
      if (!(err instanceof FlightStatusUnavailable)) throw err;
      failed += 1;
      deps.logger.warn({ jobId: f.jobId, flight: f.flightNumber, err: err.message }, 'flight status unavailable; will retry');
      await recordFlightFailure(deps.db, f.jobId, deps.clock.now(), RETRY_BASE_MS, RETRY_MAX_MS);
    }
  }
  return { checked, failed };
}

/** Polls every `pollMs` until stopped; a failed pass is logged and the next one runs as usual. */
export function startFlightPoller(deps: PollerDeps, provider: FlightStatus, opts: { pollMs: number }): () => Promise<void> {
  const pass = () =>
    pollFlightsOnce(deps, provider).then(
      (done) => {
        if (done.checked + done.failed) deps.logger.info(done, 'flight poll pass');
      },
      (err) => deps.logger.warn({ err }, 'flight poll pass failed; will retry'),
    );
  return runEvery(pass, opts.pollMs);
}
